// /api/admin: user PATCH (plan grants, activation, superuser), search and CSV export.
import * as v from 'valibot';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_LIST_LIMIT, DEFAULT_TEAMSPACE_MINUTES } from '../../../contract/constants';
import { TEXT } from '../../../contract/errors';
import { PLAN_MONTHLY_MINUTES } from '../../../contract/features';
import { AdminUser } from '../../../contract/schemas/user';
import type { components, operations } from '../../../src/lib/api/schema';
import { createHarness, type Harness } from '../harness';
import { api, signUpAndCreate } from '../helpers';
import { issuesOf, typedClient } from '../typed-client';

let h: Harness;
let admin: Awaited<ReturnType<typeof signUpAndCreate>>;
let asAdmin: ReturnType<typeof typedClient>;
beforeAll(async () => {
  h = await createHarness();
  admin = await signUpAndCreate(h, 'root@example.com');
  asAdmin = typedClient(h, admin.token);
});
afterAll(async () => {
  await h?.close();
});

/** PATCH /api/admin/users/{id} as `by` (the superuser unless told). */
const patchUser = (id: string, body: components['schemas']['AdminUpdateUserRequest'], by = asAdmin) =>
  by.PATCH('/api/admin/users/{id}', { params: { path: { id } }, body });
/** GET /api/admin/users with a query, as `by` (the superuser unless told). */
const listUsers = (query: NonNullable<operations['get_admin_users']['parameters']['query']> = {}, by = asAdmin) =>
  by.GET('/api/admin/users', { params: { query } });

const minutesOf = async (userId: string) =>
  (await h.deps.db.one<{ m: number }>(
    `SELECT COALESCE(SUM(l.minutes) FILTER (WHERE l.kind IN ('grant', 'purchase', 'refill')), 0)::float8 AS m
     FROM spaces s LEFT JOIN minutes_ledger l ON l.space_id = s.id AND l.bucket = 'minutes' WHERE s.owner_id = $1 AND s.is_default`,
    [userId],
  )).m;

describe('PATCH /api/admin/users/{id}', () => {
  it('grants a plan: active monthly subscription and the plan minutes on the default space', async () => {
    const u = await signUpAndCreate(h, 'grant@example.com');
    const before = Date.now();
    const r = await patchUser(u.user.id, { plan: 'creator' });
    expect(r.response.status).toBe(200);
    expect(v.is(AdminUser, r.data)).toBe(true);
    expect(r.data!.plan).toBe('creator');
    expect(r.data!.plan_name).toBe('Creator');
    expect(r.data!.subscription!.id).toMatch(/^sub_[0-9a-f-]{36}$/);
    expect(r.data!.subscription!.status).toBe('active');
    const end = Date.parse(r.data!.subscription!.current_period_end!);
    expect(end - before).toBeGreaterThan(27 * 86400_000);
    expect(end - before).toBeLessThan(32 * 86400_000);
    expect(r.data!.minutes.total).toBe(DEFAULT_TEAMSPACE_MINUTES + PLAN_MONTHLY_MINUTES.creator);
    expect(await minutesOf(u.user.id)).toBe(DEFAULT_TEAMSPACE_MINUTES + PLAN_MONTHLY_MINUTES.creator);
    // The user sees it.
    const me = await typedClient(h, u.token).GET('/api/users/current');
    expect(me.data!.subscription!.plan.tier).toBe('creator');
    // Upgrading in the same month changes the plan and credits the difference up to that plan's monthly minutes.
    const up = await patchUser(u.user.id, { plan: 'business' });
    expect(up.data!.plan).toBe('business');
    expect(up.data!.minutes.total).toBe(DEFAULT_TEAMSPACE_MINUTES + PLAN_MONTHLY_MINUTES.business);
    const subs = await h.deps.db.query('SELECT id FROM subscriptions WHERE user_id = $1', [u.user.id]);
    expect(subs).toHaveLength(1);
    // 'free' is a free_sub subscription; 'trial' removes it.
    const free = await patchUser(u.user.id, { plan: 'free' });
    expect(free.data!.subscription!.id).toMatch(/^free_sub_/);
    expect(free.data!.plan_name).toBe('Free Plan');
    const trial = await patchUser(u.user.id, { plan: 'trial' });
    expect(trial.data!.subscription).toBeNull();
    expect(trial.data!.plan).toBe('trial');
  });

  it('deactivates a user: every user endpoint answers 400 Inactive user; reactivation restores access', async () => {
    const u = await signUpAndCreate(h, 'deact@example.com');
    const asU = typedClient(h, u.token);
    expect((await asU.GET('/api/users/current')).response.status).toBe(200);
    const r = await patchUser(u.user.id, { is_active: false });
    expect(r.response.status).toBe(200);
    expect(r.data!.is_active).toBe(false);
    const me = await asU.GET('/api/users/current');
    expect(me.response.status).toBe(400);
    expect(me.error).toEqual({ detail: TEXT.inactiveUser });
    expect((await asU.GET('/api/space/list')).response.status).toBe(400);
    await patchUser(u.user.id, { is_active: true });
    expect((await asU.GET('/api/users/current')).response.status).toBe(200);
  });

  it('makes and unmakes superusers; a superuser cannot demote or deactivate themself', async () => {
    const u = await signUpAndCreate(h, 'helper@example.com');
    const asU = typedClient(h, u.token);
    expect((await listUsers({}, asU)).response.status).toBe(403);
    await patchUser(u.user.id, { is_superuser: true });
    expect((await listUsers({}, asU)).response.status).toBe(200);
    await patchUser(u.user.id, { is_superuser: false });
    expect((await listUsers({}, asU)).response.status).toBe(403);
    const self = await patchUser(admin.user.id, { is_superuser: false });
    expect(self.response.status).toBe(400);
    const selfOff = await patchUser(admin.user.id, { is_active: false });
    expect(selfOff.response.status).toBe(400);
  });

  it('validates: unknown user 404, bad plan 422, malformed JSON 422, non-superuser 403, no token 401', async () => {
    const u = await signUpAndCreate(h, 'val@example.com');
    expect((await patchUser('00000000-0000-4000-8000-000000000000', { plan: 'creator' })).response.status).toBe(404);
    expect((await patchUser('not-a-uuid', { plan: 'creator' })).response.status).toBe(404);
    // Malformed on purpose: a plan that does not exist, a wrong type, a raw body that is not JSON.
    const plan = await api(h, 'PATCH', `/api/admin/users/${u.user.id}`, { token: admin.token, body: { plan: 'platinum' } });
    expect(plan.status).toBe(422);
    expect(plan.json.detail[0].loc).toEqual(['body', 'plan']);
    const types = await api(h, 'PATCH', `/api/admin/users/${u.user.id}`, { token: admin.token, body: { is_active: 'no' } });
    expect(types.status).toBe(422);
    const bad = await api(h, 'PATCH', `/api/admin/users/${u.user.id}`, { token: admin.token, raw: '{', headers: { 'content-type': 'application/json' } });
    expect(bad.status).toBe(422);
    const forbidden = await patchUser(u.user.id, { plan: 'enterprise' }, typedClient(h, u.token));
    expect(forbidden.response.status).toBe(403);
    expect((await patchUser(u.user.id, { plan: 'enterprise' }, typedClient(h))).response.status).toBe(401);
    expect(await h.deps.db.query('SELECT id FROM subscriptions WHERE user_id = $1', [u.user.id])).toEqual([]);
  });
});

describe('GET /api/admin/users and /csv', () => {
  it('searches by e-mail, date range and subscription type, newest first, default limit 20', async () => {
    const made: string[] = [];
    for (let i = 0; i < 22; i++) made.push((await signUpAndCreate(h, `list${String(i).padStart(2, '0')}@corp.example`)).user.id);
    const all = await listUsers();
    expect(all.response.status).toBe(200);
    expect(all.data).toHaveLength(ADMIN_LIST_LIMIT);
    for (const row of all.data!) expect(v.is(AdminUser, row)).toBe(true);
    const dates = all.data!.map((u) => Date.parse(u.created_date));
    expect([...dates].sort((a, b) => b - a)).toEqual(dates);

    const byEmail = await listUsers({ email: 'LIST07@corp' });
    expect(byEmail.data!.map((u) => u.email)).toEqual(['list07@corp.example']);
    // LIKE wildcards in the query are literal.
    expect((await listUsers({ email: 'list%' })).data).toEqual([]);

    const limited = await listUsers({ email: 'corp.example', limit: '5' });
    expect(limited.data).toHaveLength(5);

    const created = await h.deps.db.one<{ c: Date }>('SELECT created_date AS c FROM users WHERE id = $1', [made[10]]);
    // A cut 1 ms after made[10] (timestamps carry microseconds; ISO strings milliseconds).
    const cut = new Date(new Date(created.c).getTime() + 1).toISOString();
    const after = await listUsers({ email: 'corp.example', date_gt: cut, limit: '100' });
    const before = await listUsers({ email: 'corp.example', date_lt: cut, limit: '100' });
    expect(new Set(after.data!.map((u) => u.id))).toEqual(new Set(made.slice(11)));
    expect(new Set(before.data!.map((u) => u.id))).toEqual(new Set(made.slice(0, 11)));

    await patchUser(made[3], { plan: 'starter' });
    const starters = await listUsers({ subscription_type: 'starter' });
    expect(starters.data!.map((u) => u.id)).toEqual([made[3]]);
    const trials = await listUsers({ subscription_type: 'trial', email: 'corp.example', limit: '100' });
    expect(trials.data).toHaveLength(21);

    for (const q of [{ limit: '0' }, { limit: 'abc' }, { date_gt: 'yesterday' }, { subscription_type: 'gold' }]) {
      const r = await listUsers(q);
      expect(r.response.status, JSON.stringify(q)).toBe(422);
      expect(issuesOf(r.error)[0]?.loc[0]).toBe('query');
    }
  });

  it('exports CSV with a header, one line per match and spreadsheet-safe fields', async () => {
    await signUpAndCreate(h, 'csvquoted@example.com');
    await h.deps.db.query(`UPDATE users SET email_type = '=cmd(1,"x")' WHERE email = 'csvquoted@example.com'`);
    const r = await h.request('GET', '/api/admin/users/csv?email=csvquoted', { token: admin.token });
    expect(r.status).toBe(200);
    expect(r.headers.get('content-type')).toMatch(/^text\/csv/);
    expect(r.headers.get('content-disposition')).toContain('users.csv');
    const lines = (await r.text()).trim().split('\r\n');
    expect(lines[0]).toBe('id,email,email_type,created_date,is_active,is_superuser,plan,plan_name,subscription_id,subscription_status,current_period_end,minutes_total,minutes_used');
    expect(lines).toHaveLength(2);
    expect(lines[1]).toContain('csvquoted@example.com');
    expect(lines[1]).toContain(`,"'=cmd(1,""x"")",`);
    expect(lines[1]).toContain(',trial,Free Plan,');
    const forbidden = await h.request('GET', '/api/admin/users/csv', { token: (await signUpAndCreate(h, 'nocsv@example.com')).token });
    expect(forbidden.status).toBe(403);
  });
});
