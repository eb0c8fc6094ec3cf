// Product accounts: POST/GET/PATCH/DELETE /api/users..., first superuser, default Teamspace, invites.
import * as v from 'valibot';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_TEAMSPACE_COLOR, DEFAULT_TEAMSPACE_MINUTES } from '../../../contract/constants';
import { TEXT } from '../../../contract/errors';
import { User } from '../../../contract/schemas/user';
import { createHmac } from 'node:crypto';
import { createHarness, type Harness } from '../harness';
import { api, eventually, signUp, signUpAndCreate, TEST_PASSWORD } from '../helpers';
import { typedClient } from '../typed-client';

let h: Harness;
beforeAll(async () => {
  h = await createHarness();
});
afterAll(async () => {
  await h?.close();
});

describe('POST /api/users', () => {
  it('makes the first account of the install a superuser, later ones not (even when created at once)', async () => {
    const tokens = await Promise.all(['first@example.com', 'second@example.com', 'third@example.com'].map((e) => signUp(h, e)));
    const created = await Promise.all(
      tokens.map((t, i) =>
        typedClient(h, t.access_token).POST('/api/users', { body: { email: ['first', 'second', 'third'][i] + '@example.com' } }),
      ),
    );
    for (const c of created) expect(c.response.status).toBe(201);
    const supers = created.filter((c) => c.data!.is_superuser);
    expect(supers).toHaveLength(1);
    const count = await h.deps.db.one<{ n: number }>('SELECT count(*)::int AS n FROM users WHERE is_superuser');
    expect(count.n).toBe(1);
  });

  it('returns the full User and creates the default Teamspace with trial minutes', async () => {
    const t = await signUp(h, 'Lea@Example.com');
    const r = await typedClient(h, t.access_token).POST('/api/users', { body: { email: 'lea@example.com', referral_id: 'ref-42', token: 'x' } });
    expect(r.response.status).toBe(201);
    expect(v.is(User, r.data)).toBe(true);
    const identity = await h.deps.db.one<{ id: string }>(`SELECT id FROM identities WHERE subject = 'lea@example.com'`);
    const lea = r.data!;
    expect(lea).toMatchObject({
      email: 'lea@example.com',
      email_type: 'password',
      is_superuser: false,
      is_active: true,
      picture: null,
      cognitoId: identity.id,
      api_credentials_generated: false,
      customer_id: null,
      churnkey_hmac: null,
      onboarding: [],
      email_consent: false,
      feature_groups: [{ name: 'demo_project', option: { id: 'demo' } }],
      subscription: null,
      pending_welcome_spaces: [],
    });
    expect(Number.isNaN(Date.parse(lea.created_date))).toBe(false);
    const spaces = await h.deps.db.query<{ name: string; color: string; is_default: boolean; minutes_total: number; owner_id: string }>(
      `SELECT name, color, is_default, (SELECT COALESCE(SUM(minutes), 0)::float8 FROM minutes_ledger l WHERE l.space_id = s.id) AS minutes_total,
         owner_id FROM spaces s WHERE owner_id = $1`,
      [lea.id],
    );
    expect(spaces).toEqual([
      { name: "Lea's Teamspace", color: DEFAULT_TEAMSPACE_COLOR, is_default: true, minutes_total: DEFAULT_TEAMSPACE_MINUTES, owner_id: lea.id },
    ]);
    const ref = await h.deps.db.one<{ referral_id: string }>('SELECT referral_id FROM users WHERE id = $1', [lea.id]);
    expect(ref.referral_id).toBe('ref-42');
  });

  it('refuses a second create with 409 and leaves one account', async () => {
    const t = await signUp(h, 'max@example.com');
    const asMax = typedClient(h, t.access_token);
    expect((await asMax.POST('/api/users', { body: { email: 'max@example.com' } })).response.status).toBe(201);
    const again = await asMax.POST('/api/users', { body: { email: 'max@example.com' } });
    expect(again.response.status).toBe(409);
    expect(again.error).toEqual({ detail: 'User already exists' });
    const n = await h.deps.db.one<{ n: number }>(`SELECT count(*)::int AS n FROM users WHERE email = 'max@example.com'`);
    expect(n.n).toBe(1);
    const spaces = await h.deps.db.one<{ n: number }>(
      `SELECT count(*)::int AS n FROM spaces s JOIN users u ON u.id = s.owner_id WHERE u.email = 'max@example.com'`,
    );
    expect(spaces.n).toBe(1);
  });

  it('requires the identity e-mail (case-insensitive) and a token', async () => {
    const t = await signUp(h, 'ned@example.com');
    const asNed = typedClient(h, t.access_token);
    const other = await asNed.POST('/api/users', { body: { email: 'someone@example.com' } });
    expect(other.response.status).toBe(400);
    expect(other.error).toEqual({ detail: 'Email does not match the signed-in account' });
    const noToken = await typedClient(h).POST('/api/users', { body: { email: 'ned@example.com' } });
    expect(noToken.response.status).toBe(401);
    // Malformed on purpose: the e-mail is a number.
    const badBody = await api(h, 'POST', '/api/users', { token: t.access_token, body: { email: 12 } });
    expect(badBody.status).toBe(422);
    expect(badBody.json.detail[0].loc).toEqual(['body', 'email']);
    const ok = await asNed.POST('/api/users', { body: { email: 'NED@example.COM' } });
    expect(ok.response.status).toBe(201);
  });

  it('joins the spaces the e-mail was invited to and queues their welcome modal once', async () => {
    const owner = await signUpAndCreate(h, 'owner@example.com');
    const space = await h.deps.db.one<{ id: string }>('SELECT id FROM spaces WHERE owner_id = $1 AND is_default', [owner.user.id]);
    await h.deps.db.query('INSERT INTO space_invites (space_id, email, invited_by) VALUES ($1, $2, $3)', [space.id, 'invitee@example.com', owner.user.id]);
    const invitee = await signUpAndCreate(h, 'invitee@example.com');
    expect(invitee.user.pending_welcome_spaces).toEqual([space.id]);
    const member = await h.deps.db.maybeOne<{ role: string }>('SELECT role FROM space_members WHERE space_id = $1 AND user_id = $2', [space.id, invitee.user.id]);
    expect(member?.role).toBe('editor');
    const asInvitee = typedClient(h, invitee.token);
    const seen = await asInvitee.PATCH('/api/users/current', { body: { welcome_seen_space_id: space.id } });
    expect(seen.response.status).toBe(200);
    expect(seen.data!.pending_welcome_spaces).toEqual([]);
    const cur = await asInvitee.GET('/api/users/current');
    expect(cur.data!.pending_welcome_spaces).toEqual([]);
  });
});

describe('GET/PATCH /api/users/current', () => {
  it('404 before the account exists', async () => {
    const t = await signUp(h, 'pre@example.com');
    const r = await typedClient(h, t.access_token).GET('/api/users/current');
    expect(r.response.status).toBe(404);
    expect(r.error).toEqual({ detail: 'User not found' });
  });

  it('shows the subscription from billing and the churnkey HMAC for billing customers', async () => {
    const { token, user } = await signUpAndCreate(h, 'sub@example.com');
    const end = new Date(Date.now() + 10 * 86400_000);
    await h.deps.db.query(
      `INSERT INTO subscriptions (id, user_id, tier, status, interval, current_period_end) VALUES ('sub_x1', $1, 'creator_pro', 'active', 'year', $2)`,
      [user.id, end],
    );
    await h.deps.db.query(`UPDATE users SET customer_id = 'cus_123' WHERE id = $1`, [user.id]);
    // Written behind the API's back: it shows once the short account cache has let go of the old rows.
    const asSub = typedClient(h, token);
    const r = await eventually(
      () => asSub.GET('/api/users/current'),
      (x) => x.data?.subscription?.id === 'sub_x1' && x.data?.customer_id === 'cus_123',
      15_000,
      'the subscription past the account cache',
    );
    expect(r.response.status).toBe(200);
    expect(v.is(User, r.data)).toBe(true);
    expect(r.data!.subscription).toEqual({
      id: 'sub_x1',
      status: 'active',
      current_period_end: end.toISOString(),
      payments_collection_paused: false,
      cancel_at_period_end: false,
      plan: { id: 'price_creator_pro_year', product_id: 'prod_creator_pro', interval: 'year', recurring: true, tier: 'creator_pro', name: 'Creator Pro' },
      provider: 'local',
      payment_issue: null,
    });
    expect(r.data!.customer_id).toBe('cus_123');
    expect(r.data!.churnkey_hmac).toBe(createHmac('sha256', h.config.jwtSecret).update(user.id).digest('hex'));
  });

  it('updates onboarding and e-mail consent, and validates the body', async () => {
    const { token } = await signUpAndCreate(h, 'onb@example.com');
    const asOnb = typedClient(h, token);
    const r = await asOnb.PATCH('/api/users/current', { body: { onboarding: ['welcome', 'upload', 'welcome'], email_consent: true } });
    expect(r.response.status).toBe(200);
    expect(r.data!.onboarding).toEqual(['welcome', 'upload']);
    expect(r.data!.email_consent).toBe(true);
    const only = await asOnb.PATCH('/api/users/current', { body: { email_consent: false } });
    expect(only.data!.onboarding).toEqual(['welcome', 'upload']);
    expect(only.data!.email_consent).toBe(false);
    expect((await asOnb.GET('/api/users/current')).data!.email_consent).toBe(false);
    const empty = await asOnb.PATCH('/api/users/current', { body: {} });
    expect(empty.response.status).toBe(422);
    // Malformed on purpose: onboarding is not a list; a raw body that is not JSON.
    const wrong = await api(h, 'PATCH', '/api/users/current', { token, body: { onboarding: 'welcome' } });
    expect(wrong.status).toBe(422);
    expect(wrong.json.detail[0].loc).toEqual(['body', 'onboarding']);
    const malformed = await api(h, 'PATCH', '/api/users/current', { token, raw: '{oops', headers: { 'content-type': 'application/json' } });
    expect(malformed.status).toBe(422);
  });

  it('answers 400 Inactive user on every user endpoint once deactivated (within the cache time)', async () => {
    const { token, user } = await signUpAndCreate(h, 'gone@example.com');
    await h.deps.db.query('UPDATE users SET is_active = false WHERE id = $1', [user.id]);
    // Written behind the API's back: it takes effect once the short account cache has let go of the old row.
    const asGone = typedClient(h, token);
    await eventually(() => asGone.GET('/api/users/current'), (x) => x.response.status === 400, 15_000, 'Inactive user');
    const calls = {
      GET: () => asGone.GET('/api/users/current'),
      PATCH: () => asGone.PATCH('/api/users/current', { body: { email_consent: true } }),
      DELETE: () => asGone.DELETE('/api/users/current'),
    };
    for (const [m, call] of Object.entries(calls)) {
      const r = await call();
      expect(r.response.status, m).toBe(400);
      expect(r.error).toEqual({ detail: TEXT.inactiveUser });
    }
    const settings = await asGone.GET('/api/settings');
    expect(settings.response.status).toBe(400);
  });
});

describe('DELETE /api/users/current', () => {
  it('deletes the account, its owned spaces, its identity and its sessions', async () => {
    const { token, refreshToken, user } = await signUpAndCreate(h, 'bye@example.com');
    const other = await signUpAndCreate(h, 'stay@example.com');
    const asBye = typedClient(h, token);
    const anon = typedClient(h);
    const r = await asBye.DELETE('/api/users/current');
    expect(r.response.status).toBe(204);
    expect(await h.deps.db.maybeOne('SELECT id FROM users WHERE id = $1', [user.id])).toBeNull();
    expect((await h.deps.db.query('SELECT id FROM spaces WHERE owner_id = $1', [user.id])).length).toBe(0);
    expect(await h.deps.db.maybeOne('SELECT id FROM identities WHERE id = $1', [user.cognitoId])).toBeNull();
    expect((await asBye.GET('/api/users/current')).response.status).toBe(404);
    expect((await anon.POST('/api/auth/refresh', { body: { refresh_token: refreshToken } })).response.status).toBe(401);
    expect((await asBye.POST('/api/users', { body: { email: 'bye@example.com' } })).response.status).toBe(401);
    expect((await anon.POST('/api/auth/sign-in', { body: { email: 'bye@example.com', password: TEST_PASSWORD } })).response.status).toBe(401);
    // The other account is untouched; the e-mail can sign up again.
    expect((await typedClient(h, other.token).GET('/api/users/current')).response.status).toBe(200);
    expect((await signUpAndCreate(h, 'bye@example.com')).user.id).not.toBe(user.id);
  });
});
