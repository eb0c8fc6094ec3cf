// The demo project over HTTP (spec section 7: POST /api/project/demo {dst_lang}, GET /api/project/demo/covers):
// offered to trial users in the demo_project group only; the covers list the languages the engines can dub the
// demo into; opening one makes a project from the demo video (real LibriVox speech) that is transcribed,
// translated and dubbed with nobody pressing Generate, without touching the minutes ledger; a second click
// (or two at once) gives the same project.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHarness, type Harness } from '../harness';
import { api, eventually, signUpAndCreate } from '../helpers';
import { grantPlan } from '../spaces/spaces-fixtures';

let h: Harness;
type U = { id: string; token: string; spaceId: string };
let trial: U;
let outsider: U;
let paid: U;
const SLOW = 300_000;

async function account(email: string, group: string | null): Promise<U> {
  const r = await signUpAndCreate(h, email);
  if (group) {
    const g = await api(h, 'POST', '/api/users/feature_group', { token: r.token, body: { name: 'demo_project', option: { id: group } } });
    expect(g.status).toBe(200);
  }
  const spaces = await api(h, 'GET', '/api/space/list', { token: r.token });
  return { id: r.user.id, token: r.token, spaceId: spaces.json.find((s: { is_default: boolean }) => s.is_default).id };
}

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
      const c = await api(h, 'GET', '/api/project/demo/covers', { token: u.token });
      expect(c.status).toBe(403);
      const p = await api(h, 'POST', '/api/project/demo', { token: u.token, body: { dst_lang: 'es' } });
      expect(p.status).toBe(403);
      expect(p.json.detail).toMatch(/demo project/);
    }
    expect((await api(h, 'GET', '/api/project/demo/covers', { token: null })).status).toBe(401);
    expect((await api(h, 'POST', '/api/project/demo', { token: null, body: { dst_lang: 'es' } })).status).toBe(401);
    const missing = await api(h, 'POST', '/api/project/demo', { token: trial.token, body: {} });
    expect(missing.status).toBe(422);
    expect(missing.json.detail[0].loc).toContain('dst_lang');
    const unknown = await api(h, 'POST', '/api/project/demo', { token: trial.token, body: { dst_lang: 'xx' } });
    expect(unknown.status).toBe(400);
    expect(unknown.json.detail).toMatch(/xx/);
    // Nothing was made for the refused calls.
    expect(await h.deps.db.query(`SELECT 1 FROM demo_projects`)).toHaveLength(0);
  });
});

describe('the demo', () => {
  it('covers: the demo video with its cover, in each language the engines can dub it into', async () => {
    const c = await api(h, 'GET', '/api/project/demo/covers', { token: trial.token });
    expect(c.status).toBe(200);
    expect(c.json).toMatchObject({ title: 'Sense and Sensibility', src_lang: 'en' });
    expect(c.json.duration).toBeGreaterThan(10);
    const langs = c.json.languages.map((l: { dst_lang: string }) => l.dst_lang);
    expect(langs).toContain('es');
    expect(langs).not.toContain('en');
    expect(c.json.languages[0]).toMatchObject({ project_id: null, status: null });
    const cover = await h.request('GET', c.json.cover_url);
    expect(cover.status).toBe(200);
    expect(cover.headers.get('content-type')).toMatch(/image\/jpeg/);
    expect((await cover.arrayBuffer()).byteLength).toBeGreaterThan(2000);
  }, 60_000);

  it('opens a dubbed demo in Spanish without a minute charged; a second click opens the same project', async () => {
    const before = await ledgerRows(trial.spaceId);
    const first = await api(h, 'POST', '/api/project/demo', { token: trial.token, body: { dst_lang: 'es' } });
    expect(first.status).toBe(201);
    expect(first.json).toMatchObject({ space_id: trial.spaceId, src_lang: 'en', dst_lang: 'es', free_dubbing: true });
    const again = await api(h, 'POST', '/api/project/demo', { token: trial.token, body: { dst_lang: 'es' } });
    expect(again.status).toBe(200);
    expect(again.json.id).toBe(first.json.id);

    // Transcribed, translated and dubbed with nobody pressing Generate.
    const done = await eventually(
      async () => (await api(h, 'GET', `/api/project/${first.json.id}`, { token: trial.token })).json,
      (p) => p.status === 'merging_done' || /failed/.test(p.status),
      SLOW,
      'the dubbed demo',
    );
    expect(done.status).toBe('merging_done');
    expect(done.translated_video).toBeTruthy();
    const t = await api(h, 'GET', `/api/project/${first.json.id}/transcript`, { token: trial.token });
    const segs = t.json.segments ?? t.json;
    const srcText = segs.map((s: { src: { text: string } }) => s.src.text).join(' ').toLowerCase();
    // Real speech: the reader's words were recognised (pocketsphinx on the LibriVox clips).
    expect(srcText).toMatch(/dashwood|disposed|selfish|power/);
    expect(segs.every((s: { dst: { text: string } }) => s.dst.text.trim().length > 0)).toBe(true);
    // The ledger is untouched: no debit, no refund, nothing.
    expect(await ledgerRows(trial.spaceId)).toEqual(before);

    // The covers now point at the demo; still one project for the language.
    const c = await api(h, 'GET', '/api/project/demo/covers', { token: trial.token });
    expect(c.json.languages.find((l: { dst_lang: string }) => l.dst_lang === 'es')).toMatchObject({ project_id: first.json.id, status: 'merging_done' });
    const list = await api(h, 'GET', `/api/project/paginated?space_id=${trial.spaceId}`, { token: trial.token });
    expect(list.json.data.filter((p: { dst_lang: string }) => p.dst_lang === 'es')).toHaveLength(1);
  }, SLOW + 30_000);

  it('two clicks at once make one demo; a deleted demo is made again on the next click', async () => {
    const [a, b] = await Promise.all([
      api(h, 'POST', '/api/project/demo', { token: trial.token, body: { dst_lang: 'ca' } }),
      api(h, 'POST', '/api/project/demo', { token: trial.token, body: { dst_lang: 'ca' } }),
    ]);
    expect([a.status, b.status].sort()).toEqual([200, 201]);
    expect(a.json.id).toBe(b.json.id);
    expect(await h.deps.db.query(`SELECT 1 FROM demo_projects WHERE user_id = $1 AND dst_lang = 'ca'`, [trial.id])).toHaveLength(1);
    // Only one upload copy of the demo video was kept.
    expect(await h.deps.db.query(`SELECT 1 FROM projects WHERE user_id = $1 AND dst_lang = 'ca'`, [trial.id])).toHaveLength(1);
    expect((await api(h, 'DELETE', `/api/project/${a.json.id}`, { token: trial.token })).status).toBe(200);
    const c = await api(h, 'POST', '/api/project/demo', { token: trial.token, body: { dst_lang: 'ca' } });
    expect(c.status).toBe(201);
    expect(c.json.id).not.toBe(a.json.id);
    await api(h, 'DELETE', `/api/project/${c.json.id}`, { token: trial.token });
  }, 60_000);
});
