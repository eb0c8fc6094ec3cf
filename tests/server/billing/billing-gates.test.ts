// Every plan-gated route (server/app/gates.ts GATES) over HTTP: a trial user is refused with the 403 feature
// refusal the client maps to the upgrade modal; a Business user gets through; a staff member too. The list is
// walked as a whole: a gate added without a case here fails the completeness test.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { featureOfRefusal, featureRefusalText, FEATURE_MIN_PLAN, type FeatureKey } from '../../../contract/features';
import { GATES, type Gate } from '../../../server/app/gates';
import { updateProjectFields } from '../../../server/domains/projects/repository';
import { projectKey } from '../../../server/storage/index';
import { makeSpeechVideo, tempDir } from '../../fixtures/media';
import { createHarness, type Harness } from '../harness';
import { api, newUser, seedProject, srtText, uploadOk, type TestUser } from '../projects/projects-fixtures';
import { grantPlan } from '../spaces/spaces-fixtures';
import type { components } from '../../../src/lib/api/schema';
import { typedClient } from '../typed-client';

let h: Harness;
type Feature = components['schemas']['Settings']['scope_settings']['available_features'][string];
let trial: TestUser;
let business: TestUser;
let staff: TestUser;
let video: string;
let srtFile: string;

interface Prepared {
  path: string;
  body?: unknown;
  /** A raw (non-JSON) body, e.g. a CSV file. */
  raw?: string;
}
/** Per user: what each gate's request needs (a project of theirs, a glossary of their space...). */
interface World {
  user: TestUser;
  projectId: string;
  mediaId: string;
  srtId: string;
  glossaryId: string;
  /** A dictionary the DELETE gate may remove. */
  spareGlossaryId: string;
  segmentId: string;
}
const worlds = new Map<string, World>();

async function world(u: TestUser): Promise<World> {
  const hit = worlds.get(u.id);
  if (hit) return hit;
  const mediaId = await uploadOk(h, u, video);
  const srtId = await uploadOk(h, u, srtFile, { kind: 'srt' });
  const projectId = await seedProject(h, u, { mediaId, status: 'merging_done' });
  // A finished dub: subtitles and video in storage.
  const srtKey = projectKey(projectId, 'translation.srt');
  const vttKey = projectKey(projectId, 'translation.vtt');
  const mp4Key = projectKey(projectId, 'translated.mp4');
  await h.deps.storage.putBuffer(srtKey, srtText([[0.5, 2.5, 'Hola.']]));
  await h.deps.storage.putBuffer(vttKey, 'WEBVTT\n\n00:00.500 --> 00:02.500\nHola.\n');
  await h.deps.storage.putFile(mp4Key, video);
  await updateProjectFields(h.deps.db, projectId, { translation_srt_path: srtKey, translation_vtt_path: vttKey, translated_video: mp4Key });
  const g = await h.deps.db.one<{ id: string }>(
    `INSERT INTO glossaries (space_id, name, src_lang, dst_lang, terms) VALUES ($1, 'Brand', 'en', 'es', '[]') RETURNING id`,
    [u.defaultSpaceId],
  );
  const spare = await h.deps.db.one<{ id: string }>(
    `INSERT INTO glossaries (space_id, name, src_lang, dst_lang, terms) VALUES ($1, 'Spare', 'en', 'fr', '[]') RETURNING id`,
    [u.defaultSpaceId],
  );
  const seg = await h.deps.db.one<{ id: string }>(`SELECT id FROM segments WHERE project_id = $1 ORDER BY start_sec LIMIT 1`, [projectId]);
  const w = { user: u, projectId, mediaId, srtId, glossaryId: g.id, spareGlossaryId: spare.id, segmentId: seg.id };
  worlds.set(u.id, w);
  return w;
}

const create = (w: World, extra: Record<string, unknown>): Prepared => ({
  path: `/api/project/create_transcript?space_id=${w.user.defaultSpaceId}`,
  body: { name: 'Gated', src_lang: 'en', dst_lang: 'es', media_id: w.mediaId, ...extra },
});

/**
 * One case per gate (key: METHOD path feature): the request, and what a plan that includes the feature gets.
 * `allowed` is the status the route answers once through the gate.
 */
const CASES: Record<string, { prepare: (w: World) => Prepared; allowed: number; /** a feature above Business: Business is refused too */ aboveBusiness?: boolean }> = {
  'POST /project/create_transcript srt_upload': { prepare: (w) => create(w, { src_srt_media_id: w.srtId }), allowed: 200 },
  'POST /project/create_transcript glossary': { prepare: (w) => create(w, { glossary_id: w.glossaryId }), allowed: 200 },
  'POST /project/create_transcript multilanguage': { prepare: (w) => create(w, { dst_langs: ['es', 'ca'] }), allowed: 200 },
  // A batch (server/domains/batches) is a multi-language create of many videos: a link's minutes are counted when downloaded.
  'POST /batch multilanguage': {
    prepare: (w) => ({ path: `/api/batch?space_id=${w.user.defaultSpaceId}`, body: { src_lang: 'en', dst_langs: ['es', 'ca'], items: [{ link: 'https://www.youtube.com/watch?v=dQw4w9WgXcQ' }] } }),
    allowed: 201,
  },
  // Store videos (server/domains/shop): through the gate, this harness has no embedded app, so no space is a shop.
  'POST /shop/import multilanguage': {
    prepare: (w) => ({
      path: `/api/shop/import?space_id=${w.user.defaultSpaceId}`,
      body: { src_lang: 'en', dst_langs: ['es', 'ca'], items: [{ product_id: 'gid://shopify/Product/1', media_id: 'gid://shopify/Video/1' }] },
    }),
    allowed: 404,
  },
  // A copy dubbed free of charge is an Enterprise feature (free_languages).
  'POST /project/:id/copy free_languages': {
    prepare: (w) => ({ path: `/api/project/${w.projectId}/copy`, body: { dst_lang: 'ca', free_dubbing: true } }), allowed: 200, aboveBusiness: true,
  },
  'PATCH /project/:id/glossary glossary': {
    prepare: (w) => ({ path: `/api/project/${w.projectId}/glossary?glossary_id=${w.glossaryId}` }), allowed: 200,
  },
  'POST /project/:id/media_download srt_download': {
    prepare: (w) => ({ path: `/api/project/${w.projectId}/media_download`, body: { media_type: 'srt' } }), allowed: 200,
  },
  'POST /project/:id/burn_subtitles subtitles': { prepare: (w) => ({ path: `/api/project/${w.projectId}/burn_subtitles` }), allowed: 200 },
  // The lip-sync calls: through the gate, this project has no video to check yet and no dub to lip-sync (409).
  'POST /project/:id/run_check_face_task lipsync': { prepare: (w) => ({ path: `/api/project/${w.projectId}/run_check_face_task` }), allowed: 409 },
  'POST /project/:id/run_lipsync_task lipsync': {
    prepare: (w) => ({ path: `/api/project/${w.projectId}/run_lipsync_task`, body: { is_free_lipsync: false, is_multiple_speakers: false } }),
    allowed: 409,
  },
  'POST /users/settings/api/credentials api': { prepare: () => ({ path: '/api/users/settings/api/credentials', body: { name: 'CI' } }), allowed: 201 },
  // No LLM engine in this harness: through the gate, the tool says it is not configured.
  // No LLM engine in this harness: through the gate, the segment rewrite says what to configure.
  'POST /project/:id/transcript/:segmentId/rewrite ai_rewrite': {
    prepare: (w) => ({ path: `/api/project/${w.projectId}/transcript/${w.segmentId}/rewrite`, body: { mode: 'shorten' } }), allowed: 503,
  },
  // Through the gate, Shorten answers that the seeded line ("Hola.") already fits its slot.
  'POST /project/:id/transcript/:segmentId/shorten ai_rewrite': {
    prepare: (w) => ({ path: `/api/project/${w.projectId}/transcript/${w.segmentId}/shorten` }), allowed: 409,
  },
  'POST /tools/summarize ai_rewrite': { prepare: (w) => ({ path: `/api/tools/summarize?space_id=${w.user.defaultSpaceId}`, body: { text: 'Hello there' } }), allowed: 503 },
  // The Dictionary (server/domains/glossaries).
  'GET /glossary glossary': { prepare: (w) => ({ path: `/api/glossary?space_id=${w.user.defaultSpaceId}` }), allowed: 200 },
  'POST /glossary glossary': {
    prepare: (w) => ({ path: `/api/glossary?space_id=${w.user.defaultSpaceId}`, body: { name: 'New', source_lang: 'en', target_lang: 'de' } }),
    allowed: 201,
  },
  'DELETE /glossary glossary': { prepare: (w) => ({ path: `/api/glossary?glossary_id=${w.spareGlossaryId}` }), allowed: 200 },
  'GET /glossary/:id glossary': { prepare: (w) => ({ path: `/api/glossary/${w.glossaryId}` }), allowed: 200 },
  'PATCH /glossary/:id glossary': { prepare: (w) => ({ path: `/api/glossary/${w.glossaryId}`, body: { name: 'Brand 2' } }), allowed: 200 },
  'POST /glossary/:id/import glossary': {
    prepare: (w) => ({ path: `/api/glossary/${w.glossaryId}/import`, raw: 'source,target\nHello,Hola\n' }), allowed: 200,
  },
  'GET /glossary/:id/export glossary': { prepare: (w) => ({ path: `/api/glossary/${w.glossaryId}/export` }), allowed: 200 },
  // The Voice Clone Library (server/domains/voices): through the gate, a subtitle file is no voice sample (422).
  'GET /voice_preset voice_presets': { prepare: (w) => ({ path: `/api/voice_preset?space_id=${w.user.defaultSpaceId}` }), allowed: 200 },
  'POST /voice_preset/create voice_presets': {
    prepare: (w) => ({ path: `/api/voice_preset/create?space_id=${w.user.defaultSpaceId}`, body: { label: 'Host', media_id: w.srtId } }), allowed: 422,
  },
};
const keyOf = (g: Gate) => `${g.method} ${g.path} ${g.feature}`;
const as = (u: TestUser | null) => typedClient(h, u?.token);
const createProject = (w: World, extra: { src_srt_media_id?: string } = {}) =>
  as(w.user).POST('/api/project/create_transcript', {
    params: { query: { space_id: w.user.defaultSpaceId } }, body: { name: 'Gated', src_lang: 'en', dst_lang: 'es', media_id: w.mediaId, ...extra },
  });
const mediaDownload = (u: TestUser, projectId: string, media_type: 'srt' | 'video') =>
  as(u).POST('/api/project/{id}/media_download', { params: { path: { id: projectId } }, body: { media_type } });

beforeAll(async () => {
  h = await createHarness();
  const dir = tempDir('gates-');
  srtFile = join(dir, 'source.srt');
  writeFileSync(srtFile, srtText([[0.5, 2.5, 'Hello there.'], [3, 5, 'How are you?']]));
  video = await makeSpeechVideo({ seconds: 3 });
  trial = await newUser(h, 'trial');
  business = await newUser(h, 'business');
  await grantPlan(h, business.id, 'business');
  staff = await newUser(h, 'staff');
  await h.deps.db.query('UPDATE users SET is_superuser = true WHERE id = $1', [staff.id]);
  // The projects, uploads and glossaries the requests need, made once (uploads are probed with ffprobe).
  for (const u of [trial, business, staff]) await world(u);
}, 240_000);
afterAll(async () => {
  await h?.close();
});

describe('the gated routes (server/app/gates.ts)', () => {
  it('has a case here for every gate, and every gate names a feature a plan can unlock', () => {
    for (const g of GATES) {
      expect(CASES[keyOf(g)], `no test case for the gate ${keyOf(g)}`).toBeDefined();
      expect(FEATURE_MIN_PLAN[g.feature]).not.toBe('trial');
    }
    expect(Object.keys(CASES).sort()).toEqual(GATES.map(keyOf).sort());
  });

  for (const g of GATES) {
    it(`${keyOf(g)}: a trial user is refused, a Business user and staff get through`, async () => {
      const c = CASES[keyOf(g)];
      for (const u of [trial, business, staff]) {
        const w = await world(u);
        const p = c.prepare(w);
        // Untyped: the cases walk every gate generically (method and path from GATES), raw CSV bodies included.
        const r = await api(h, g.method, p.path, {
          token: u.token, body: p.body, raw: p.raw, headers: p.raw !== undefined ? { 'content-type': 'text/csv' } : undefined,
        });
        if (u === trial || (u === business && c.aboveBusiness)) {
          expect(r.status, JSON.stringify(r.json)).toBe(403);
          expect(r.json).toEqual({
            detail: featureRefusalText(g.feature), code: 'feature_not_in_plan', feature: g.feature, required_plan: FEATURE_MIN_PLAN[g.feature],
          });
          expect(featureOfRefusal(r.json.detail)).toBe(g.feature);
        } else {
          expect(r.status, `${u.email}: ${JSON.stringify(r.json)}`).toBe(c.allowed);
        }
      }
    });
  }

  it('a refused request changes nothing: no project is created by a trial user asking for an SRT', async () => {
    const w = await world(trial);
    const before = await h.deps.db.one<{ n: number }>('SELECT count(*)::int AS n FROM projects WHERE space_id = $1', [trial.defaultSpaceId]);
    const r = await createProject(w, { src_srt_media_id: w.srtId });
    expect(r.response.status).toBe(403);
    const after = await h.deps.db.one<{ n: number }>('SELECT count(*)::int AS n FROM projects WHERE space_id = $1', [trial.defaultSpaceId]);
    expect(after.n).toBe(before.n);
  });

  it('the ungated part of a gated route stays open: a trial user creates a project without SRT or dictionary', async () => {
    const w = await world(trial);
    const r = await createProject(w);
    expect(r.response.status, JSON.stringify(r.error)).toBe(200);
    const dl = await mediaDownload(trial, w.projectId, 'video');
    expect(dl.response.status, JSON.stringify(dl.error)).toBe(200);
  });

  it("in a shared space the owner's plan applies: a trial user invited to a Business space may use its features", async () => {
    const guest = await newUser(h, 'guest');
    const wb = await world(business);
    await h.deps.db.query(`INSERT INTO space_members (space_id, user_id, role) VALUES ($1, $2, 'editor')`, [business.defaultSpaceId, guest.id]);
    const r = await mediaDownload(guest, wb.projectId, 'srt');
    expect(r.response.status, JSON.stringify(r.error)).toBe(200);
    // ...and the Business owner gets nothing from a trial user's space.
    const wt = await world(trial);
    await h.deps.db.query(`INSERT INTO space_members (space_id, user_id, role) VALUES ($1, $2, 'editor')`, [trial.defaultSpaceId, business.id]);
    const r2 = await mediaDownload(business, wt.projectId, 'srt');
    expect(r2.response.status).toBe(403);
  });

  it('a gate checks access before the plan: another user\'s project is 403 no access, never a plan answer', async () => {
    const wb = await world(business);
    const outsider = await newUser(h, 'outsider');
    const burn = (u: TestUser | null) => as(u).POST('/api/project/{id}/burn_subtitles', { params: { path: { id: wb.projectId } } });
    const r = await burn(outsider);
    expect(r.response.status).toBe(403);
    expect(r.error!.detail).toBe('You have no access to this resource');
    const anon = await burn(null);
    expect(anon.response.status).toBe(401);
  });

  it('an expired, paused or cancelled Business plan falls back to the free features', async () => {
    for (const o of [{ status: 'canceled' }, { status: 'paused' }, { status: 'active', periodEnd: new Date(Date.now() - 1000) }]) {
      const u = await newUser(h, 'lapsed');
      await grantPlan(h, u.id, 'business', o);
      const w = await world(u);
      const r = await mediaDownload(u, w.projectId, 'srt');
      expect(r.response.status, JSON.stringify(o)).toBe(403);
    }
  });

  it("settings' available_features come from the same function: locked for trial, enabled for Business", async () => {
    const features = async (u: TestUser) =>
      (await as(u).GET('/api/settings', { params: { query: { space_id: u.defaultSpaceId } } })).data!.scope_settings.available_features as Record<FeatureKey, Feature>;
    const t = await features(trial);
    const b = await features(business);
    for (const g of GATES) {
      expect(t[g.feature].enabled, g.feature).toBe(false);
      if (g.feature !== 'ai_rewrite' && FEATURE_MIN_PLAN[g.feature] !== 'enterprise') expect(b[g.feature].enabled, g.feature).toBe(true);
    }
    // Trial users do not see pages they cannot use; paying users see them locked (upgrade modal).
    expect(t.voice_presets.visible).toBe(false);
    expect(t.glossary.visible).toBe(false);
    expect(t.lipsync).toMatchObject({ enabled: false, visible: true });
    const creator = await newUser(h, 'creator');
    await grantPlan(h, creator.id, 'creator');
    const c = await features(creator);
    expect(c.glossary).toMatchObject({ enabled: false, visible: true });
    expect(c.voice_presets).toMatchObject({ enabled: false, visible: true });
  });
});
