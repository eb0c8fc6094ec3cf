// The authorization matrix, generated from the routes the app registers: every /api route with an id in its
// path is called with the owner's real ids by an anonymous caller (401) and by another signed-in user (403 or
// 404, never the resource). A route added later is covered automatically; a route whose id this file does not
// know how to fill fails with a message saying what to add.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { publicRoutes } from '../../../server/app/authenticate';
import { createHarness, type Harness } from '../harness';
import { api, newUser, seedProject, uploadOk, type TestUser } from '../projects/projects-fixtures';
import { makeSilentVideo } from '../../fixtures/media';
import { grantPlan } from '../spaces/spaces-fixtures';
import { typedClient } from '../typed-client';

let h: Harness;
let owner: TestUser;
let stranger: TestUser;
const ids: Record<string, string> = {};

/** How to fill the path parameters of each family of routes with the OWNER's resources. */
const RESOURCES: Array<{ pattern: RegExp; params: () => Record<string, string> }> = [
  { pattern: /^\/api\/project\/:id(\/|$)/, params: () => ({ id: ids.project!, segmentId: ids.segment! }) },
  { pattern: /^\/api\/space\/:id(\/|$)/, params: () => ({ id: ids.space!, wid: ids.webhook!, member: ids.castMember! }) },
  { pattern: /^\/api\/library\/media\/:id$/, params: () => ({ id: ids.media! }) },
  { pattern: /^\/api\/library\/tus\/:id$/, params: () => ({ id: ids.tus! }) },
  { pattern: /^\/api\/admin\/users\/:id(\/|$)/, params: () => ({ id: owner.id }) },
  { pattern: /^\/api\/admin\/support\/threads\/:id(\/|$)/, params: () => ({ id: ids.thread! }) },
  { pattern: /^\/api\/admin\/survey\/surveys\/:id$/, params: () => ({ id: 'customer_survey_v1' }) },
  { pattern: /^\/api\/users\/settings\/api\/credentials\/:id$/, params: () => ({ id: ids.credential! }) },
  { pattern: /^\/api\/glossary\/:id(\/|$)/, params: () => ({ id: ids.glossary! }) },
  { pattern: /^\/api\/voice_preset\/:id(\/|$)/, params: () => ({ id: ids.voicePreset! }) },
  { pattern: /^\/api\/batch\/:id(\/|$)/, params: () => ({ id: ids.batch!, item: ids.batchItem! }) },
];

/**
 * Valid bodies for routes that validate their body before looking the id up (so the refusal tested is the
 * authorization, not a 422). A new route that answers a stranger with 422 needs its entry here.
 */
const BODIES: Record<string, () => unknown> = {
  'POST /api/project/:id/media_download': () => ({ media_type: 'video' }),
  'PUT /api/project/:id/prompt': () => ({ prompt: 'Keep it short' }),
  'POST /api/project/:id/copy': () => ({ dst_lang: 'ca', free_dubbing: false }),
  'POST /api/project/:id/transcript/merge': () => ({ segment_ids: [ids.segment, ids.segment2] }),
  'POST /api/project/:id/transcript': () => ({ segments: [{ start: 8, end: 9, speaker: 'SPEAKER_0', src: { text: 'Hi' }, dst: { text: 'Hola' } }] }),
  'PATCH /api/project/:id/transcript': () => ({ segments: [{ id: ids.segment, dst: { text: 'Cambiado' } }] }),
  'POST /api/voice_preset/:id/update_settings': () => ({ similarity_boost: 0.5, stability: 0.5 }),
  'POST /api/voice_preset/:id/update_settings_from_project': () => ({ similarity_boost: 0.5, stability: 0.5, project_id: ids.project }),
};
const bodyOf = (c: Case) => (c.method === 'GET' || c.method === 'HEAD' ? undefined : (BODIES[`${c.method} ${c.path}`]?.() ?? {}));

/** Routes with an id that are public on purpose (their routeFacts say `public`), and why. */
const PUBLIC: Array<{ pattern: RegExp; why: string }> = [
  { pattern: /^\/api\/docs\/:file/, why: 'the API reference page\'s own static files (Swagger UI), no user data' },
  { pattern: /^\/api\/files\/:token/, why: 'the HMAC-signed, expiring token in the path is the authorization (tests/server/projects/projects-storage.test.ts)' },
  { pattern: /^\/api\/deliverables\/hls\/:token\//, why: 'an HLS package folder: the HMAC-signed, expiring token in the path is the authorization (a player cannot send a bearer; tests/server/deliverables/deliverables.test.ts)' },
];

interface Case {
  method: string;
  path: string;
  url: string;
}

function cases(): { cases: Case[]; unknown: string[] } {
  const out = new Map<string, Case>();
  const unknown: string[] = [];
  for (const r of h.app.routes) {
    if (!r.path.startsWith('/api/') || !r.path.includes('/:')) continue;
    if (PUBLIC.some((p) => p.pattern.test(r.path))) continue;
    const family = RESOURCES.find((x) => x.pattern.test(r.path));
    if (!family) {
      unknown.push(`${r.method} ${r.path}`);
      continue;
    }
    const params = family.params();
    const url = r.path.replace(/:(\w+)(\{[^}]*\})?/g, (_, name: string) => {
      if (!params[name]) unknown.push(`${r.method} ${r.path} (no value for :${name})`);
      return params[name] ?? 'x';
    });
    const methods = r.method === 'ALL' ? ['HEAD', 'PATCH', 'DELETE'] : [r.method];
    for (const m of methods) out.set(`${m} ${r.path}`, { method: m, path: r.path, url });
  }
  return { cases: [...out.values()], unknown };
}

beforeAll(async () => {
  h = await createHarness();
  owner = await newUser(h, 'owner');
  stranger = await newUser(h, 'stranger');
  ids.space = owner.defaultSpaceId;
  ids.media = await uploadOk(h, owner, await makeSilentVideo({ seconds: 1 }), { name: 'own.mp4' });
  ids.project = await seedProject(h, owner, { mediaId: ids.media, status: 'merging_done' });
  const segs = await h.deps.db.query<{ id: string }>(`SELECT id FROM segments WHERE project_id = $1 ORDER BY start_sec`, [ids.project]);
  ids.segment = segs[0]!.id;
  ids.segment2 = segs[1]!.id;
  const tus = await h.app.request(`/api/library/tus?space_id=${owner.defaultSpaceId}`, {
    method: 'POST', headers: { authorization: `Bearer ${owner.token}`, 'tus-resumable': '1.0.0', 'upload-length': '10' },
  });
  ids.tus = tus.headers.get('location')!.split('/').pop()!;
  await grantPlan(h, owner.id, 'business');
  const asOwner = typedClient(h, owner.token);
  const hook = await asOwner.POST('/api/space/{id}/webhooks', {
    params: { path: { id: owner.defaultSpaceId } }, body: { url: 'https://hooks.example.com/dub', events: ['dub.ready'] },
  });
  expect(hook.response.status, JSON.stringify(hook.error)).toBeLessThan(300);
  ids.webhook = hook.data!.id;
  const key = await asOwner.POST('/api/users/settings/api/credentials', { body: { name: 'CI' } });
  expect(key.response.status, JSON.stringify(key.error)).toBeLessThan(300);
  ids.credential = key.data!.id;
  const thread = await asOwner.POST('/api/support/messages', { body: { body: 'Help, please' } });
  expect(thread.response.status, JSON.stringify(thread.error)).toBe(201);
  ids.thread = thread.data!.thread!.id;
  ids.glossary = (await h.deps.db.one<{ id: string }>(
    `INSERT INTO glossaries (space_id, name, src_lang, dst_lang, terms) VALUES ($1, 'Own', 'en', 'es', '[]') RETURNING id`, [owner.defaultSpaceId],
  )).id;
  const batch = await h.deps.db.one<{ id: string }>(`INSERT INTO batches (space_id, user_id, name) VALUES ($1, $2, 'Own batch') RETURNING id`, [owner.defaultSpaceId, owner.id]);
  ids.batch = batch.id;
  ids.batchItem = (await h.deps.db.one<{ id: string }>(
    `INSERT INTO batch_items (batch_id, position, name, dst_langs, project_id) VALUES ($1, 0, 'Own', '["es"]', $2) RETURNING id`, [batch.id, ids.project],
  )).id;
  ids.castMember = (await h.deps.db.one<{ id: string }>(
    `INSERT INTO cast_members (space_id, name, profile, created_by) VALUES ($1, 'Own presenter', '{}', $2) RETURNING id`, [owner.defaultSpaceId, owner.id],
  )).id;
  ids.voicePreset = (await h.deps.db.one<{ id: string }>(
    `INSERT INTO voice_presets (space_id, label, engine, status) VALUES ($1, 'Own voice', 'builtin', 'done') RETURNING id`, [owner.defaultSpaceId],
  )).id;
});
afterAll(async () => {
  await h?.close();
});

describe('authorization matrix (generated from the registered routes)', () => {
  it('knows how to fill every route that takes an id', () => {
    const { cases: all, unknown } = cases();
    expect(
      unknown,
      'These routes take an id but the matrix cannot fill it: add their family to RESOURCES (or PUBLIC, with the reason) in tests/server/app/authz-matrix.test.ts',
    ).toEqual([]);
    expect(all.length).toBeGreaterThan(25);
  });

  it('lists with its reason every public route that takes an id (the routes say which are public)', () => {
    const open = publicRoutes(h.app.routes).filter((r) => r.path.includes('/:'));
    expect(open.filter((r) => !PUBLIC.some((p) => p.pattern.test(r.path))), 'a public route with an id needs its reason in PUBLIC').toEqual([]);
    expect(PUBLIC.filter((p) => !open.some((r) => p.pattern.test(r.path))).map((p) => String(p.pattern)), 'PUBLIC lists a route that is not public').toEqual([]);
  });

  it('refuses an anonymous caller on every such route', async () => {
    const wrong: string[] = [];
    for (const c of cases().cases) {
      const r = await h.request(c.method, c.url, { body: bodyOf(c), headers: { 'tus-resumable': '1.0.0' } });
      if (r.status !== 401) wrong.push(`${c.method} ${c.path} -> ${r.status}`);
    }
    expect(wrong, 'anonymous callers must get 401').toEqual([]);
  });

  it("refuses another user the owner's ids on every such route", async () => {
    const wrong: string[] = [];
    for (const c of cases().cases) {
      // Untyped: the matrix walks every registered route generically (method and path from h.app.routes).
      const r = await api(h, c.method, c.url, {
        token: stranger.token, body: bodyOf(c), headers: { 'tus-resumable': '1.0.0' },
      });
      if (r.status !== 403 && r.status !== 404) wrong.push(`${c.method} ${c.path} -> ${r.status} ${JSON.stringify(r.json).slice(0, 120)}`);
    }
    expect(wrong, "another user must get 403 or 404 for the owner's resources").toEqual([]);
    // The owner's things are untouched.
    const asOwner = typedClient(h, owner.token);
    expect((await asOwner.GET('/api/project/{id}', { params: { path: { id: ids.project! } } })).response.status).toBe(200);
    expect((await asOwner.GET('/api/library/media/{id}', { params: { path: { id: ids.media! } } })).response.status).toBe(200);
    const t = await asOwner.GET('/api/project/{id}/transcript', { params: { path: { id: ids.project! } } });
    expect(t.response.status).toBe(200);
    expect(JSON.stringify(t.data)).not.toContain('Cambiado');
  });
});
