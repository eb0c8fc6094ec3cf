// Two apps built in one process (two buildDeps, each with its own data directory and database) share nothing: the
// status listeners, the live project events, the caches and the debit listeners of one are not the other's
// (server/cache: an app's state is made with its database and wired by its composition root), nor its CPU slots,
// tool spawner, OIDC discovery, SMTP connections or platform library (its Admin API base).
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { abstractFetch } from '@shopify/shopify-api/runtime';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as ledger from '../../../server/domains/billing/ledger';
import { cachedEmbedIdentity, rememberEmbedIdentity } from '../../../server/domains/users/cache';
import { keptRead } from '../../../server/cache/kept-reads';
import { rememberSessionToken, recentSessionToken, tokenKnown, tokenSeen } from '../../../server/domains/shop/token';
import { cpuSlots, run, takeCpuSlot, toolNiceness, withCpuSlot, withToolLimits } from '../../../server/media/run';
import { mailerOf, sendMail } from '../../../server/mailer';
import { shopCall, shopifyOf } from '../../../server/domains/shop/library';
import { projectEventsOf } from '../../../server/live/events';
import { setStatus, type StatusChange } from '../../../server/domains/projects/pipeline/stages';
import type { ProjectEvent } from '../../../contract/events';
import { makeSpeechVideo } from '../../fixtures/media';
import { createHarness, type Harness } from '../harness';
import { startSmtpSink, type SmtpSink } from '../smtp-sink';
import { newUser, seedProject, uploadOk, type TestUser } from '../projects/projects-fixtures';

/** A local stand-in of an OIDC provider (its discovery) and of the platform's Admin API: records what it is asked. */
interface StandIn {
  url: string;
  asked: string[];
  server: Server;
}

async function standIn(): Promise<StandIn> {
  const asked: string[] = [];
  const server = createServer((req, res) => {
    const path = new URL(req.url ?? '/', 'http://x').pathname;
    asked.push(path);
    res.writeHead(200, { 'content-type': 'application/json' });
    if (path !== '/.well-known/openid-configuration') return res.end('{}');
    const issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    res.end(JSON.stringify({ issuer, authorization_endpoint: `${issuer}/authorize`, token_endpoint: `${issuer}/token`, jwks_uri: `${issuer}/jwks` }));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, asked, server };
}

let a: Harness;
let b: Harness;
let video: string;
let standA: StandIn;
let standB: StandIn;
let sinkA: SmtpSink;
let sinkB: SmtpSink;
beforeAll(async () => {
  [standA, standB, sinkA, sinkB] = await Promise.all([standIn(), standIn(), startSmtpSink(), startSmtpSink()]);
  // The same OIDC provider and embedded app, each with its own SMTP server and Admin API stand-in.
  const both = { OIDC_ISSUER: standA.url, OIDC_CLIENT_ID: 'two-apps', PUBLIC_URL: 'https://studio.example', EMBED_APP_KEY: 'two-apps-key', EMBED_APP_SECRET: 'two-apps-secret', EMBED_ADMIN_ORIGINS: 'https://admin.example.com' };
  // Different CPU slots and niceness: each app's tools take its own (server/media/run.ts); A's tools start from its
  // tool spawner, B's directly (TOOL_SPAWNER=0).
  [a, b] = await Promise.all([
    createHarness({ ...both, PIPELINE_CPU_SLOTS: '1', PIPELINE_NICE: '4', TOOL_SPAWNER: '1', SMTP_URL: sinkA.url, SHOP_ADMIN_URL: standA.url }),
    createHarness({ ...both, PIPELINE_CPU_SLOTS: '2', PIPELINE_NICE: '6', TOOL_SPAWNER: '0', SMTP_URL: sinkB.url, SHOP_ADMIN_URL: standB.url }),
  ]);
  video = await makeSpeechVideo({ seconds: 3 });
}, 120_000);
afterAll(async () => {
  await Promise.all([a?.close(), b?.close()]);
  await Promise.all([sinkA?.close(), sinkB?.close(), ...[standA, standB].map((s) => s && new Promise((r) => s.server.close(r)))]);
});

async function projectOf(h: Harness): Promise<{ u: TestUser; id: string }> {
  const u = await newUser(h, 'twoapps');
  const id = await seedProject(h, u, { mediaId: await uploadOk(h, u, video) });
  return { u, id };
}

async function debited(h: Harness): Promise<number> {
  const m = await h.deps.metrics.minutesDebited.get();
  return m.values.reduce((s, v) => s + v.value, 0);
}

describe('two apps in one process', () => {
  it('each has its own state, made with its own database', () => {
    expect(a.dataDir).not.toBe(b.dataDir);
    expect(a.deps.db).not.toBe(b.deps.db);
    expect(a.deps.state).toBe(a.deps.db.state);
    expect(a.deps.state).not.toBe(b.deps.state);
    expect(a.deps.listeners).not.toBe(b.deps.listeners);
  });

  it('a status listener and the live events of one app never hear the other', async () => {
    const [pa, pb] = await Promise.all([projectOf(a), projectOf(b)]);
    const heardByListener: StatusChange[] = [];
    a.deps.listeners.onStatusChange(async (_db, c) => {
      heardByListener.push(c);
    });
    const eventsA: ProjectEvent[] = [];
    const eventsB: ProjectEvent[] = [];
    const offA = projectEventsOf(a.deps.db).subscribe(() => true, (e) => eventsA.push(e));
    const offB = projectEventsOf(b.deps.db).subscribe(() => true, (e) => eventsB.push(e));
    try {
      await setStatus(b.deps.db, pb.id, 'voiceover_started');
      expect(heardByListener).toEqual([]);
      expect(eventsA).toEqual([]);
      expect(eventsB.map((e) => [e.id, e.status])).toEqual([[pb.id, 'voiceover_started']]);

      await setStatus(a.deps.db, pa.id, 'voiceover_started');
      expect(heardByListener.map((c) => [c.projectId, c.status])).toEqual([[pa.id, 'voiceover_started']]);
      expect(eventsA.map((e) => [e.id, e.status])).toEqual([[pa.id, 'voiceover_started']]);
      expect(eventsB).toHaveLength(1);
    } finally {
      offA();
      offB();
    }
  }, 60_000);

  it('a cache entry of one app is not seen by the other', async () => {
    rememberEmbedIdentity(a.deps.db, 'shop.example|42', { identityId: 'i-1', email: 'x@example.com' });
    expect(cachedEmbedIdentity(a.deps.db, 'shop.example|42')?.identityId).toBe('i-1');
    expect(cachedEmbedIdentity(b.deps.db, 'shop.example|42')).toBeNull();

    // PostgreSQL: a read is kept once its app follows the change notices (server/db/changes.ts).
    await Promise.all([a.deps.db.changes.caughtUp(), b.deps.db.changes.caughtUp()]);
    let loads = 0;
    const load = async () => ++loads;
    expect(await keptRead(a.deps.db, 'two-apps', 'k', load)).toBe(1);
    expect(await keptRead(a.deps.db, 'two-apps', 'k', load)).toBe(1); // kept by a
    expect(await keptRead(b.deps.db, 'two-apps', 'k', load)).toBe(2); // b reads for itself
  });

  it('a debit counts in the metrics of its own app only', async () => {
    const u = await newUser(b, 'twoapps-debit');
    await ledger.post(b.deps.db, { spaceId: u.defaultSpaceId, kind: 'purchase', minutes: 5, ref: 'two-apps-pack' });
    const [beforeA, beforeB] = [await debited(a), await debited(b)];
    await b.deps.db.tx((t) => ledger.debit(t, { spaceId: u.defaultSpaceId, minutes: 2, ref: 'two-apps-debit' }));
    expect(await debited(b)).toBe(beforeB + 2);
    expect(await debited(a)).toBe(beforeA);
  });

  it('each has its own CPU slots and tool niceness: a slot held in one never makes the other wait', async () => {
    expect(a.deps.tools).not.toBe(b.deps.tools);
    expect([a.deps.tools.slots.limit, a.deps.tools.nice]).toEqual([1, 4]);
    expect([b.deps.tools.slots.limit, b.deps.tools.nice]).toEqual([2, 6]);
    expect(withToolLimits(a.deps.tools, () => [cpuSlots().limit, toolNiceness()])).toEqual([1, 4]);
    expect(withToolLimits(b.deps.tools, () => [cpuSlots().limit, toolNiceness()])).toEqual([2, 6]);
    // A's only slot is taken: a second task of A waits, B's tasks run at once.
    const release = await withToolLimits(a.deps.tools, () => takeCpuSlot());
    let aSecondRan = false;
    const aSecond = withToolLimits(a.deps.tools, () => withCpuSlot(async () => void (aSecondRan = true)));
    await withToolLimits(b.deps.tools, () => Promise.all([withCpuSlot(async () => {}), withCpuSlot(async () => {})]));
    expect(aSecondRan).toBe(false);
    expect(a.deps.tools.slots).toEqual({ limit: 1, inUse: 1, waiting: 1 });
    expect(b.deps.tools.slots).toEqual({ limit: 2, inUse: 0, waiting: 0 });
    release();
    await aSecond;
    expect(aSecondRan).toBe(true);
    expect(a.deps.tools.slots.inUse).toBe(0);
  });

  it('a shop token remembered by one app is not known to the other', () => {
    const shop = 'two-apps.myshopify.com';
    rememberSessionToken(a.deps.db, shop, 'session-a', Date.now() + 60_000);
    tokenSeen(a.deps.db, shop);
    expect(recentSessionToken(a.deps.db, shop)).toBe('session-a');
    expect(tokenKnown(a.deps.db, shop)).toBe(true);
    expect(recentSessionToken(b.deps.db, shop)).toBeNull();
    expect(tokenKnown(b.deps.db, shop)).toBe(false);
  });

  it('each has its own tool spawner: one app\'s tools start from its helper, the other\'s (TOOL_SPAWNER=0) directly', async () => {
    const [sa, sb] = [a.deps.tools.spawner!, b.deps.tools.spawner!];
    expect(sa).not.toBe(sb);
    expect([sa.enabled, sb.enabled]).toEqual([true, false]);
    await Promise.all([sa.start(), sb.start()]);
    expect(sa.pid).toBeGreaterThan(0);
    expect(sb.pid).toBeNull();
    const parentOfTool = async (h: Harness) => Number((await withToolLimits(h.deps.tools, () => run('sh', ['-c', 'echo $PPID']))).stdout.trim());
    expect(await parentOfTool(a)).toBe(sa.pid);
    expect(await parentOfTool(b)).toBe(process.pid);
  });

  it('an OIDC discovery kept by one app is not the other\'s (same provider, same client id)', async () => {
    const discoveries = () => standA.asked.filter((p) => p === '/.well-known/openid-configuration').length;
    const start = async (h: Harness) => {
      const r = await h.request('GET', '/api/auth/oidc/start?origin=%2F');
      expect(r.status).toBe(302);
      expect(r.headers.get('location')).toMatch(new RegExp(`^${standA.url}/authorize\\?`));
    };
    const before = discoveries();
    await start(a);
    await start(a);
    expect(discoveries()).toBe(before + 1); // kept by a
    await start(b);
    expect(discoveries()).toBe(before + 2); // b discovers for itself
  });

  it('each sends e-mail through its own SMTP connections', async () => {
    expect(mailerOf(a.deps.db)).not.toBe(mailerOf(b.deps.db));
    await sendMail(a.deps, { to: 'one@example.com', subject: 'from a', text: 'a' });
    await sendMail(b.deps, { to: 'two@example.com', subject: 'from b', text: 'b' });
    expect(sinkA.messages.map((m) => m.to)).toEqual([['one@example.com']]);
    expect(sinkB.messages.map((m) => m.to)).toEqual([['two@example.com']]);
    expect(mailerOf(a.deps.db).servers).toEqual([sinkA.url]);
    expect(mailerOf(b.deps.db).servers).toEqual([sinkB.url]);
  });

  it('each has its own platform library, whose shop calls go to its own Admin API base', async () => {
    expect(shopifyOf(a.deps)).not.toBeNull();
    expect(shopifyOf(a.deps)).toBe(shopifyOf(a.deps));
    expect(shopifyOf(a.deps)).not.toBe(shopifyOf(b.deps));
    // At once: each call goes where its own app's SHOP_ADMIN_URL says.
    const call = (h: Harness, what: string) => shopCall(h.deps, () => abstractFetch(`https://two-apps.myshopify.com/admin/${what}`));
    await Promise.all([call(a, 'for-a'), call(b, 'for-b'), call(a, 'for-a-again')]);
    expect(standA.asked.filter((p) => p.startsWith('/admin/')).sort()).toEqual(['/admin/for-a', '/admin/for-a-again']);
    expect(standB.asked.filter((p) => p.startsWith('/admin/'))).toEqual(['/admin/for-b']);
  });
});
