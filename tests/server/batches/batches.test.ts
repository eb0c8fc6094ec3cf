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
import { api, newUser, uploadOk, type TestUser } from '../projects/projects-fixtures';
import { grantPlan } from '../spaces/spaces-fixtures';

const SLOW = 540_000;
let h: Harness;
let video: string;
let owner: TestUser;
let stranger: TestUser;

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
    const r = await api(h, 'POST', `/api/batch?space_id=${owner.defaultSpaceId}`, {
      token: owner.token, body: { src_lang: 'en', dst_langs: ['es', 'ca'], items: [{ media_id: a }, { media_id: b }], generate: true },
    });
    expect(r.status, JSON.stringify(r.json)).toBe(402);
    expect(r.json.detail).toBe('Not enough minutes: 4 minutes needed, 3 available (for the whole batch: 2 videos)');
    const after = await h.deps.db.one<{ n: number }>('SELECT count(*)::int AS n FROM projects WHERE space_id = $1', [owner.defaultSpaceId]);
    expect(after.n).toBe(before.n);
    expect(await h.deps.db.query('SELECT 1 FROM batches WHERE space_id = $1', [owner.defaultSpaceId])).toHaveLength(0);
  });

  it('makes one project per video (analysed once), dubs each language, completes with batch.completed', async () => {
    await setMinutes(owner.defaultSpaceId, 10);
    const hook = await api(h, 'POST', `/api/space/${owner.defaultSpaceId}/webhooks`, {
      token: owner.token, body: { url: 'https://hooks.example.com/batches', events: ['batch.completed'] },
    });
    expect(hook.status, JSON.stringify(hook.json)).toBe(201);
    const a = await uploadOk(h, owner, video, { name: 'shoe.mp4' });
    const b = await uploadOk(h, owner, video, { name: 'bag.mp4' });
    const r = await api(h, 'POST', `/api/batch?space_id=${owner.defaultSpaceId}`, {
      token: owner.token, body: { name: 'Spring', src_lang: 'en', dst_langs: ['es', 'ca'], items: [{ media_id: a }, { media_id: b }], generate: true },
    });
    expect(r.status, JSON.stringify(r.json)).toBe(201);
    const created = v.parse(Batch, r.json);
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
      async () => v.parse(Batch, (await api(h, 'GET', `/api/batch/${batchId}`, { token: owner.token })).json),
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
      `SELECT payload FROM webhook_deliveries WHERE endpoint_id = $1 AND event_type = 'batch.completed'`, [hook.json.id],
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
    const b = await api(h, 'GET', `/api/batch?space_id=${owner.defaultSpaceId}`, { token: owner.token });
    expect(b.json.data.map((x: { id: string }) => x.id)).toContain(batchId);
    const item = (await api(h, 'GET', `/api/batch/${batchId}`, { token: owner.token })).json.items[0].id;
    for (const [m, p] of [['GET', ''], ['POST', '/cancel'], ['GET', '/download'], ['POST', `/items/${item}/retry`]] as const) {
      const r = await api(h, m, `/api/batch/${batchId}${p}`, { token: stranger.token });
      expect(r.status, `${m} ${p}`).toBe(403);
    }
    expect((await api(h, 'GET', `/api/batch?space_id=${owner.defaultSpaceId}`, { token: stranger.token })).status).toBe(403);
    expect((await api(h, 'GET', `/api/batch?space_id=${stranger.defaultSpaceId}`, { token: stranger.token })).json.data).toEqual([]);
    expect((await api(h, 'GET', '/api/batch/00000000-0000-4000-8000-000000000000', { token: owner.token })).status).toBe(404);
  });
});

describe('failures, retry and cancel', () => {
  it('a CSV with a link that cannot be downloaded: that item fails with its reason, Retry creates it again', async () => {
    const csv = 'name,link,source language,target languages\nBroken,https://www.youtube.com/watch?v=dQw4w9WgXcQ,en,es;ca\n';
    const r = await api(h, 'POST', `/api/batch?space_id=${owner.defaultSpaceId}`, { token: owner.token, body: { csv } });
    expect(r.status, JSON.stringify(r.json)).toBe(201);
    expect(r.json.items[0]).toMatchObject({ name: 'Broken' });
    // No network here: the download fails, the item's languages fail with the reason, the batch completes.
    const failed = await eventually(
      async () => v.parse(Batch, (await api(h, 'GET', `/api/batch/${r.json.id}`, { token: owner.token })).json),
      (x) => x.status !== 'running',
      60_000,
      'the failed batch',
    );
    expect(failed.status).toBe('completed');
    expect(failed.counts).toMatchObject({ total: 2, failed: 2 });
    expect(failed.items[0]!.languages.every((l) => l.state === 'failed' && !!l.error)).toBe(true);
    const first = failed.items[0]!.project_id;
    const retried = await api(h, 'POST', `/api/batch/${r.json.id}/items/${failed.items[0]!.id}/retry`, { token: owner.token });
    expect(retried.status, JSON.stringify(retried.json)).toBe(200);
    expect(retried.json.status).toBe('running');
    expect(retried.json.items[0].project_id).not.toBe(first);
    const again = await eventually(
      async () => (await api(h, 'GET', `/api/batch/${r.json.id}`, { token: owner.token })).json,
      (x) => x.status !== 'running',
      60_000,
      'the retried batch',
    );
    expect(again.status).toBe('completed');
    // An item refused at creation keeps the reason (a row without a link column value).
    const bad = await api(h, 'POST', `/api/batch?space_id=${owner.defaultSpaceId}`, { token: owner.token, body: { src_lang: 'en', dst_langs: ['es'], items: [{ link: 'https://example.com/x.mp4' }] } });
    expect(bad.status).toBe(201);
    expect(bad.json).toMatchObject({ status: 'completed', counts: { failed: 1 } });
    expect(bad.json.items[0].error).toBe('Please provide correct link');
  }, 150_000);

  it('refuses bad input with the row that is wrong', async () => {
    const none = await api(h, 'POST', `/api/batch?space_id=${owner.defaultSpaceId}`, { token: owner.token, body: { items: [] } });
    expect(none.status).toBe(400);
    const noLang = await api(h, 'POST', `/api/batch?space_id=${owner.defaultSpaceId}`, { token: owner.token, body: { src_lang: 'en', items: [{ link: 'https://youtu.be/dQw4w9WgXcQ' }] } });
    expect(noLang.status).toBe(422);
    expect(noLang.json.detail[0]).toMatchObject({ loc: ['body', 'items', 0], msg: 'Choose at least one target language' });
    const noColumn = await api(h, 'POST', `/api/batch?space_id=${owner.defaultSpaceId}`, { token: owner.token, body: { csv: 'name,lang\nx,en\n' } });
    expect(noColumn.status).toBe(422);
    expect(parseBatchCsv('Name,Link or upload id,Source language,Target languages,Dictionary\n"A, b",00000000-0000-4000-8000-000000000000,EN,es|de fr,\n')).toEqual([
      { name: 'A, b', media_id: '00000000-0000-4000-8000-000000000000', src_lang: 'en', dst_langs: ['es', 'de', 'fr'] },
    ]);
  });

  it('cancel stops every running job of the batch and marks it cancelled', async () => {
    await setMinutes(owner.defaultSpaceId, 10);
    const a = await uploadOk(h, owner, video, { name: 'cap.mp4' });
    const r = await api(h, 'POST', `/api/batch?space_id=${owner.defaultSpaceId}`, {
      token: owner.token, body: { src_lang: 'en', dst_langs: ['es', 'ca'], items: [{ media_id: a }], generate: true },
    });
    expect(r.status).toBe(201);
    const c = await api(h, 'POST', `/api/batch/${r.json.id}/cancel`, { token: owner.token });
    expect(c.status, JSON.stringify(c.json)).toBe(200);
    expect(c.json.status).toBe('cancelled');
    expect((await api(h, 'POST', `/api/batch/${r.json.id}/cancel`, { token: owner.token })).status).toBe(409);
    // Nothing of it runs any more, and no second language was made.
    const settled = await eventually(
      async () => (await api(h, 'GET', `/api/batch/${r.json.id}`, { token: owner.token })).json,
      (x) => x.items[0].languages.every((l: { state: string }) => l.state !== 'running'),
      30_000,
      'the cancelled batch',
    );
    expect(settled.items[0].languages.map((l: { state: string }) => l.state)).toEqual(['failed', 'failed']);
    const made = await h.deps.db.query('SELECT 1 FROM projects WHERE copied_from = $1', [settled.items[0].project_id]);
    expect(made).toHaveLength(0);
  }, 60_000);
});
