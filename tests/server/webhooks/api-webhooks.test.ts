// Webhooks of a space over HTTP against a local receiver on 127.0.0.1 (WEBHOOK_ALLOW_PRIVATE=1): the owner
// manages endpoints; a status change is delivered from the queue, signed with Standard Webhooks; each attempt is
// logged; an endpoint that times out, answers 500 or redirects to a forbidden address is retried with back-off,
// its attempts logged, and disabled after repeated failures until the owner enables it again.
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { featureRefusalText } from '../../../contract/features';
import { blockedReason, urlProblem } from '../../../server/domains/webhooks/ssrf';
import { backoffMs, startWebhookWorker, type WebhookWorker } from '../../../server/domains/webhooks/service';
import { setStatus } from '../../../server/domains/projects/pipeline/stages';
import { makeSpeechVideo } from '../../fixtures/media';
import { createHarness, type Harness } from '../harness';
import { eventually } from '../helpers';
import { api, newUser, seedProject, uploadOk, type TestUser } from '../projects/projects-fixtures';
import { grantPlan } from '../spaces/spaces-fixtures';
import { issuesOf, typedClient } from '../typed-client';
import type { components } from '../../../src/lib/api/schema';

interface Received {
  path: string;
  headers: IncomingHttpHeaders;
  body: string;
}

let h: Harness;
let owner: TestUser;
let worker: WebhookWorker;
let receiver: Server;
let base: string;
let mediaId: string;
const received: Received[] = [];
/** What /flaky answers now. */
let flakyStatus = 500;

beforeAll(async () => {
  receiver = createServer((req, res) => {
    let body = '';
    req.on('data', (d) => (body += d));
    req.on('end', () => {
      const path = req.url ?? '/';
      received.push({ path, headers: req.headers, body });
      if (path.startsWith('/slow')) return; // never answers
      if (path.startsWith('/flaky')) return void res.writeHead(flakyStatus).end(flakyStatus === 200 ? 'ok' : 'boom');
      if (path === '/nat64') return void res.writeHead(302, { location: `http://[64:ff9b::7f00:1]:${(receiver.address() as AddressInfo).port}/mapped-target` }).end();
      if (path === '/mapped') return void res.writeHead(302, { location: `http://[::ffff:a9fe:a9fe]:${(receiver.address() as AddressInfo).port}/mapped-target` }).end();
      if (path.startsWith('/redirect')) return void res.writeHead(302, { location: 'http://169.254.169.254/latest/meta-data/' }).end();
      res.writeHead(204).end();
    });
  });
  await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}`;
  h = await createHarness({
    WEBHOOK_ALLOW_PRIVATE: '1', WEBHOOK_TIMEOUT_MS: '2000', WEBHOOK_BACKOFF_MS: '100', WEBHOOK_MAX_ATTEMPTS: '3', WEBHOOK_DISABLE_AFTER: '5', WEBHOOK_POLL_MS: '50',
  });
  worker = await startWebhookWorker(h.deps);
  owner = await newUser(h, 'hooks');
  await grantPlan(h, owner.id, 'business');
  mediaId = await uploadOk(h, owner, await makeSpeechVideo({ seconds: 3 }));
}, 120_000);
afterAll(async () => {
  await worker?.stop();
  await h?.close();
  receiver?.closeAllConnections();
  await new Promise((r) => receiver?.close(r));
});

type Events = components['schemas']['CreateWebhookRequest']['events'];
const as = (u: TestUser) => typedClient(h, u.token);
/** POST /api/space/{id}/webhooks as `u` (the owner by default) into the owner's space. */
const addEndpoint = (url: string, events: Events, u = owner, spaceId = owner.defaultSpaceId) =>
  as(u).POST('/api/space/{id}/webhooks', { params: { path: { id: spaceId } }, body: { url, events } });
const listEndpoints = (u = owner) => as(u).GET('/api/space/{id}/webhooks', { params: { path: { id: owner.defaultSpaceId } } });
const wid = (id: string) => ({ params: { path: { id: owner.defaultSpaceId, wid: id } } });
const getEndpoint = (id: string) => as(owner).GET('/api/space/{id}/webhooks/{wid}', wid(id));
const deleteEndpoint = (id: string) => as(owner).DELETE('/api/space/{id}/webhooks/{wid}', wid(id));

async function endpoint(path: string, events: Events) {
  const r = await addEndpoint(`${base}${path}`, events);
  expect(r.response.status, JSON.stringify(r.error)).toBe(201);
  return r.data!;
}

async function deliveries(id: string) {
  const r = await as(owner).GET('/api/space/{id}/webhooks/{wid}/deliveries', wid(id));
  expect(r.response.status).toBe(200);
  return r.data!.data;
}

describe('webhook endpoints', () => {
  it('the owner creates, lists, updates and deletes them; a member may not; bad input is 422', async () => {
    const e = await endpoint('/crud', ['dub.ready']);
    expect(e.secret).toMatch(/^whsec_/);
    const list = await listEndpoints();
    expect(list.data!.data.map((x) => x.id)).toContain(e.id);
    expect(JSON.stringify(list.data)).not.toContain(e.secret);
    const patched = await as(owner).PATCH('/api/space/{id}/webhooks/{wid}', { ...wid(e.id), body: { events: ['dub.ready', 'job.failed'] } });
    expect(patched.data!.events).toEqual(['dub.ready', 'job.failed']);
    const member = await newUser(h, 'member');
    await h.deps.db.query(`INSERT INTO space_members (space_id, user_id, role) VALUES ($1, $2, 'editor')`, [owner.defaultSpaceId, member.id]);
    expect((await listEndpoints(member)).response.status).toBe(403);
    expect((await addEndpoint(`${base}/x`, ['dub.ready'], member)).response.status).toBe(403);
    // Untyped: malformed on purpose, an event that does not exist.
    const bad = await api(h, 'POST', `/api/space/${owner.defaultSpaceId}/webhooks`, { token: owner.token, body: { url: 'ftp://example.com', events: ['nope'] } });
    expect(bad.status).toBe(422);
    expect(bad.json.detail.map((d: { loc: string[] }) => d.loc.join('.'))).toEqual(expect.arrayContaining(['body.url', 'body.events.0']));
    expect((await deleteEndpoint(e.id)).response.status).toBe(204);
    expect((await getEndpoint(e.id)).response.status).toBe(404);
  });

  it('an endpoint whose address is loopback or metadata in another form (NAT64, IPv4-mapped, 6to4, decimal) is refused (422), even with WEBHOOK_ALLOW_PRIVATE', async () => {
    for (const url of ['http://[64:ff9b::7f00:1]/', 'http://[::ffff:a9fe:a9fe]/latest/meta-data/', 'http://[2002:7f00:1::1]/', 'http://2852039166/', 'http://[::7f00:1]/']) {
      const r = await addEndpoint(url, ['dub.ready']);
      expect(r.response.status, url).toBe(422);
      expect(issuesOf(r.error)[0], url).toMatchObject({ loc: ['body', 'url'], type: 'url_not_allowed', msg: expect.stringMatching(/never reachable by webhooks/) });
    }
    const list = await listEndpoints();
    expect(JSON.stringify(list.data)).not.toMatch(/64:ff9b|a9fe|2002:|2852039166|::7f00/);
  });

  it('a space whose plan does not include the API cannot add one (403)', async () => {
    const trial = await newUser(h, 'trialhooks');
    const r = await addEndpoint(`${base}/x`, ['dub.ready'], trial, trial.defaultSpaceId);
    expect(r.response.status).toBe(403);
    expect(r.error!.detail).toBe(featureRefusalText('api'));
  });

  it('the SSRF guard: private and loopback only with WEBHOOK_ALLOW_PRIVATE; link-local never', () => {
    expect(blockedReason('127.0.0.1', false)).toMatch(/private or loopback/);
    expect(blockedReason('10.1.2.3', false)).toMatch(/private/);
    expect(blockedReason('::ffff:192.168.1.1', false)).toMatch(/private/);
    expect(blockedReason('::1', false)).toMatch(/loopback/);
    expect(blockedReason('127.0.0.1', true)).toBeNull();
    expect(blockedReason('169.254.169.254', true)).toMatch(/never reachable/);
    expect(blockedReason('93.184.216.34', false)).toBeNull();
    expect(urlProblem('http://127.0.0.1:9/x', false)).toMatch(/private or loopback/);
    expect(urlProblem('http://localhost/x', false)).toMatch(/local host/);
    expect(urlProblem('http://user:pw@example.com/x', false)).toMatch(/user name or password/);
    expect(urlProblem('https://hooks.example.com/x', false)).toBeNull();
    expect(backoffMs(100, 1)).toBe(100);
    expect(backoffMs(100, 3)).toBe(400);
    expect(backoffMs(30_000, 20)).toBe(3600_000);
  });
});

describe('deliveries', () => {
  it('a status change is delivered, signed with Standard Webhooks, and its attempt logged', async () => {
    const id = await seedProject(h, owner, { mediaId, status: 'voice_suggest_done' });
    const e = await endpoint('/ok', ['transcript.ready', 'dub.ready', 'project.status_changed']);
    received.length = 0;
    await setStatus(h.deps.db, id, 'translation_done');
    const got = await eventually(async () => received.filter((r) => r.path === '/ok'), (r) => r.length >= 2, 15_000, 'two deliveries');
    const wh = new Webhook(e.secret);
    const events = got.map((r) => wh.verify(r.body, r.headers as Record<string, string>) as { type: string; data: { project_id: string; status: string; previous_status: string } });
    expect(events.map((x) => x.type).sort()).toEqual(['project.status_changed', 'transcript.ready']);
    expect(events[0].data).toMatchObject({ project_id: id, status: 'translation_done', previous_status: 'voice_suggest_done' });
    // A tampered body does not verify.
    expect(() => wh.verify(got[0].body.replace('translation_done', 'merging_done'), got[0].headers as Record<string, string>)).toThrow();
    const log = await eventually(() => deliveries(e.id), (d) => d.length === 2 && d.every((x) => x.state === 'delivered'), 15_000, 'logged');
    expect(log[0].attempts[0]).toMatchObject({ attempt: 1, status_code: 204, error: null });
    expect(log[0].attempts[0].latency_ms).toBeGreaterThanOrEqual(0);
    await deleteEndpoint(e.id);
  });

  it('an endpoint that times out: each attempt logged without a status, retried with back-off, then failed', { timeout: 60_000 }, async () => {
    const e = await endpoint('/slow', ['dub.ready']);
    const id = await seedProject(h, owner, { mediaId, status: 'merging_started' });
    await setStatus(h.deps.db, id, 'merging_done');
    const log = await eventually(() => deliveries(e.id), (d) => d[0]?.state === 'failed', 30_000, 'the delivery failed');
    expect(log[0].attempts).toHaveLength(3);
    for (const a of log[0].attempts) {
      expect(a.status_code).toBeNull();
      expect(a.error).toMatch(/no answer within 2000 ms/);
    }
    // Back-off: attempts are spaced by at least the 2 s time limit plus the back-off (100 ms, then 200 ms).
    const t = log[0].attempts.map((a) => Date.parse(a.created_at));
    expect(t[1] - t[0]).toBeGreaterThanOrEqual(2100);
    expect(t[2] - t[1]).toBeGreaterThanOrEqual(2200);
    await deleteEndpoint(e.id);
  });

  it('an endpoint answering 500 is disabled after repeated failures, and delivers again once the owner enables it', async () => {
    flakyStatus = 500;
    const e = await endpoint('/flaky', ['job.failed']);
    const ids = [await seedProject(h, owner, { mediaId, status: 'voiceover_started' }), await seedProject(h, owner, { mediaId, status: 'voiceover_started' })];
    await setStatus(h.deps.db, ids[0], 'voiceover_failed', { error_code: 'tts', message: 'The voice engine failed' });
    await eventually(() => deliveries(e.id), (d) => d[0]?.state === 'failed', 30_000, 'first delivery failed');
    await setStatus(h.deps.db, ids[1], 'voiceover_failed');
    // 3 + 2 failed attempts in a row (WEBHOOK_DISABLE_AFTER=5): disabled.
    const off = await eventually(
      async () => (await getEndpoint(e.id)).data!,
      (x) => x.enabled === false, 30_000, 'the endpoint disabled',
    );
    expect(off.disabled_reason).toMatch(/Disabled after 5 failed deliveries in a row \(last: HTTP 500: boom\)/);
    const log = await deliveries(e.id);
    expect(log.every((d) => d.state === 'failed')).toBe(true);
    expect(log.flatMap((d) => d.attempts).every((a) => a.status_code === 500)).toBe(true);
    // Disabled: nothing is sent for new events.
    const n = received.filter((r) => r.path === '/flaky').length;
    const third = await seedProject(h, owner, { mediaId, status: 'voiceover_started' });
    await setStatus(h.deps.db, third, 'voiceover_failed');
    expect((await deliveries(e.id)).length).toBe(2);
    // The owner fixes the receiver and enables the endpoint again: the next event is delivered.
    flakyStatus = 200;
    const on = await as(owner).PATCH('/api/space/{id}/webhooks/{wid}', { ...wid(e.id), body: { enabled: true } });
    expect(on.data).toMatchObject({ enabled: true, disabled_reason: null });
    const fourth = await seedProject(h, owner, { mediaId, status: 'merging_started' });
    await setStatus(h.deps.db, fourth, 'merging_failed');
    await eventually(() => deliveries(e.id), (d) => d[0]?.state === 'delivered', 15_000, 'delivered after re-enabling');
    expect(received.filter((r) => r.path === '/flaky').length).toBe(n + 1);
    const body = JSON.parse(received.filter((r) => r.path === '/flaky').pop()!.body);
    expect(body).toMatchObject({ type: 'job.failed', data: { project_id: fourth, status: 'merging_failed' } });
  });

  it('a redirect to the metadata address written IPv4-mapped, or to loopback behind NAT64, is not followed', async () => {
    for (const [path, host, range] of [
      ['/mapped', '::ffff:a9fe:a9fe', 'link-local'],
      ['/nat64', '64:ff9b::7f00:1', 'loopback behind nat64'],
    ]) {
      const e = await endpoint(path, ['dub.ready']);
      const id = await seedProject(h, owner, { mediaId, status: 'merging_started' });
      await setStatus(h.deps.db, id, 'merging_done');
      const log = await eventually(() => deliveries(e.id), (d) => d[0]?.state === 'failed', 30_000, 'failed');
      for (const a of log[0].attempts) {
        expect(a.status_code).toBeNull();
        expect(a.error).toContain(`redirect to http://[${host}]:`);
        expect(a.error).toContain(`: the address ${host} is never reachable by webhooks (${range}`);
      }
      await deleteEndpoint(e.id);
    }
    expect(received.filter((r) => r.path === '/mapped-target')).toEqual([]);
  });

  it('a redirect to a link-local (metadata) address is not followed: the attempt is logged as blocked', async () => {
    const e = await endpoint('/redirect', ['dub.ready']);
    const id = await seedProject(h, owner, { mediaId, status: 'merging_started' });
    await setStatus(h.deps.db, id, 'merging_done');
    const log = await eventually(() => deliveries(e.id), (d) => d[0]?.state === 'failed', 30_000, 'failed');
    for (const a of log[0].attempts) {
      expect(a.status_code).toBeNull();
      expect(a.error).toMatch(/redirect to http:\/\/169\.254\.169\.254: the address 169\.254\.169\.254 is never reachable/);
    }
  });
});
