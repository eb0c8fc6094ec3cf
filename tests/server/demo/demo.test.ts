// The demo project over HTTP (spec section 7: POST /api/project/demo {dst_lang}, GET /api/project/demo/covers):
// offered to trial users in the demo_project group only; the covers list the languages the engines can dub the
// demo into; opening one makes a project from the demo video (real LibriVox speech) that is transcribed,
// translated and dubbed with nobody pressing Generate, without touching the minutes ledger; a second click
// (or two at once) gives the same project.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHarness, type Harness } from '../harness';
import { api, eventually, signUpAndCreate } from '../helpers';
import { grantPlan } from '../spaces/spaces-fixtures';
import { typedClient } from '../typed-client';

let h: Harness;
type U = { id: string; token: string; spaceId: string };
let trial: U;
let outsider: U;
let paid: U;
const SLOW = 300_000;

async function account(email: string, group: string | null): Promise<U> {
  const r = await signUpAndCreate(h, email);
  const c = typedClient(h, r.token);
  if (group) {
    const g = await c.POST('/api/users/feature_group', { body: { name: 'demo_project', option: { id: group } } });
    expect(g.response.status).toBe(200);
  }
  const spaces = await c.GET('/api/space/list');
  return { id: r.user.id, token: r.token, spaceId: spaces.data!.find((s) => s.is_default)!.id };
}
const covers = (u: U | null) => typedClient(h, u?.token).GET('/api/project/demo/covers');
const openDemo = (u: U | null, dst_lang: string) => typedClient(h, u?.token).POST('/api/project/demo', { body: { dst_lang } });

const ledgerRows = (spaceId: string) =>
  h.deps.db.query<{ kind: string; minutes: number; ref: string }>(
    `SELECT kind, minutes::float8 AS minutes, ref FROM minutes_ledger WHERE space_id = $1 ORDER BY id`,
    [spaceId],
  );

beforeAll(async () => {
  h = await createHarness();
  trial = await account('demo-trial@example.com', 'demo');
  outsider = await account('demo-control@example.com', 'control');
  paid = await account('demo-paid@example.com', 'demo');
  await grantPlan(h, paid.id, 'business');
  await h.deps.pipeline.startWorker(1);
}, 120_000);
afterAll(async () => {
  await h?.close();
});

describe('who is offered the demo', () => {
  it('refuses the control group, a paid plan and anonymous callers; bad input is a clear error', async () => {
    for (const u of [outsider, paid]) {
      const c = await covers(u);
      expect(c.response.status).toBe(403);
      const p = await openDemo(u, 'es');
      expect(p.response.status).toBe(403);
      expect(p.error!.detail).toMatch(/demo project/);
    }
    expect((await covers(null)).response.status).toBe(401);
    expect((await openDemo(null, 'es')).response.status).toBe(401);
    // Untyped: the body lacks the dst_lang the types require.
    const missing = await api(h, 'POST', '/api/project/demo', { token: trial.token, body: {} });
    expect(missing.status).toBe(422);
    expect(missing.json.detail[0].loc).toContain('dst_lang');
    const unknown = await openDemo(trial, 'xx');
    expect(unknown.response.status).toBe(400);
    expect(unknown.error!.detail).toMatch(/xx/);
    // Nothing was made for the refused calls.
    expect(await h.deps.db.query(`SELECT 1 FROM demo_projects`)).toHaveLength(0);
  });
});

describe('the demo', () => {
  it('covers: the demo video with its cover, in each language the engines can dub it into', async () => {
    const c = await covers(trial);
    expect(c.response.status).toBe(200);
    const demo = c.data!;
    expect(demo).toMatchObject({ title: 'Sense and Sensibility', src_lang: 'en' });
    expect(demo.duration).toBeGreaterThan(10);
    const langs = demo.languages.map((l) => l.dst_lang);
    expect(langs).toContain('es');
    expect(langs).not.toContain('en');
    expect(demo.languages[0]).toMatchObject({ project_id: null, status: null });
    const cover = await h.request('GET', demo.cover_url);
    expect(cover.status).toBe(200);
    expect(cover.headers.get('content-type')).toMatch(/image\/jpeg/);
    expect((await cover.arrayBuffer()).byteLength).toBeGreaterThan(2000);
  }, 60_000);

  it('opens a dubbed demo in Spanish without a minute charged; a second click opens the same project', async () => {
    const before = await ledgerRows(trial.spaceId);
    const first = await openDemo(trial, 'es');
    expect(first.response.status).toBe(201);
    expect(first.data).toMatchObject({ space_id: trial.spaceId, src_lang: 'en', dst_lang: 'es', free_dubbing: true });
    const again = await openDemo(trial, 'es');
    expect(again.response.status).toBe(200);
    const id = first.data!.id;
    expect(again.data!.id).toBe(id);
    const asTrial = typedClient(h, trial.token);
    const ofDemo = { params: { path: { id } } };

    // Transcribed, translated and dubbed with nobody pressing Generate.
    const done = await eventually(
      async () => (await asTrial.GET('/api/project/{id}', ofDemo)).data,
      (p) => p !== undefined && (p.status === 'merging_done' || /failed/.test(p.status)),
      SLOW,
      'the dubbed demo',
    );
    expect(done!.status).toBe('merging_done');
    expect(done!.translated_video).toBeTruthy();
    const t = await asTrial.GET('/api/project/{id}/transcript', ofDemo);
    const segs = t.data!.segments;
    const srcText = segs.map((s) => s.src.text).join(' ').toLowerCase();
    // Real speech: the reader's words were recognised (pocketsphinx on the LibriVox clips).
    expect(srcText).toMatch(/dashwood|disposed|selfish|power/);
    expect(segs.every((s) => s.dst.text.trim().length > 0)).toBe(true);
    // The ledger is untouched: no debit, no refund, nothing.
    expect(await ledgerRows(trial.spaceId)).toEqual(before);

    // The covers now point at the demo; still one project for the language.
    const c = await covers(trial);
    expect(c.data!.languages.find((l) => l.dst_lang === 'es')).toMatchObject({ project_id: id, status: 'merging_done' });
    const list = await asTrial.GET('/api/project/paginated', { params: { query: { space_id: trial.spaceId } } });
    expect(list.data!.data.filter((p) => p.dst_lang === 'es')).toHaveLength(1);
  }, SLOW + 30_000);

  it('two clicks at once make one demo; a deleted demo is made again on the next click', async () => {
    const [a, b] = await Promise.all([openDemo(trial, 'ca'), openDemo(trial, 'ca')]);
    expect([a.response.status, b.response.status].sort()).toEqual([200, 201]);
    expect(a.data!.id).toBe(b.data!.id);
    expect(await h.deps.db.query(`SELECT 1 FROM demo_projects WHERE user_id = $1 AND dst_lang = 'ca'`, [trial.id])).toHaveLength(1);
    // Only one upload copy of the demo video was kept.
    expect(await h.deps.db.query(`SELECT 1 FROM projects WHERE user_id = $1 AND dst_lang = 'ca'`, [trial.id])).toHaveLength(1);
    const remove = (id: string) => typedClient(h, trial.token).DELETE('/api/project/{id}', { params: { path: { id } } });
    expect((await remove(a.data!.id)).response.status).toBe(200);
    const c = await openDemo(trial, 'ca');
    expect(c.response.status).toBe(201);
    expect(c.data!.id).not.toBe(a.data!.id);
    await remove(c.data!.id);
  }, 60_000);
});
