// The server side of a customer's first hour (issue 34), over HTTP with the users who must be refused:
// invite links when no e-mail goes out (single use, expiring, owner only), the first space named after its user,
// new accounts in the demo group (and the operator's switch), a cover frame taken at upload and shown on the
// project at once, the minute history from the ledger (owner only, paged), the support address only when the
// operator set one, and an empty tus upload named as such.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { defaultTeamspaceName } from '../../../contract/constants';
import { loadConfig } from '../../../server/config';
import { INVITE_LINK_TTL_MS, USAGE_PAGE_SIZE } from '../../../server/domains/spaces/service';
import { createAccount } from '../../../server/domains/users/service';
import * as ledger from '../../../server/domains/billing/ledger';
import { makeSpeechVideo, makeTextFileAsMp4 } from '../../fixtures/media';
import { createHarness, type Harness } from '../harness';
import { signUp } from '../helpers';
import { createTyped, newUser, uploadFile, type TestUser } from './projects-fixtures';
import { grantPlan } from '../spaces/spaces-fixtures';
import { typedClient } from '../typed-client';

let h: Harness;
let owner: TestUser;
let stranger: TestUser;

beforeAll(async () => {
  // No SMTP_URL, no SUPPORT_EMAIL: the install of a self-hoster who configured neither.
  h = await createHarness({ SUPPORT_EMAIL: '', HELP_CENTER_URL: '' });
  owner = await newUser(h, 'owner');
  stranger = await newUser(h, 'stranger');
  await grantPlan(h, owner.id, 'creator_pro');
}, 120_000);
afterAll(async () => {
  await h?.close();
});

const as = (u: TestUser | null) => typedClient(h, u?.token);
const space = (id: string) => ({ params: { path: { id } } });
/** The owner invites `email` to their space: the pending invite. */
async function invite(email: string) {
  const r = await as(owner).POST('/api/space/{id}/invite', { ...space(owner.defaultSpaceId), body: { emails: [email] } });
  expect(r.response.status, JSON.stringify(r.error)).toBe(200);
  return r.data!.invites.find((i) => i.email === email);
}
/** An invite link for `inviteId`, asked for by `u`. */
const inviteLink = (u: TestUser, inviteId: string) => as(u).POST('/api/space/{id}/invite_link', { ...space(owner.defaultSpaceId), body: { invite_id: inviteId } });
const join = (u: TestUser | null, token: string) => as(u).POST('/api/space/join', { body: { token } });
const spaceOf = (u: TestUser) => as(u).GET('/api/space/{id}', space(owner.defaultSpaceId));

describe('an empty upload', () => {
  it('an empty file is refused by the tus endpoint with its name, not a 404 later', async () => {
    const r = await h.request('POST', `/api/library/tus?space_id=${owner.defaultSpaceId}`, {
      token: owner.token,
      headers: { 'Tus-Resumable': '1.0.0', 'Upload-Length': '0', 'Upload-Metadata': `filename ${Buffer.from('empty.mp4').toString('base64')}` },
    });
    expect(r.status).toBe(400);
    expect(await r.text()).toMatch(/This file is empty/);
  });
});

describe('invite links without e-mail', () => {
  it('settings say that no e-mail goes out and show no support address the operator did not set', async () => {
    const r = await as(owner).GET('/api/settings');
    expect(r.response.status).toBe(200);
    expect(r.data!.mail_enabled).toBe(false);
    expect(r.data!.support).toEqual({ email: null, help_center_url: null });
  });

  it('the owner makes a link for a pending invite; anyone signed in joins once with it, a second use is 410', async () => {
    const pending = await invite('new-person@example.com');
    expect(pending).toBeTruthy();
    // Only the owner may make one.
    expect((await inviteLink(stranger, pending!.id)).response.status).toBe(403);
    const made = await inviteLink(owner, pending!.id);
    expect(made.response.status, JSON.stringify(made.error)).toBe(201);
    const link = made.data!;
    expect(link.token).toMatch(/^[A-Za-z0-9_-]{32}$/);
    expect(Date.parse(link.expires_at) - Date.now()).toBeGreaterThan(INVITE_LINK_TTL_MS - 60_000);
    // The token itself is not stored.
    const stored = await h.deps.db.query<{ token_hash: string }>('SELECT token_hash FROM space_invite_links');
    expect(stored.map((r) => r.token_hash)).not.toContain(link.token);

    const joiner = await newUser(h, 'joiner');
    const joined = await join(joiner, link.token);
    expect({ status: joined.response.status, json: joined.data }).toEqual({ status: 200, json: { space_id: owner.defaultSpaceId } });
    const seen = await spaceOf(joiner);
    expect(seen.response.status).toBe(200);
    expect(seen.data!.members.map((m) => [m.email, m.role])).toContainEqual([joiner.email, 'editor']);
    // The e-mail invite it stood for is gone.
    expect(seen.data!.invites.map((i) => i.email)).not.toContain('new-person@example.com');
    const again = await join(stranger, link.token);
    expect(again.response.status).toBe(410);
    expect(again.error!.detail).toMatch(/already used/);
    expect((await spaceOf(stranger)).response.status).toBe(403);
  });

  it('an expired link is 410, an unknown one 404, and nobody joins', async () => {
    const pending = await invite('late@example.com');
    const made = await inviteLink(owner, pending!.id);
    expect(made.response.status, JSON.stringify(made.error)).toBe(201);
    const link = made.data!;
    await h.deps.db.query(`UPDATE space_invite_links SET expires_at = now() - interval '1 minute'`);
    const late = await join(stranger, link.token);
    expect(late.response.status).toBe(410);
    expect(late.error!.detail).toMatch(/expired/);
    expect((await join(stranger, 'no-such-token')).response.status).toBe(404);
    expect((await join(null, link.token)).response.status).toBe(401);
    expect((await spaceOf(stranger)).response.status).toBe(403);
  });
});

describe('a new account', () => {
  it('gets a first space named after it and starts in the demo group', async () => {
    const t = await signUp(h, 'Mia.Rossi+test@example.com');
    const r = await typedClient(h, t.access_token).POST('/api/users', { body: { email: 'mia.rossi+test@example.com' } });
    expect(r.response.status).toBe(201);
    expect(r.data!.feature_groups).toEqual([{ name: 'demo_project', option: { id: 'demo' } }]);
    const spaces = await typedClient(h, t.access_token).GET('/api/space/list');
    expect(spaces.data!.map((s) => s.name)).toEqual(["Mia.rossi's Teamspace"]);
    expect(defaultTeamspaceName('')).toBe('My Teamspace');
  });

  it('is not put in the demo group when the operator turns it off (DEMO_FOR_NEW_USERS=0)', async () => {
    expect(loadConfig({ JWT_SECRET: 'x'.repeat(40), DEMO_FOR_NEW_USERS: '0' }).demoForNewUsers).toBe(false);
    expect(loadConfig({ JWT_SECRET: 'x'.repeat(40) }).demoForNewUsers).toBe(true);
    const t = await signUp(h, 'plain@example.com');
    const identity = await h.deps.db.one<{ id: string }>(`SELECT id FROM identities WHERE subject = 'plain@example.com'`);
    const user = await createAccount(h.deps.db, identity.id, { email: 'plain@example.com' }, { demoGroup: false });
    expect(user.feature_groups).toEqual([]);
    expect((await typedClient(h, t.access_token).GET('/api/users/current')).data!.feature_groups).toEqual([]);
  });
});

describe('uploads', () => {
  it('takes a cover frame at upload: the project shows a picture before any Generate', async () => {
    const video = await makeSpeechVideo({ seconds: 3 });
    const up = await uploadFile(h, owner, video, { name: 'talk.mp4', contentType: 'video/mp4' });
    expect(up.json.status).toBe('uploaded');
    const created = await createTyped(h, owner, { name: 'Cover', src_lang: 'en', dst_lang: 'es', media_id: up.json.id });
    expect(created.response.status).toBe(200);
    const cover = created.data!.cover;
    expect(cover).toMatch(/cover\.jpg/);
    const img = await h.request('GET', new URL(cover!, 'http://x').pathname + new URL(cover!, 'http://x').search, {});
    expect(img.status).toBe(200);
    const bytes = Buffer.from(await img.arrayBuffer());
    expect(bytes.subarray(0, 3)).toEqual(Buffer.from([0xff, 0xd8, 0xff]));
    // An audio-free text file gets no cover and is named as not a media file.
    const text = await uploadFile(h, owner, makeTextFileAsMp4());
    expect(text.json.status).toBe('failed');
  });

});

describe('minute history', () => {
  it('pages the ledger for the owner, newest first, with project names; members and strangers are refused', async () => {
    for (let i = 0; i < USAGE_PAGE_SIZE + 3; i++) {
      await ledger.post(h.deps.db, { spaceId: owner.defaultSpaceId, kind: 'grant', minutes: 1, ref: `history-${i}`, note: `row ${i}` });
    }
    const usage = (u: TestUser, page?: string) =>
      as(u).GET('/api/space/{id}/usage', { params: { path: { id: owner.defaultSpaceId }, ...(page !== undefined ? { query: { page } } : {}) } });
    const firstPage = await usage(owner);
    expect(firstPage.response.status).toBe(200);
    const first = firstPage.data!;
    expect(first.page).toBe(1);
    expect(first.entries).toHaveLength(USAGE_PAGE_SIZE);
    expect(first.total).toBeGreaterThanOrEqual(USAGE_PAGE_SIZE + 3);
    expect(first.pages).toBe(Math.ceil(first.total / USAGE_PAGE_SIZE));
    const times = first.entries.map((e) => Date.parse(e.created_at));
    expect([...times].sort((a, b) => b - a)).toEqual(times);
    const last = await usage(owner, String(first.pages));
    expect(last.response.status).toBe(200);
    expect(last.data!.entries.length).toBe(first.total - (first.pages - 1) * USAGE_PAGE_SIZE);
    expect((await usage(owner, '0')).response.status).toBe(422);
    expect((await usage(stranger)).response.status).toBe(403);
  });
});
