// API credentials over HTTP: created once (the key shown only then), listed without the secret, revoked; a key
// acts as its user with the same space rules; every request with a key checks the plan, the revocation and the
// key's requests per minute; an API caller runs at most its plan's jobs at once.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { featureRefusalText } from '../../../contract/features';
import { makeSpeechVideo } from '../../fixtures/media';
import { createHarness, type Harness } from '../harness';
import { newUser, seedProject, uploadOk, type TestUser } from '../projects/projects-fixtures';
import { grantPlan } from '../spaces/spaces-fixtures';
import { eventually } from '../helpers';
import { issuesOf, typedClient } from '../typed-client';

let h: Harness;
let owner: TestUser;
let other: TestUser;
let video: string;

const CRED = '/api/users/settings/api/credentials';

/** The client of a token: a session's or an API key's. */
const as = (token: string) => typedClient(h, token);
const me = (token: string) => as(token).GET('/api/users/current');
const keys = (u: TestUser) => as(u.token).GET(CRED);
const revoke = (u: TestUser, id: string) => as(u.token).DELETE(`${CRED}/{id}`, { params: { path: { id } } });

async function newKey(u: TestUser, name = 'CI') {
  const r = await as(u.token).POST(CRED, { body: { name } });
  expect(r.response.status, JSON.stringify(r.error)).toBe(201);
  return r.data!;
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
    const list = await keys(owner);
    expect(list.response.status).toBe(200);
    expect(list.data!.enabled).toBe(true);
    const row = list.data!.data.find((k) => k.id === created.id);
    expect(row).toMatchObject({ name: 'Production', prefix: created.prefix, last_used_at: null });
    expect(JSON.stringify(list.data)).not.toContain(created.key);
    // Only a hash is stored.
    const stored = await h.deps.db.one<{ key_hash: string }>('SELECT key_hash FROM api_keys WHERE id = $1', [created.id]);
    expect(stored.key_hash).not.toContain(created.key.slice(4));
    // The account says it has generated credentials.
    expect((await me(owner.token)).data!.api_credentials_generated).toBe(true);
  });

  it('a key acts as its user: same account, same spaces; its last use is recorded', async () => {
    const k = await newKey(owner);
    const mine = await me(k.key);
    expect(mine.response.status, JSON.stringify(mine.error)).toBe(200);
    expect(mine.data!.id).toBe(owner.id);
    const spaces = await as(k.key).GET('/api/space/list');
    expect(spaces.response.status).toBe(200);
    const list = await keys(owner);
    expect(list.data!.data.find((x) => x.id === k.id)!.last_used_at).not.toBeNull();
  });

  it("a key for another space's project is refused like its user would be", async () => {
    const mediaId = await uploadOk(h, other, video);
    const theirs = await seedProject(h, other, { mediaId });
    const k = await newKey(owner);
    const r = await as(k.key).GET('/api/project/{id}', { params: { path: { id: theirs } } });
    expect(r.response.status).toBe(403);
    expect(r.error!.detail).toBe('You have no access to this resource');
    const list = await as(k.key).GET('/api/project/paginated', { params: { query: { space_id: other.defaultSpaceId } } });
    expect(list.response.status).toBe(403);
  });

  it('a revoked key is refused (401), and only its owner can revoke it', async () => {
    const k = await newKey(owner);
    expect((await me(k.key)).response.status).toBe(200);
    const stranger = await revoke(other, k.id);
    expect(stranger.response.status).toBe(404);
    const rev = await revoke(owner, k.id);
    expect(rev.response.status).toBe(200);
    expect(rev.data!.revoked_at).not.toBeNull();
    const r = await me(k.key);
    expect(r.response.status).toBe(401);
    expect(r.error!.detail).toBe('This API key was revoked');
  });

  it('a malformed or unknown key is refused (401)', async () => {
    for (const [token, detail] of [
      ['dsk_short', 'Malformed API key'],
      ['dsk_' + 'a'.repeat(31) + '!', 'Malformed API key'],
      ['dsk_' + 'b'.repeat(32), 'Invalid API key'],
    ]) {
      const r = await me(token!);
      expect(r.response.status, token).toBe(401);
      expect(r.error!.detail).toBe(detail);
    }
    const bad = await as(owner.token).POST(CRED, { body: { name: '  ' } });
    expect(bad.response.status).toBe(422);
    expect(issuesOf(bad.error)[0]).toMatchObject({ loc: ['body', 'name'], msg: 'Field is required' });
  });

  it("the key of a user whose plan no longer includes the API is refused (403) on every request", async () => {
    const u = await newUser(h, 'downgraded');
    await grantPlan(h, u.id, 'business');
    const k = await newKey(u);
    expect((await me(k.key)).response.status).toBe(200);
    await grantPlan(h, u.id, 'creator_pro');
    const r = await as(k.key).GET('/api/space/list');
    expect(r.response.status).toBe(403);
    expect(r.error).toMatchObject({ detail: featureRefusalText('api'), code: 'feature_not_in_plan', feature: 'api', required_plan: 'business' });
    // The user can still list and revoke their keys in the app; creating one is refused.
    const listed = await keys(u);
    expect(listed.response.status).toBe(200);
    expect(listed.data!.enabled).toBe(false);
    expect((await as(u.token).POST(CRED, { body: { name: 'again' } })).response.status).toBe(403);
  });

  it('the 61st request of a key in a minute is refused with 429 and Retry-After', async () => {
    const k = await newKey(owner);
    // The 61 requests fall in one minute window: start early in a minute.
    await eventually(async () => new Date().getSeconds(), (s) => s < 40, 30_000, 'the start of a minute');
    for (let i = 1; i <= 60; i++) {
      const r = await me(k.key);
      expect(r.response.status, `request ${i}`).toBe(200);
    }
    const r = await me(k.key);
    expect(r.response.status).toBe(429);
    const retry = Number(r.response.headers.get('retry-after'));
    expect(retry).toBeGreaterThanOrEqual(1);
    expect(retry).toBeLessThanOrEqual(60);
    expect(r.error!.detail).toContain('at most 60 a minute');
    // Another key of the same user has its own budget; the app's own session is not limited.
    const k2 = await newKey(owner);
    expect((await me(k2.key)).response.status).toBe(200);
    expect((await me(owner.token)).response.status).toBe(200);
  });

  it('an API caller runs at most its plan\'s jobs at once (API_CONCURRENT_JOBS=business=1): the next is 429', async () => {
    const u = await newUser(h, 'jobs');
    await grantPlan(h, u.id, 'business');
    const k = await newKey(u);
    const mediaId = await uploadOk(h, u, video);
    const create = () => as(k.key).POST('/api/project/create_transcript', {
      params: { query: { space_id: u.defaultSpaceId } }, body: { name: 'One', src_lang: 'en', dst_lang: 'es', media_id: mediaId },
    });
    // The harness pipeline does not process: the first project's ingest stays queued (a running job).
    const first = await create();
    expect(first.response.status, JSON.stringify(first.error)).toBe(200);
    const second = await create();
    expect(second.response.status).toBe(429);
    expect(second.error).toMatchObject({ code: 'concurrent_jobs', limit: 1, running: 1 });
    expect(second.response.headers.get('retry-after')).toBe('30');
    // Once that job is cancelled, the next one is accepted.
    expect((await as(k.key).POST('/api/project/{id}/cancel', { params: { path: { id: first.data!.id } } })).response.status).toBe(200);
    const third = await create();
    expect(third.response.status, JSON.stringify(third.error)).toBe(200);
  });
});
