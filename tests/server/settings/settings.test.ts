// GET /api/settings (app / user / space variants) and PUT /api/admin/settings.
import * as v from 'valibot';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TEXT } from '../../../contract/errors';
import { FEATURE_KEYS } from '../../../contract/features';
import { Settings, type Language } from '../../../contract/schemas/settings';
import { upsertSubscription } from '../../../server/domains/billing/repository';
import type { EngineRegistry } from '../../../server/engines/registry';
import { createHarness, type Harness } from '../harness';
import { api, signUp, signUpAndCreate } from '../helpers';
import { typedClient } from '../typed-client';

let h: Harness;
let admin: { token: string; user: { id: string } };
let realEngines: EngineRegistry;

function lang(id: number, value: string, isFree = false): Language {
  return {
    id, label: value.toUpperCase(), country_code: 'XX', country_label: 'X', is_dialect: false, is_free: isFree,
    is_glossary_available: false, is_voice_preset_available: false, mean_char_per_syllable: 2, speech_rate: 6,
    speech_tempo_feature: false, translation_label: value, value, voice_clone: false, voice_clone_beta: false,
    voice_clone_label: null, voice_preset_dialect: null, voice_preset_dialect_label: null,
  };
}
const fakeEngines = {
  async languageLists() {
    return {
      transcription: [lang(7, 'de'), lang(1, 'en'), lang(3, 'fr')],
      translation: [lang(9, 'it'), lang(2, 'es', true), lang(1, 'en'), lang(5, 'pt', true)],
    };
  },
} as unknown as EngineRegistry;

/** GET /api/settings as `token` (anonymous without), in `spaceId` when given. */
const settingsOf = (token?: string, spaceId?: string) => typedClient(h, token).GET('/api/settings', spaceId ? { params: { query: { space_id: spaceId } } } : {});

async function grant(userId: string, tier: string, periodEnd = new Date(Date.now() + 30 * 86400_000)) {
  // Through the billing repository, like every in-process writer (it invalidates the account cache).
  await upsertSubscription(h.deps.db, { id: `sub_${userId}`, userId, tier, status: 'active', interval: 'month', currentPeriodEnd: periodEnd });
}

beforeAll(async () => {
  h = await createHarness({ MAX_VIDEO_SIZE: '1000000', MAX_VIDEO_DURATION: '600', MAX_VIDEO_DOWNLOAD_DURATION: '300', WHITE_LABEL: '1' });
  admin = await signUpAndCreate(h, 'admin@example.com');
  expect(admin.user).toMatchObject({ is_superuser: true });
  realEngines = h.deps.engines;
});
afterAll(async () => {
  await h?.close();
});

describe('GET /api/settings', () => {
  it('app settings for anonymous callers: trial features, config limits, white label, contract shape', async () => {
    const r = await settingsOf();
    expect(r.response.status).toBe(200);
    expect(v.is(Settings, r.data)).toBe(true);
    const app = r.data!;
    expect(app.kind).toBe('app');
    expect(Object.keys(app.scope_settings.available_features).sort()).toEqual([...FEATURE_KEYS].sort());
    expect(app.scope_settings).toMatchObject({ max_video_size: 1000000, max_video_duration: 600, max_video_download_duration: 300 });
    expect(app.white_label).toBe(true);
    expect(app.surveys).toEqual([]);
    expect(app.features).toEqual({ maintenance: false, warning: null });
    const f = app.scope_settings.available_features;
    expect(f.audio_download.enabled).toBe(true);
    expect(f.lipsync.enabled).toBe(false);
    expect(f.glossary.enabled).toBe(false);
    expect(f.spaces).toEqual({ enabled: false, visible: true, metadata: { user_limit: 1, limit: 1 } });
  });

  it('languages come from the engine registry, sorted by id', async () => {
    const lists = await realEngines.languageLists();
    const r = await settingsOf();
    const ids = (l: Language[]) => l.map((x) => x.id);
    expect(ids(r.data!.languages.transcription)).toEqual(ids(lists.transcription).sort((a, b) => a - b));
    expect(ids(r.data!.languages.translation)).toEqual(
      ids(lists.translation.filter((l) => !l.is_free)).sort((a, b) => a - b),
    );
  });

  it('drops free languages from translation unless free_languages is enabled (enterprise)', async () => {
    h.deps.engines = fakeEngines;
    try {
      const anon = await settingsOf();
      expect(anon.data!.languages.transcription.map((l) => l.value)).toEqual(['en', 'fr', 'de']);
      expect(anon.data!.languages.translation.map((l) => l.value)).toEqual(['en', 'it']);
      const ent = await signUpAndCreate(h, 'ent@example.com');
      await grant(ent.user.id, 'enterprise');
      const r = await settingsOf(ent.token);
      expect(r.data!.kind).toBe('user');
      expect(r.data!.scope_settings.available_features.free_languages.enabled).toBe(true);
      expect(r.data!.languages.translation.map((l) => l.value)).toEqual(['en', 'es', 'pt', 'it']);
    } finally {
      h.deps.engines = realEngines;
    }
  });

  it("user settings follow the caller's own plan; an expired plan falls back to free features", async () => {
    const u = await signUpAndCreate(h, 'pro@example.com');
    const trial = await settingsOf(u.token);
    expect(trial.data!.kind).toBe('user');
    expect(trial.data!.scope_settings.available_features.lipsync.enabled).toBe(false);
    await grant(u.user.id, 'creator_pro');
    const pro = await settingsOf(u.token);
    expect(v.is(Settings, pro.data)).toBe(true);
    const f = pro.data!.scope_settings.available_features;
    expect(f.lipsync.enabled).toBe(true);
    expect(f.srt_upload.enabled).toBe(true);
    expect(f.glossary.enabled).toBe(false);
    expect(f.spaces).toEqual({ enabled: true, visible: true, metadata: { user_limit: 3, limit: 2 } });
    await grant(u.user.id, 'creator_pro', new Date(Date.now() - 1000));
    const expired = await settingsOf(u.token);
    expect(expired.data!.scope_settings.available_features.lipsync.enabled).toBe(false);
  });

  it("space settings use the space owner's plan for members; non-members get 403; superusers get user settings", async () => {
    const owner = await signUpAndCreate(h, 'biz@example.com');
    await grant(owner.user.id, 'business');
    const space = await h.deps.db.one<{ id: string }>('SELECT id FROM spaces WHERE owner_id = $1 AND is_default', [owner.user.id]);
    const editor = await signUpAndCreate(h, 'editor@example.com');
    await h.deps.db.query(`INSERT INTO space_members (space_id, user_id, role) VALUES ($1, $2, 'editor')`, [space.id, editor.user.id]);
    const r = await settingsOf(editor.token, space.id);
    expect(r.response.status).toBe(200);
    expect(r.data!.kind).toBe('space');
    expect(r.data!.scope_settings.available_features.glossary.enabled).toBe(true);
    expect(r.data!.scope_settings.available_features.spaces.metadata).toEqual({ user_limit: 5, limit: 2 });
    // The same editor without space_id: their own (trial) plan.
    const own = await settingsOf(editor.token);
    expect(own.data!.kind).toBe('user');
    expect(own.data!.scope_settings.available_features.glossary.enabled).toBe(false);

    const stranger = await signUpAndCreate(h, 'stranger@example.com');
    const denied = await settingsOf(stranger.token, space.id);
    expect(denied.response.status).toBe(403);
    expect(denied.error!.detail).toMatch(new RegExp(`^${TEXT.noAccess}`));
    const unknown = await settingsOf(stranger.token, '00000000-0000-4000-8000-000000000000');
    expect(unknown.response.status).toBe(403);

    const sup = await settingsOf(admin.token, space.id);
    expect(sup.data!.kind).toBe('user');
    // Anonymous with a space id: still the public app settings.
    expect((await settingsOf(undefined, space.id)).data!.kind).toBe('app');
  });

  it('a signed-in identity without an account gets app settings; a bad token is 401', async () => {
    const t = await signUp(h, 'noacct@example.com');
    const r = await settingsOf(t.access_token);
    expect(r.response.status).toBe(200);
    expect(r.data!.kind).toBe('app');
    const bad = await settingsOf('not.a.token');
    expect(bad.response.status).toBe(401);
  });

  it('maintenance from the MAINTENANCE config flag', async () => {
    h.config.maintenance = true;
    try {
      expect((await settingsOf()).data!.features.maintenance).toBe(true);
    } finally {
      h.config.maintenance = false;
    }
  });
});

describe('PUT /api/admin/settings', () => {
  it('lets a superuser set maintenance and the warning banner, which settings then show', async () => {
    const warning = { severity: 'warning' as const, maintenance_time: '2030-01-01T10:00:00.000Z', message: null };
    const asAdmin = typedClient(h, admin.token);
    const r = await asAdmin.PUT('/api/admin/settings', { body: { maintenance: true, warning } });
    expect(r.response.status).toBe(200);
    expect(r.data).toEqual({ maintenance: true, warning });
    const s = await settingsOf();
    expect(s.data!.features).toEqual({ maintenance: true, warning });
    const off = await asAdmin.PUT('/api/admin/settings', { body: { maintenance: false, warning: null } });
    expect(off.data).toEqual({ maintenance: false, warning: null });
    expect((await settingsOf()).data!.features).toEqual({ maintenance: false, warning: null });
  });

  it('validates the body and is for superusers only', async () => {
    const asAdmin = typedClient(h, admin.token);
    // Malformed on purpose: a severity that does not exist.
    const bad = await api(h, 'PUT', '/api/admin/settings', { token: admin.token, body: { warning: { severity: 'apocalyptic', maintenance_time: null, message: 'x' } } });
    expect(bad.status).toBe(422);
    expect(bad.json.detail[0].loc).toEqual(['body', 'warning', 'severity']);
    expect((await asAdmin.PUT('/api/admin/settings', { body: {} })).response.status).toBe(422);
    // Malformed on purpose: maintenance is not a boolean.
    expect((await api(h, 'PUT', '/api/admin/settings', { token: admin.token, body: { maintenance: 'yes' } })).status).toBe(422);
    const user = await signUpAndCreate(h, 'plain@example.com');
    const forbidden = await typedClient(h, user.token).PUT('/api/admin/settings', { body: { maintenance: true } });
    expect(forbidden.response.status).toBe(403);
    expect((await typedClient(h).PUT('/api/admin/settings', { body: { maintenance: true } })).response.status).toBe(401);
    expect((await settingsOf()).data!.features.maintenance).toBe(false);
  });
});
