// Free lip-sync minutes (issue 26 §4): a plan with lip-sync credits free lip-sync minutes every month, in the
// transaction of its minutes and once per month; is_free_lipsync spends them and not the plan's minutes; when
// none are left, the 402 says that free lip-sync minutes are missing (not "Not enough minutes").
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as ledger from '../../../server/domains/billing/ledger';
import { runBillingClock } from '../../../server/domains/billing/subscriptions';
import { insertProject } from '../../../server/domains/projects/repository';
import { createHarness, type Harness } from '../harness';
import { grantPlan, makeUser, type TestUser } from '../spaces/spaces-fixtures';
import { typedClient } from '../typed-client';

let h: Harness;
let admin: TestUser;
const APP = 'http://localhost';
const ok = `${APP}/account?payment-successful`;
const as = (u: TestUser) => typedClient(h, u.token);
const plan = (u: TestUser, price: string) =>
  as(u).GET('/api/payments/create_checkout_session_subscription', { params: { query: { price_id: price, success_url: ok, cancel_url: `${APP}/pricing` } } });

beforeAll(async () => {
  h = await createHarness();
  admin = await makeUser(h, 'root@example.com', { superuser: true });
  // Self-service local checkout: a plan is granted at once.
  expect((await as(admin).PUT('/api/admin/payments', { body: { local_checkout: 'free' } })).response.status).toBe(200);
}, 120_000);
afterAll(async () => {
  await h?.close();
});

const user = () => makeUser(h, `lsfree-${randomUUID().slice(0, 8)}@example.com`);
const balances = (u: TestUser) => ledger.balances(h.deps.db, u.defaultSpaceId);

/** A 30 s project whose dub is done (rows only: no job runs in this file). */
async function dubbed(u: TestUser): Promise<string> {
  const row = await insertProject(h.deps.db, {
    spaceId: u.defaultSpaceId, userId: u.id, name: 'Dubbed', srcLang: 'en', dstLang: 'es', mediaId: null, link: null,
    numSpeakers: null, srcSrtMediaId: null, dstSrtMediaId: null, glossaryId: null, ttsProvider: 'espeak-ng',
    status: 'merging_done', progress: 100,
  });
  await h.deps.db.query(
    `UPDATE projects SET duration = 30, original_video = $2, translated_video = $2, translated_audio = $2 WHERE id = $1`,
    [row.id, `projects/${row.id}/source.mp4`],
  );
  return row.id;
}

const runLipsync = (u: TestUser, id: string, body: { is_free_lipsync: boolean; is_multiple_speakers?: boolean }) =>
  as(u).POST('/api/project/{id}/run_lipsync_task', { params: { path: { id } }, body });
const runFree = (u: TestUser, id: string) => runLipsync(u, id, { is_free_lipsync: true, is_multiple_speakers: false });

describe('free lip-sync minutes', () => {
  it('is_free_lipsync without free lip-sync minutes: the 402 names them, and nothing is spent', async () => {
    const u = await user();
    await grantPlan(h, u.id, 'business');
    await ledger.post(h.deps.db, { spaceId: u.defaultSpaceId, kind: 'grant', minutes: 2000, ref: 'test-plan-minutes' });
    const id = await dubbed(u);
    const r = await runFree(u, id);
    expect(r.response.status).toBe(402);
    expect(r.error!.detail).toBe('No free lip-sync minutes left: 1 needed, 0 available. Run it on your plan minutes instead.');
    expect(r.error!.detail).not.toMatch(/^Not enough minutes/);
    expect((await balances(u)).minutes.available).toBe(2003);
    // Without the flag, the plan's minutes pay for it.
    const paid = await runLipsync(u, id, { is_free_lipsync: false });
    expect(paid.response.status, JSON.stringify(paid.error)).toBe(200);
    expect((await balances(u)).minutes.available).toBe(2002);
  });

  it('a plan with lip-sync grants free lip-sync minutes once a month; is_free_lipsync spends them, not the plan minutes', async () => {
    const u = await user();
    const before = await balances(u);
    expect(before.lipsync_free_minutes).toBe(0);
    const r = await plan(u, 'price_local_creator_pro_month');
    expect(r.response.status, JSON.stringify(r.error)).toBe(200);
    const granted = await balances(u);
    expect(granted.lipsync_free_minutes).toBe(10);
    expect(granted.minutes.available).toBe(before.minutes.available + 500);
    const credits = await as(u).GET('/api/space/{id}/credits', { params: { path: { id: u.defaultSpaceId } } });
    expect(credits.data!.lipsync_free_minutes).toBe(10);
    // Idempotent: a second click and the billing clock credit nothing more.
    await plan(u, 'price_local_creator_pro_month');
    await runBillingClock(h.deps.db);
    expect((await balances(u)).lipsync_free_minutes).toBe(10);

    const id = await dubbed(u);
    const run = await runFree(u, id);
    expect(run.response.status, JSON.stringify(run.error)).toBe(200);
    const rows = await h.deps.db.query<{ bucket: string; minutes: number }>(
      `SELECT bucket, minutes::float8 AS minutes FROM minutes_ledger WHERE project_id = $1 AND kind = 'debit'`, [id],
    );
    expect(rows).toEqual([{ bucket: 'lipsync_free', minutes: -1 }]);
    const after = await balances(u);
    expect(after.lipsync_free_minutes).toBe(9);
    expect(after.minutes.available).toBe(granted.minutes.available);
  });

  it('a bigger plan in the same month tops the free lip-sync minutes up to its own; a short balance says how many are left', async () => {
    const u = await user();
    expect((await plan(u, 'price_local_creator_pro_month')).response.status).toBe(200);
    const up = await as(u).POST('/api/payments/subscription', { body: { price_id: 'price_local_business_month' } });
    expect(up.response.status, JSON.stringify(up.error)).toBe(200);
    expect((await balances(u)).lipsync_free_minutes).toBe(30);
    // Spend all but 0.5 of them: a 1-minute run is then short, and the detail says so.
    await h.deps.db.tx((t) => ledger.debit(t, { spaceId: u.defaultSpaceId, minutes: 29.5, ref: 'test-spend', from: ['lipsync_free'] }));
    const r = await runFree(u, await dubbed(u));
    expect(r.response.status).toBe(402);
    expect(r.error!.detail).toBe('Not enough free lip-sync minutes: 1 needed, 0.5 available. Run it on your plan minutes instead.');
  });

  it('plans without lip-sync grant none', async () => {
    const u = await user();
    expect((await plan(u, 'price_local_creator_month')).response.status).toBe(200);
    expect((await balances(u)).lipsync_free_minutes).toBe(0);
  });
});
