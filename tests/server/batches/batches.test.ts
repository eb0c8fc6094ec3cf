// Batches (issue 31) over HTTP with the built-in engines and a running worker: many videos into many languages,
// each video analysed once (one multi-language project per item), the whole batch's minutes checked first,
// "generate when ready" straight to the dubbed videos, one streamed ZIP, batch.completed, access by Teamspace.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as v from 'valibot';
import { Batch } from '../../../contract/schemas/batch';
import * as ledger from '../../../server/domains/billing/ledger';
import { parseBatchCsv } from '../../../server/domains/batches/service';
import { makeSpeechVideo } from '../../fixtures/media';
import { createHarness, type Harness } from '../harness';
import { eventually } from '../helpers';
import { newUser, uploadOk, type TestUser } from '../projects/projects-fixtures';
import { grantPlan } from '../spaces/spaces-fixtures';
import { issuesOf, typedClient } from '../typed-client';
import type { components } from '../../../src/lib/api/schema';

const SLOW = 540_000;
let h: Harness;
let video: string;
let owner: TestUser;
let stranger: TestUser;

const as = (u: TestUser) => typedClient(h, u.token);
/** POST /api/batch into the owner's space. */
const createBatch = (body: components['schemas']['CreateBatchRequest']) =>
  as(owner).POST('/api/batch', { params: { query: { space_id: owner.defaultSpaceId } }, body });
const batchOf = (u: TestUser, id: string) => as(u).GET('/api/batch/{id}', { params: { path: { id } } });
const listBatches = (u: TestUser, spaceId: string) => as(u).GET('/api/batch', { params: { query: { space_id: spaceId } } });

/** Sets the space's available minutes to exactly `n`. */
async function setMinutes(spaceId: string, n: number) {
  const b = await ledger.balances(h.deps.db, spaceId);
  const tag = `${Date.now()}-${Math.random()}`;
  if (b.minutes.available > 0) await ledger.post(h.deps.db, { spaceId, kind: 'expire', minutes: b.minutes.available, ref: `test:zero:${tag}` });
  if (n > 0) await ledger.post(h.deps.db, { spaceId, kind: 'purchase', minutes: n, ref: `test:set:${tag}` });
}

/** Names and stored bytes of a ZIP (read from its central directory). */
function zipEntries(buf: Buffer): Array<{ name: string; data: Buffer }> {
  const eocd = buf.lastIndexOf(Buffer.from([0x50, 0x4b, 0x05, 0x06]));
  expect(eocd).toBeGreaterThan(0);
  const count = buf.readUInt16LE(eocd + 10);
  let p = buf.readUInt32LE(eocd + 16);
  const out: Array<{ name: string; data: Buffer }> = [];
  for (let i = 0; i < count; i++) {
    expect(buf.readUInt32LE(p)).toBe(0x02014b50);
    const method = buf.readUInt16LE(p + 10);
    const size = buf.readUInt32LE(p + 20);
    const nameLen = buf.readUInt16LE(p + 28);
    const extraLen = buf.readUInt16LE(p + 30);
    const commentLen = buf.readUInt16LE(p + 32);
    const local = buf.readUInt32LE(p + 42);
    const name = buf.subarray(p + 46, p + 46 + nameLen).toString('utf8');
    expect(method).toBe(0); // stored
    const start = local + 30 + buf.readUInt16LE(local + 26) + buf.readUInt16LE(local + 28);
    out.push({ name, data: buf.subarray(start, start + size) });
    p += 46 + nameLen + extraLen + commentLen;
  }
  return out;
}

beforeAll(async () => {
  h = await createHarness();
  video = await makeSpeechVideo({ seconds: 3 });
  owner = await newUser(h, 'batch');
  stranger = await newUser(h, 'other');
  await grantPlan(h, owner.id, 'business');
  await grantPlan(h, stranger.id, 'business');
  await h.deps.pipeline.startWorker(1);
}, 240_000);
afterAll(async () => {
  await h?.close();
});

describe('a batch of uploads into two languages, generated when ready', () => {
  let batchId: string;

  it('refuses a batch whose minutes the Teamspace does not have (402 with the total), making nothing', async () => {
    const a = await uploadOk(h, owner, video, { name: 'shoe.mp4' });
    const b = await uploadOk(h, owner, video, { name: 'bag.mp4' });
    await setMinutes(owner.defaultSpaceId, 3);
    const before = await h.deps.db.one<{ n: number }>('SELECT count(*)::int AS n FROM projects WHERE space_id = $1', [owner.defaultSpaceId]);
    const r = await createBatch({ src_lang: 'en', dst_langs: ['es', 'ca'], items: [{ media_id: a }, { media_id: b }], generate: true });
    expect(r.response.status, JSON.stringify(r.error)).toBe(402);
    expect(r.error!.detail).toBe('Not enough minutes: 4 minutes needed, 3 available (for the whole batch: 2 videos)');
    const after = await h.deps.db.one<{ n: number }>('SELECT count(*)::int AS n FROM projects WHERE space_id = $1', [owner.defaultSpaceId]);
    expect(after.n).toBe(before.n);
    expect(await h.deps.db.query('SELECT 1 FROM batches WHERE space_id = $1', [owner.defaultSpaceId])).toHaveLength(0);
  });

  it('makes one project per video (analysed once), dubs each language, completes with batch.completed', async () => {
    await setMinutes(owner.defaultSpaceId, 10);
    const hook = await as(owner).POST('/api/space/{id}/webhooks', {
      params: { path: { id: owner.defaultSpaceId } }, body: { url: 'https://hooks.example.com/batches', events: ['batch.completed'] },
    });
    expect(hook.response.status, JSON.stringify(hook.error)).toBe(201);
    const a = await uploadOk(h, owner, video, { name: 'shoe.mp4' });
    const b = await uploadOk(h, owner, video, { name: 'bag.mp4' });
    const r = await createBatch({ name: 'Spring', src_lang: 'en', dst_langs: ['es', 'ca'], items: [{ media_id: a }, { media_id: b }], generate: true });
    expect(r.response.status, JSON.stringify(r.error)).toBe(201);
    const created = v.parse(Batch, r.data);
    batchId = created.id;
    expect(created).toMatchObject({ name: 'Spring', status: 'running', generate: true, minutes_needed: 4 });
    expect(created.items.map((i) => i.name)).toEqual(['shoe', 'bag']);
    // One project per item (the first language); the other language is made from its analysis.
    for (const i of created.items) {
      expect(i.languages.map((l) => l.dst_lang)).toEqual(['es', 'ca']);
      expect(i.languages[0]!.project_id).toBe(i.project_id);
      expect(i.languages[1]).toMatchObject({ project_id: null, state: 'pending' });
    }

    const done = await eventually(
      async () => v.parse(Batch, (await batchOf(owner, batchId)).data),
      (x) => x.status !== 'running',
      SLOW,
      'the batch finished',
    );
    expect(done.status).toBe('completed');
    expect(done.counts).toEqual({ total: 4, done: 4, failed: 0, running: 0 });
    for (const i of done.items) for (const l of i.languages) expect(l).toMatchObject({ state: 'done', status: 'merging_done', error: null });
    // Each video was analysed once: one ingest per item, the second language made from it.
    const roots = done.items.map((i) => i.project_id!);
    const ingests = await h.deps.db.query(`SELECT project_id FROM pipeline_jobs WHERE stage = 'ingest' AND project_id = ANY($1::uuid[])`, [
      `{${done.items.flatMap((i) => i.languages.map((l) => l.project_id!)).join(',')}}`,
    ]);
    expect(ingests.map((j) => (j as { project_id: string }).project_id).sort()).toEqual([...roots].sort());
    // Debited per language as Generate debits (1 minute each for a 3 s video).
    const debits = await h.deps.db.query<{ minutes: number }>(`SELECT minutes::float8 AS minutes FROM minutes_ledger WHERE space_id = $1 AND kind = 'debit'`, [owner.defaultSpaceId]);
    expect(debits.map((d) => d.minutes)).toEqual([-1, -1, -1, -1]);
    // batch.completed written once for the endpoint.
    const deliveries = await h.deps.db.query<{ payload: { data: { batch_id: string; done: number; failed: number } } }>(
      `SELECT payload FROM webhook_deliveries WHERE endpoint_id = $1 AND event_type = 'batch.completed'`, [hook.data!.id],
    );
    expect(deliveries).toHaveLength(1);
    expect(deliveries[0]!.payload.data).toMatchObject({ batch_id: batchId, done: 4, failed: 0 });
  }, SLOW + 30_000);

  it('downloads every dubbed MP4 as one streamed ZIP', async () => {
    const r = await h.request('GET', `/api/batch/${batchId}/download`, { token: owner.token });
    expect(r.status).toBe(200);
    expect(r.headers.get('content-type')).toBe('application/zip');
    expect(r.headers.get('content-disposition')).toBe('attachment; filename="Spring.zip"');
    expect(r.headers.get('content-length')).toBeNull(); // streamed, not built first
    const entries = zipEntries(Buffer.from(await r.arrayBuffer()));
    expect(entries.map((e) => e.name)).toEqual(['01 shoe/shoe_es.mp4', '01 shoe/shoe_ca.mp4', '02 bag/bag_es.mp4', '02 bag/bag_ca.mp4']);
    for (const e of entries) expect(e.data.subarray(4, 8).toString('latin1')).toBe('ftyp');
  });

  it("another Teamspace's user can neither see, cancel, retry nor download it, and does not list it", async () => {
    const b = await listBatches(owner, owner.defaultSpaceId);
    expect(b.data!.data.map((x) => x.id)).toContain(batchId);
    const item = (await batchOf(owner, batchId)).data!.items[0]!.id;
    const them = as(stranger);
    const path = { id: batchId };
    for (const [what, call] of [
      ['GET', () => them.GET('/api/batch/{id}', { params: { path } })],
      ['POST /cancel', () => them.POST('/api/batch/{id}/cancel', { params: { path } })],
      ['GET /download', () => them.GET('/api/batch/{id}/download', { params: { path } })],
      ['POST /items/{item}/retry', () => them.POST('/api/batch/{id}/items/{item}/retry', { params: { path: { ...path, item } } })],
    ] as const) {
      const r = await call();
      expect(r.response.status, what).toBe(403);
    }
    expect((await listBatches(stranger, owner.defaultSpaceId)).response.status).toBe(403);
    expect((await listBatches(stranger, stranger.defaultSpaceId)).data!.data).toEqual([]);
    expect((await batchOf(owner, '00000000-0000-4000-8000-000000000000')).response.status).toBe(404);
  });
});

describe('failures, retry and cancel', () => {
  it('a CSV with a link that cannot be downloaded: that item fails with its reason, Retry creates it again', async () => {
    const csv = 'name,link,source language,target languages\nBroken,https://www.youtube.com/watch?v=dQw4w9WgXcQ,en,es;ca\n';
    const r = await createBatch({ csv });
    expect(r.response.status, JSON.stringify(r.error)).toBe(201);
    expect(r.data!.items[0]).toMatchObject({ name: 'Broken' });
    const id = r.data!.id;
    // No network here: the download fails, the item's languages fail with the reason, the batch completes.
    const failed = await eventually(
      async () => v.parse(Batch, (await batchOf(owner, id)).data),
      (x) => x.status !== 'running',
      60_000,
      'the failed batch',
    );
    expect(failed.status).toBe('completed');
    expect(failed.counts).toMatchObject({ total: 2, failed: 2 });
    expect(failed.items[0]!.languages.every((l) => l.state === 'failed' && !!l.error)).toBe(true);
    const first = failed.items[0]!.project_id;
    const retried = await as(owner).POST('/api/batch/{id}/items/{item}/retry', { params: { path: { id, item: failed.items[0]!.id } } });
    expect(retried.response.status, JSON.stringify(retried.error)).toBe(200);
    // the item runs again: its new job may already have failed (no network: the download fails at once) by the
    // time the answer is read, so the batch is running or, already, completed again
    expect(['running', 'completed']).toContain(retried.data!.status);
    expect(retried.data!.items[0]!.project_id).not.toBe(first);
    const again = await eventually(
      async () => (await batchOf(owner, id)).data!,
      (x) => x.status !== 'running',
      60_000,
      'the retried batch',
    );
    expect(again.status).toBe('completed');
    // An item refused at creation keeps the reason (a row without a link column value).
    const bad = await createBatch({ src_lang: 'en', dst_langs: ['es'], items: [{ link: 'https://example.com/x.mp4' }] });
    expect(bad.response.status).toBe(201);
    expect(bad.data).toMatchObject({ status: 'completed', counts: { failed: 1 } });
    expect(bad.data!.items[0]!.error).toBe('Please provide correct link');
  }, 150_000);

  it('refuses bad input with the row that is wrong', async () => {
    const none = await createBatch({ items: [] });
    expect(none.response.status).toBe(400);
    const noLang = await createBatch({ src_lang: 'en', items: [{ link: 'https://youtu.be/dQw4w9WgXcQ' }] });
    expect(noLang.response.status).toBe(422);
    expect(issuesOf(noLang.error)[0]).toMatchObject({ loc: ['body', 'items', 0], msg: 'Choose at least one target language' });
    const noColumn = await createBatch({ csv: 'name,lang\nx,en\n' });
    expect(noColumn.response.status).toBe(422);
    expect(parseBatchCsv('Name,Link or upload id,Source language,Target languages,Dictionary\n"A, b",00000000-0000-4000-8000-000000000000,EN,es|de fr,\n')).toEqual([
      { name: 'A, b', media_id: '00000000-0000-4000-8000-000000000000', src_lang: 'en', dst_langs: ['es', 'de', 'fr'] },
    ]);
  });

  it('cancel stops every running job of the batch and marks it cancelled', async () => {
    await setMinutes(owner.defaultSpaceId, 10);
    const a = await uploadOk(h, owner, video, { name: 'cap.mp4' });
    const r = await createBatch({ src_lang: 'en', dst_langs: ['es', 'ca'], items: [{ media_id: a }], generate: true });
    expect(r.response.status).toBe(201);
    const id = r.data!.id;
    const cancel = () => as(owner).POST('/api/batch/{id}/cancel', { params: { path: { id } } });
    const c = await cancel();
    expect(c.response.status, JSON.stringify(c.error)).toBe(200);
    expect(c.data!.status).toBe('cancelled');
    expect((await cancel()).response.status).toBe(409);
    // Nothing of it runs any more, and no second language was made.
    const settled = await eventually(
      async () => (await batchOf(owner, id)).data!,
      (x) => x.items[0]!.languages.every((l) => l.state !== 'running'),
      30_000,
      'the cancelled batch',
    );
    expect(settled.items[0]!.languages.map((l) => l.state)).toEqual(['failed', 'failed']);
    const made = await h.deps.db.query('SELECT 1 FROM projects WHERE copied_from = $1', [settled.items[0]!.project_id]);
    expect(made).toHaveLength(0);
  }, 60_000);
});
