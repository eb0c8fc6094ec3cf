// /api/admin: user PATCH (plan grants, activation, superuser), search and CSV export.
import * as v from 'valibot';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_LIST_LIMIT, DEFAULT_TEAMSPACE_MINUTES } from '../../../contract/constants';
import { TEXT } from '../../../contract/errors';
import { PLAN_MONTHLY_MINUTES } from '../../../contract/features';
import { AdminUser } from '../../../contract/schemas/user';
import { createHarness, type Harness } from '../harness';
import { api, signUpAndCreate } from '../helpers';

let h: Harness;
let admin: Awaited<ReturnType<typeof signUpAndCreate>>;
beforeAll(async () => {
  h = await createHarness();
  admin = await signUpAndCreate(h, 'root@example.com');
});
afterAll(async () => {
  await h?.close();
});

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
    const r = await api(h, 'PATCH', `/api/admin/users/${u.user.id}`, { token: admin.token, body: { plan: 'creator' } });
    expect(r.status).toBe(200);
    expect(v.is(AdminUser, r.json)).toBe(true);
    expect(r.json.plan).toBe('creator');
    expect(r.json.plan_name).toBe('Creator');
    expect(r.json.subscription.id).toMatch(/^sub_[0-9a-f-]{36}$/);
    expect(r.json.subscription.status).toBe('active');
    const end = Date.parse(r.json.subscription.current_period_end);
    expect(end - before).toBeGreaterThan(27 * 86400_000);
    expect(end - before).toBeLessThan(32 * 86400_000);
    expect(r.json.minutes.total).toBe(DEFAULT_TEAMSPACE_MINUTES + PLAN_MONTHLY_MINUTES.creator);
    expect(await minutesOf(u.user.id)).toBe(DEFAULT_TEAMSPACE_MINUTES + PLAN_MONTHLY_MINUTES.creator);
    // The user sees it.
    const me = await api(h, 'GET', '/api/users/current', { token: u.token });
    expect(me.json.subscription.plan.tier).toBe('creator');
    // Upgrading in the same month changes the plan and credits the difference up to that plan's monthly minutes.
    const up = await api(h, 'PATCH', `/api/admin/users/${u.user.id}`, { token: admin.token, body: { plan: 'business' } });
    expect(up.json.plan).toBe('business');
    expect(up.json.minutes.total).toBe(DEFAULT_TEAMSPACE_MINUTES + PLAN_MONTHLY_MINUTES.business);
    const subs = await h.deps.db.query('SELECT id FROM subscriptions WHERE user_id = $1', [u.user.id]);
    expect(subs).toHaveLength(1);
    // 'free' is a free_sub subscription; 'trial' removes it.
    const free = await api(h, 'PATCH', `/api/admin/users/${u.user.id}`, { token: admin.token, body: { plan: 'free' } });
    expect(free.json.subscription.id).toMatch(/^free_sub_/);
    expect(free.json.plan_name).toBe('Free Plan');
    const trial = await api(h, 'PATCH', `/api/admin/users/${u.user.id}`, { token: admin.token, body: { plan: 'trial' } });
    expect(trial.json.subscription).toBeNull();
    expect(trial.json.plan).toBe('trial');
  });

  it('deactivates a user: every user endpoint answers 400 Inactive user; reactivation restores access', async () => {
    const u = await signUpAndCreate(h, 'deact@example.com');
    expect((await api(h, 'GET', '/api/users/current', { token: u.token })).status).toBe(200);
    const r = await api(h, 'PATCH', `/api/admin/users/${u.user.id}`, { token: admin.token, body: { is_active: false } });
    expect(r.status).toBe(200);
    expect(r.json.is_active).toBe(false);
    const me = await api(h, 'GET', '/api/users/current', { token: u.token });
    expect(me.status).toBe(400);
    expect(me.json).toEqual({ detail: TEXT.inactiveUser });
    expect((await api(h, 'GET', '/api/space/list', { token: u.token })).status).toBe(400);
    await api(h, 'PATCH', `/api/admin/users/${u.user.id}`, { token: admin.token, body: { is_active: true } });
    expect((await api(h, 'GET', '/api/users/current', { token: u.token })).status).toBe(200);
  });

  it('makes and unmakes superusers; a superuser cannot demote or deactivate themself', async () => {
    const u = await signUpAndCreate(h, 'helper@example.com');
    expect((await api(h, 'GET', '/api/admin/users', { token: u.token })).status).toBe(403);
    await api(h, 'PATCH', `/api/admin/users/${u.user.id}`, { token: admin.token, body: { is_superuser: true } });
    expect((await api(h, 'GET', '/api/admin/users', { token: u.token })).status).toBe(200);
    await api(h, 'PATCH', `/api/admin/users/${u.user.id}`, { token: admin.token, body: { is_superuser: false } });
    expect((await api(h, 'GET', '/api/admin/users', { token: u.token })).status).toBe(403);
    const self = await api(h, 'PATCH', `/api/admin/users/${admin.user.id}`, { token: admin.token, body: { is_superuser: false } });
    expect(self.status).toBe(400);
    const selfOff = await api(h, 'PATCH', `/api/admin/users/${admin.user.id}`, { token: admin.token, body: { is_active: false } });
    expect(selfOff.status).toBe(400);
  });

  it('validates: unknown user 404, bad plan 422, malformed JSON 422, non-superuser 403, no token 401', async () => {
    const u = await signUpAndCreate(h, 'val@example.com');
    expect((await api(h, 'PATCH', '/api/admin/users/00000000-0000-4000-8000-000000000000', { token: admin.token, body: { plan: 'creator' } })).status).toBe(404);
    expect((await api(h, 'PATCH', '/api/admin/users/not-a-uuid', { token: admin.token, body: { plan: 'creator' } })).status).toBe(404);
    const plan = await api(h, 'PATCH', `/api/admin/users/${u.user.id}`, { token: admin.token, body: { plan: 'platinum' } });
    expect(plan.status).toBe(422);
    expect(plan.json.detail[0].loc).toEqual(['body', 'plan']);
    const types = await api(h, 'PATCH', `/api/admin/users/${u.user.id}`, { token: admin.token, body: { is_active: 'no' } });
    expect(types.status).toBe(422);
    const bad = await api(h, 'PATCH', `/api/admin/users/${u.user.id}`, { token: admin.token, raw: '{', headers: { 'content-type': 'application/json' } });
    expect(bad.status).toBe(422);
    const forbidden = await api(h, 'PATCH', `/api/admin/users/${u.user.id}`, { token: u.token, body: { plan: 'enterprise' } });
    expect(forbidden.status).toBe(403);
    expect((await api(h, 'PATCH', `/api/admin/users/${u.user.id}`, { body: { plan: 'enterprise' } })).status).toBe(401);
    expect(await h.deps.db.query('SELECT id FROM subscriptions WHERE user_id = $1', [u.user.id])).toEqual([]);
  });
});

describe('GET /api/admin/users and /csv', () => {
  it('searches by e-mail, date range and subscription type, newest first, default limit 20', async () => {
    const made: string[] = [];
    for (let i = 0; i < 22; i++) made.push((await signUpAndCreate(h, `list${String(i).padStart(2, '0')}@corp.example`)).user.id);
    const all = await api(h, 'GET', '/api/admin/users', { token: admin.token });
    expect(all.status).toBe(200);
    expect(all.json).toHaveLength(ADMIN_LIST_LIMIT);
    for (const row of all.json) expect(v.is(AdminUser, row)).toBe(true);
    const dates = all.json.map((u: { created_date: string }) => Date.parse(u.created_date));
    expect([...dates].sort((a, b) => b - a)).toEqual(dates);

    const byEmail = await api(h, 'GET', '/api/admin/users?email=LIST07@corp', { token: admin.token });
    expect(byEmail.json.map((u: { email: string }) => u.email)).toEqual(['list07@corp.example']);
    // LIKE wildcards in the query are literal.
    expect((await api(h, 'GET', '/api/admin/users?email=list%25', { token: admin.token })).json).toEqual([]);

    const limited = await api(h, 'GET', '/api/admin/users?email=corp.example&limit=5', { token: admin.token });
    expect(limited.json).toHaveLength(5);

    const created = await h.deps.db.one<{ c: Date }>('SELECT created_date AS c FROM users WHERE id = $1', [made[10]]);
    // A cut 1 ms after made[10] (timestamps carry microseconds; ISO strings milliseconds).
    const cut = new Date(new Date(created.c).getTime() + 1).toISOString();
    const after = await api(h, 'GET', `/api/admin/users?email=corp.example&date_gt=${encodeURIComponent(cut)}&limit=100`, { token: admin.token });
    const before = await api(h, 'GET', `/api/admin/users?email=corp.example&date_lt=${encodeURIComponent(cut)}&limit=100`, { token: admin.token });
    expect(new Set(after.json.map((u: { id: string }) => u.id))).toEqual(new Set(made.slice(11)));
    expect(new Set(before.json.map((u: { id: string }) => u.id))).toEqual(new Set(made.slice(0, 11)));

    await api(h, 'PATCH', `/api/admin/users/${made[3]}`, { token: admin.token, body: { plan: 'starter' } });
    const starters = await api(h, 'GET', '/api/admin/users?subscription_type=starter', { token: admin.token });
    expect(starters.json.map((u: { id: string }) => u.id)).toEqual([made[3]]);
    const trials = await api(h, 'GET', '/api/admin/users?subscription_type=trial&email=corp.example&limit=100', { token: admin.token });
    expect(trials.json).toHaveLength(21);

    for (const q of ['limit=0', 'limit=abc', 'date_gt=yesterday', 'subscription_type=gold']) {
      const r = await api(h, 'GET', `/api/admin/users?${q}`, { token: admin.token });
      expect(r.status, q).toBe(422);
      expect(r.json.detail[0].loc[0]).toBe('query');
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
