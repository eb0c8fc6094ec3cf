// API credentials over HTTP: created once (the key shown only then), listed without the secret, revoked; a key
// acts as its user with the same space rules; every request with a key checks the plan, the revocation and the
// key's requests per minute; an API caller runs at most its plan's jobs at once.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { featureRefusalText } from '../../../contract/features';
import { makeSpeechVideo } from '../../fixtures/media';
import { createHarness, type Harness } from '../harness';
import { api, newUser, seedProject, uploadOk, type TestUser } from '../projects/projects-fixtures';
import { grantPlan } from '../spaces/spaces-fixtures';
import { eventually } from '../helpers';

let h: Harness;
let owner: TestUser;
let other: TestUser;
let video: string;

const CRED = '/api/users/settings/api/credentials';

async function newKey(u: TestUser, name = 'CI'): Promise<{ id: string; key: string; prefix: string }> {
  const r = await api(h, 'POST', CRED, { token: u.token, body: { name } });
  expect(r.status, JSON.stringify(r.json)).toBe(201);
  return r.json;
}

beforeAll(async () => {
  h = await createHarness({ API_KEY_RATE_PER_MINUTE: '60', API_CONCURRENT_JOBS: 'business=1' });
  owner = await newUser(h, 'apiowner');
  other = await newUser(h, 'apiother');
  await grantPlan(h, owner.id, 'business');
  await grantPlan(h, other.id, 'business');
  video = await makeSpeechVideo({ seconds: 3 });
}, 120_000);
afterAll(async () => {
  await h?.close();
});

describe('API credentials', () => {
  it('are created with a name, shown once, listed with their prefix and times but never the secret', async () => {
    const created = await newKey(owner, 'Production');
    expect(created.key).toMatch(/^dsk_[A-Za-z0-9_-]{32}$/);
    expect(created.key.startsWith(created.prefix)).toBe(true);
    expect(created).toMatchObject({ name: 'Production', last_used_at: null, revoked_at: null });
    const list = await api(h, 'GET', CRED, { token: owner.token });
    expect(list.status).toBe(200);
    expect(list.json.enabled).toBe(true);
    const row = list.json.data.find((k: { id: string }) => k.id === created.id);
    expect(row).toMatchObject({ name: 'Production', prefix: created.prefix, last_used_at: null });
    expect(JSON.stringify(list.json)).not.toContain(created.key);
    // Only a hash is stored.
    const stored = await h.deps.db.one<{ key_hash: string }>('SELECT key_hash FROM api_keys WHERE id = $1', [created.id]);
    expect(stored.key_hash).not.toContain(created.key.slice(4));
    // The account says it has generated credentials.
    expect((await api(h, 'GET', '/api/users/current', { token: owner.token })).json.api_credentials_generated).toBe(true);
  });

  it('a key acts as its user: same account, same spaces; its last use is recorded', async () => {
    const k = await newKey(owner);
    const me = await api(h, 'GET', '/api/users/current', { token: k.key });
    expect(me.status, JSON.stringify(me.json)).toBe(200);
    expect(me.json.id).toBe(owner.id);
    const spaces = await api(h, 'GET', '/api/space/list', { token: k.key });
    expect(spaces.status).toBe(200);
    const list = await api(h, 'GET', CRED, { token: owner.token });
    expect(list.json.data.find((x: { id: string }) => x.id === k.id).last_used_at).not.toBeNull();
  });

  it("a key for another space's project is refused like its user would be", async () => {
    const mediaId = await uploadOk(h, other, video);
    const theirs = await seedProject(h, other, { mediaId });
    const k = await newKey(owner);
    const r = await api(h, 'GET', `/api/project/${theirs}`, { token: k.key });
    expect(r.status).toBe(403);
    expect(r.json.detail).toBe('You have no access to this resource');
    const list = await api(h, 'GET', `/api/project/paginated?space_id=${other.defaultSpaceId}`, { token: k.key });
    expect(list.status).toBe(403);
  });

  it('a revoked key is refused (401), and only its owner can revoke it', async () => {
    const k = await newKey(owner);
    expect((await api(h, 'GET', '/api/users/current', { token: k.key })).status).toBe(200);
    const stranger = await api(h, 'DELETE', `${CRED}/${k.id}`, { token: other.token });
    expect(stranger.status).toBe(404);
    const rev = await api(h, 'DELETE', `${CRED}/${k.id}`, { token: owner.token });
    expect(rev.status).toBe(200);
    expect(rev.json.revoked_at).not.toBeNull();
    const r = await api(h, 'GET', '/api/users/current', { token: k.key });
    expect(r.status).toBe(401);
    expect(r.json.detail).toBe('This API key was revoked');
  });

  it('a malformed or unknown key is refused (401)', async () => {
    for (const [token, detail] of [
      ['dsk_short', 'Malformed API key'],
      ['dsk_' + 'a'.repeat(31) + '!', 'Malformed API key'],
      ['dsk_' + 'b'.repeat(32), 'Invalid API key'],
    ]) {
      const r = await api(h, 'GET', '/api/users/current', { token });
      expect(r.status, token).toBe(401);
      expect(r.json.detail).toBe(detail);
    }
    const bad = await api(h, 'POST', CRED, { token: owner.token, body: { name: '  ' } });
    expect(bad.status).toBe(422);
    expect(bad.json.detail[0]).toMatchObject({ loc: ['body', 'name'], msg: 'Field is required' });
  });

  it("the key of a user whose plan no longer includes the API is refused (403) on every request", async () => {
    const u = await newUser(h, 'downgraded');
    await grantPlan(h, u.id, 'business');
    const k = await newKey(u);
    expect((await api(h, 'GET', '/api/users/current', { token: k.key })).status).toBe(200);
    await grantPlan(h, u.id, 'creator_pro');
    const r = await api(h, 'GET', '/api/space/list', { token: k.key });
    expect(r.status).toBe(403);
    expect(r.json).toMatchObject({ detail: featureRefusalText('api'), code: 'feature_not_in_plan', feature: 'api', required_plan: 'business' });
    // The user can still list and revoke their keys in the app; creating one is refused.
    const listed = await api(h, 'GET', CRED, { token: u.token });
    expect(listed.status).toBe(200);
    expect(listed.json.enabled).toBe(false);
    expect((await api(h, 'POST', CRED, { token: u.token, body: { name: 'again' } })).status).toBe(403);
  });

  it('the 61st request of a key in a minute is refused with 429 and Retry-After', async () => {
    const k = await newKey(owner);
    // The 61 requests fall in one minute window: start early in a minute.
    await eventually(async () => new Date().getSeconds(), (s) => s < 40, 30_000, 'the start of a minute');
    for (let i = 1; i <= 60; i++) {
      const r = await api(h, 'GET', '/api/users/current', { token: k.key });
      expect(r.status, `request ${i}`).toBe(200);
    }
    const r = await api(h, 'GET', '/api/users/current', { token: k.key });
    expect(r.status).toBe(429);
    const retry = Number(r.headers.get('retry-after'));
    expect(retry).toBeGreaterThanOrEqual(1);
    expect(retry).toBeLessThanOrEqual(60);
    expect(r.json.detail).toContain('at most 60 a minute');
    // Another key of the same user has its own budget; the app's own session is not limited.
    const k2 = await newKey(owner);
    expect((await api(h, 'GET', '/api/users/current', { token: k2.key })).status).toBe(200);
    expect((await api(h, 'GET', '/api/users/current', { token: owner.token })).status).toBe(200);
  });

  it('an API caller runs at most its plan\'s jobs at once (API_CONCURRENT_JOBS=business=1): the next is 429', async () => {
    const u = await newUser(h, 'jobs');
    await grantPlan(h, u.id, 'business');
    const k = await newKey(u);
    const mediaId = await uploadOk(h, u, video);
    const body = { name: 'One', src_lang: 'en', dst_lang: 'es', media_id: mediaId };
    // The harness pipeline does not process: the first project's ingest stays queued (a running job).
    const first = await api(h, 'POST', `/api/project/create_transcript?space_id=${u.defaultSpaceId}`, { token: k.key, body });
    expect(first.status, JSON.stringify(first.json)).toBe(200);
    const second = await api(h, 'POST', `/api/project/create_transcript?space_id=${u.defaultSpaceId}`, { token: k.key, body });
    expect(second.status).toBe(429);
    expect(second.json).toMatchObject({ code: 'concurrent_jobs', limit: 1, running: 1 });
    expect(second.headers.get('retry-after')).toBe('30');
    // Once that job is cancelled, the next one is accepted.
    expect((await api(h, 'POST', `/api/project/${first.json.id}/cancel`, { token: k.key })).status).toBe(200);
    const third = await api(h, 'POST', `/api/project/create_transcript?space_id=${u.defaultSpaceId}`, { token: k.key, body });
    expect(third.status, JSON.stringify(third.json)).toBe(200);
  });
});
