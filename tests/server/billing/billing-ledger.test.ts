// The minutes ledger and the subscription lifecycle: rows, not balances; idempotent by reference; no overdraft
// under concurrency; refunds of failed generations; re-dubs charged for what changed; monthly refills, rollover,
// cancel at period end, pause, yearly plans, upgrades.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as ledger from '../../../server/domains/billing/ledger';
import {
  addMonths, applyPlan, cancelAtPeriodEnd, findLifecycle, pause, resume, runBillingClock, undoCancellation,
} from '../../../server/domains/billing/subscriptions';
import { setStatus } from '../../../server/domains/projects/pipeline/stages';
import { makeSpeechVideo } from '../../fixtures/media';
import { createHarness, type Harness } from '../harness';
import { newUser, seedProject, uploadOk, type TestUser } from '../projects/projects-fixtures';
import { typedClient } from '../typed-client';

let h: Harness;
let video: string;

beforeAll(async () => {
  h = await createHarness();
  video = await makeSpeechVideo({ seconds: 3 });
}, 120_000);
afterAll(async () => {
  await h?.close();
});

const as = (u: TestUser) => typedClient(h, u.token);
const minutesOf = async (u: TestUser, spaceId = u.defaultSpaceId) =>
  (await as(u).GET('/api/space/{id}/credits', { params: { path: { id: spaceId } } })).data!.minutes;
const generate = (u: TestUser, id: string) => as(u).POST('/api/project/{id}/generate', { params: { path: { id } } });
const rows = (spaceId: string) =>
  h.deps.db.query<{ kind: string; minutes: number; ref: string; bucket: string }>(
    `SELECT kind, minutes::float8 AS minutes, ref, bucket FROM minutes_ledger WHERE space_id = $1 ORDER BY id`,
    [spaceId],
  );
const available = async (spaceId: string) => (await ledger.balances(h.deps.db, spaceId)).minutes.available;

describe('the ledger', () => {
  it('a new space starts with one trial grant row of 3 minutes; the balance is the sum of the rows', async () => {
    const u = await newUser(h, 'fresh');
    expect(await rows(u.defaultSpaceId)).toEqual([{ kind: 'grant', minutes: 3, ref: 'trial', bucket: 'minutes' }]);
    expect(await minutesOf(u)).toEqual({ total: 3, used: 0 });
  });

  it('the same reference writes one row, and a refund gives back once', async () => {
    const u = await newUser(h, 'ref');
    const s = u.defaultSpaceId;
    expect(await ledger.post(h.deps.db, { spaceId: s, kind: 'purchase', minutes: 10, ref: 'payment:pi_1' })).toBe(true);
    expect(await ledger.post(h.deps.db, { spaceId: s, kind: 'purchase', minutes: 10, ref: 'payment:pi_1' })).toBe(false);
    await h.deps.db.tx((t) => ledger.debit(t, { spaceId: s, minutes: 4, ref: 'work:1' }));
    const again = await h.deps.db.tx((t) => ledger.debit(t, { spaceId: s, minutes: 4, ref: 'work:1' }));
    expect(again.fresh).toBe(false);
    expect(await available(s)).toBe(9);
    expect(await ledger.refund(h.deps.db, s, 'work:1')).toBe(4);
    expect(await ledger.refund(h.deps.db, s, 'work:1')).toBe(0);
    expect(await available(s)).toBe(13);
    expect(await minutesOf(u)).toEqual({ total: 13, used: 0 });
  });

  it('refuses a debit larger than the balance with 402, writing nothing', async () => {
    const u = await newUser(h, 'short');
    await expect(h.deps.db.tx((t) => ledger.debit(t, { spaceId: u.defaultSpaceId, minutes: 4, ref: 'big' }))).rejects.toMatchObject({
      code: 'payment_required', detail: 'Not enough minutes: 4 minutes needed, 3 available',
    });
    expect(await rows(u.defaultSpaceId)).toHaveLength(1);
  });

  it('two generates at once in one space cannot overdraw it', async () => {
    const u = await newUser(h, 'race');
    const media = await uploadOk(h, u, video);
    // 3 minutes available; each project needs 2.
    const a = await seedProject(h, u, { mediaId: media, duration: 100, name: 'A' });
    const b = await seedProject(h, u, { mediaId: media, duration: 100, name: 'B' });
    const [ra, rb] = await Promise.all([
      generate(u, a),
      generate(u, b),
    ]);
    expect([ra.response.status, rb.response.status].sort()).toEqual([200, 402]);
    expect(await minutesOf(u)).toEqual({ total: 3, used: 2 });
    expect(await available(u.defaultSpaceId)).toBe(1);
  });

  it('lip-sync style debits draw on free lip-sync minutes first, then on the minutes', async () => {
    const u = await newUser(h, 'lips');
    const s = u.defaultSpaceId;
    await ledger.post(h.deps.db, { spaceId: s, bucket: 'lipsync_free', kind: 'grant', minutes: 2, ref: 'promo' });
    const r = await h.deps.db.tx((t) => ledger.debit(t, { spaceId: s, minutes: 4, ref: 'lipsync:1', from: ['lipsync_free', 'minutes'] }));
    expect(r.taken).toEqual([{ bucket: 'lipsync_free', minutes: 2 }, { bucket: 'minutes', minutes: 2 }]);
    const b = await ledger.balances(h.deps.db, s);
    expect(b.lipsync_free_minutes).toBe(0);
    expect(b.minutes.available).toBe(1);
    await ledger.refund(h.deps.db, s, 'lipsync:1');
    expect(await ledger.balances(h.deps.db, s)).toMatchObject({ lipsync_free_minutes: 2, minutes: { available: 3 } });
  });
});

describe('generations', () => {
  it('the first dub charges the video; a failed one is refunded; a re-dub charges only the changed segments', async () => {
    const u = await newUser(h, 'redub');
    await ledger.post(h.deps.db, { spaceId: u.defaultSpaceId, kind: 'purchase', minutes: 20, ref: 'pack' });
    const media = await uploadOk(h, u, video);
    const id = await seedProject(h, u, {
      mediaId: media, duration: 300, // 5 minutes
      segments: [
        { start: 0, end: 40, speaker: 'SPEAKER_0', src: 'One.', dst: 'Uno.' },
        { start: 50, end: 130, speaker: 'SPEAKER_0', src: 'Two.', dst: 'Dos.' },
      ],
    });
    expect((await generate(u, id)).response.status).toBe(200);
    expect(await available(u.defaultSpaceId)).toBe(18);
    await setStatus(h.deps.db, id, 'merging_failed');
    expect(await available(u.defaultSpaceId)).toBe(23);
    expect((await generate(u, id)).response.status).toBe(200);
    expect(await available(u.defaultSpaceId)).toBe(18);
    // The dub finishes: segments done, the generation becomes the base of the next charge.
    await h.deps.db.query(`UPDATE segments SET status = 'done' WHERE project_id = $1`, [id]);
    await setStatus(h.deps.db, id, 'merging_done');
    // Nothing changed: a re-generate costs nothing.
    expect((await generate(u, id)).response.status).toBe(200);
    expect(await available(u.defaultSpaceId)).toBe(18);
    await h.deps.db.query(`UPDATE segments SET status = 'done' WHERE project_id = $1`, [id]);
    await setStatus(h.deps.db, id, 'merging_done');
    // One 80 s segment edited: 2 minutes.
    const seg = await h.deps.db.one<{ id: string }>(`SELECT id FROM segments WHERE project_id = $1 AND start_sec = 50`, [id]);
    const patch = await as(u).PATCH('/api/project/{id}/transcript', {
      params: { path: { id } }, body: { segments: [{ id: seg.id, dst: { lang: 'es', text: 'Dos, otra vez.' } }] },
    });
    expect(patch.response.status, JSON.stringify(patch.error)).toBe(200);
    expect((await generate(u, id)).response.status).toBe(200);
    expect(await available(u.defaultSpaceId)).toBe(16);
    const debits = (await rows(u.defaultSpaceId)).filter((r) => r.kind === 'debit' || r.kind === 'refund');
    expect(debits.map((r) => [r.kind, r.minutes])).toEqual([['debit', -5], ['refund', 5], ['debit', -5], ['debit', -2]]);
  });

  it('a free copy (free_dubbing) is not charged', async () => {
    const u = await newUser(h, 'free');
    const media = await uploadOk(h, u, video);
    const id = await seedProject(h, u, { mediaId: media, duration: 100 });
    await h.deps.db.query(`UPDATE projects SET free_dubbing = true WHERE id = $1`, [id]);
    expect((await generate(u, id)).response.status).toBe(200);
    expect(await minutesOf(u)).toEqual({ total: 3, used: 0 });
  });
});

describe('subscriptions', () => {
  const T0 = new Date('2026-01-10T12:00:00Z');
  const spaceMinutes = (u: TestUser) => ledger.balances(h.deps.db, u.defaultSpaceId).then((b) => b.minutes);

  it('a monthly plan credits its minutes once a month; unused minutes roll over while active', async () => {
    const u = await newUser(h, 'monthly');
    await applyPlan(h.deps.db, { userId: u.id, tier: 'creator', now: T0 });
    expect((await spaceMinutes(u)).available).toBe(103);
    // Running the clock again in the same month credits nothing.
    await runBillingClock(h.deps.db, new Date('2026-01-20T00:00:00Z'));
    expect((await spaceMinutes(u)).available).toBe(103);
    // Next month: renewed and credited, the unused minutes kept.
    const r = await runBillingClock(h.deps.db, new Date('2026-02-11T00:00:00Z'));
    expect(r.renewed).toBeGreaterThanOrEqual(1);
    expect((await spaceMinutes(u)).available).toBe(203);
    const sub = await findLifecycle(h.deps.db, u.id);
    expect(new Date(sub!.current_period_end!).toISOString()).toBe('2026-03-10T12:00:00.000Z');
    // A clock that missed two months catches up once per month.
    await runBillingClock(h.deps.db, new Date('2026-04-15T00:00:00Z'));
    expect((await spaceMinutes(u)).available).toBe(403);
  });

  it('cancel at period end keeps the plan until then, its undo keeps it going; at the end plan minutes lapse, bought ones stay', async () => {
    const u = await newUser(h, 'cancel');
    await applyPlan(h.deps.db, { userId: u.id, tier: 'starter', now: T0 });
    await ledger.post(h.deps.db, { spaceId: u.defaultSpaceId, kind: 'purchase', minutes: 7, ref: 'pack' });
    await cancelAtPeriodEnd(h.deps.db, u.id, T0);
    await undoCancellation(h.deps.db, u.id);
    expect((await findLifecycle(h.deps.db, u.id))!.cancel_at_period_end).toBe(false);
    await cancelAtPeriodEnd(h.deps.db, u.id, T0);
    await runBillingClock(h.deps.db, new Date('2026-02-01T00:00:00Z'));
    expect((await findLifecycle(h.deps.db, u.id))!.status).toBe('active');
    expect((await spaceMinutes(u)).available).toBe(35);
    await runBillingClock(h.deps.db, new Date('2026-02-10T12:00:01Z'));
    expect((await findLifecycle(h.deps.db, u.id))!.status).toBe('canceled');
    // 25 plan minutes lapse; the trial 3 and the 7 bought stay.
    expect((await spaceMinutes(u)).available).toBe(10);
    await runBillingClock(h.deps.db, new Date('2026-03-20T00:00:00Z'));
    expect((await spaceMinutes(u)).available).toBe(10);
  });

  it('a paused plan gets no refill and keeps its minutes; resumed, it refills again', async () => {
    const u = await newUser(h, 'pause');
    await applyPlan(h.deps.db, { userId: u.id, tier: 'creator', now: T0 });
    await pause(h.deps.db, u.id, T0);
    await runBillingClock(h.deps.db, new Date('2026-02-11T00:00:00Z'));
    expect((await spaceMinutes(u)).available).toBe(103);
    await resume(h.deps.db, u.id);
    await runBillingClock(h.deps.db, new Date('2026-02-12T00:00:00Z'));
    expect((await spaceMinutes(u)).available).toBe(203);
  });

  it('a yearly plan credits the monthly minutes each month of the year', async () => {
    const u = await newUser(h, 'yearly');
    await applyPlan(h.deps.db, { userId: u.id, tier: 'starter', interval: 'year', now: T0 });
    expect((await spaceMinutes(u)).available).toBe(28);
    await runBillingClock(h.deps.db, addMonths(T0, 5));
    expect((await spaceMinutes(u)).available).toBe(3 + 25 * 6);
  });

  it('an upgrade in the month credits the difference once; a downgrade takes nothing back', async () => {
    const u = await newUser(h, 'upgrade');
    await applyPlan(h.deps.db, { userId: u.id, tier: 'creator', now: T0 });
    await applyPlan(h.deps.db, { userId: u.id, tier: 'business', now: new Date('2026-01-15T00:00:00Z'), periodStart: T0 });
    expect((await spaceMinutes(u)).available).toBe(2003);
    await applyPlan(h.deps.db, { userId: u.id, tier: 'creator', now: new Date('2026-01-16T00:00:00Z'), periodStart: T0 });
    await applyPlan(h.deps.db, { userId: u.id, tier: 'business', now: new Date('2026-01-17T00:00:00Z'), periodStart: T0 });
    expect((await spaceMinutes(u)).available).toBe(2003);
  });

  it('a superuser grant through /admin is the local provider: plan, minutes and entitlements at once', async () => {
    const admin = await newUser(h, 'admin');
    await h.deps.db.query('UPDATE users SET is_superuser = true WHERE id = $1', [admin.id]);
    const u = await newUser(h, 'granted');
    const r = await as(admin).PATCH('/api/admin/users/{id}', { params: { path: { id: u.id } }, body: { plan: 'business' } });
    expect(r.response.status, JSON.stringify(r.error)).toBe(200);
    expect(r.data!.minutes).toEqual({ total: 2003, used: 0 });
    const settings = await as(u).GET('/api/settings', { params: { query: { space_id: u.defaultSpaceId } } });
    expect(settings.data!.scope_settings.available_features.glossary!.enabled).toBe(true);
    // Back to trial: the plan minutes lapse.
    await as(admin).PATCH('/api/admin/users/{id}', { params: { path: { id: u.id } }, body: { plan: 'trial' } });
    expect(await minutesOf(u)).toEqual({ total: 2003, used: 2000 });
  });
});
