// Job control over HTTP: POST /api/project/{id}/cancel stops the running stage at once (its abort signal fires,
// the job ends cancelled), the project goes to the stage's failure status with error_code 'cancelled', and a
// cancelled generation gets its minutes back; cancel on a project where nothing runs is 409. Idempotency-Key on
// the creating calls: a retry with the same key answers the first answer and creates nothing; another body 422.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { StageContext } from '../../../server/domains/projects/pipeline/registry';
import { PROJECT_STAGES } from '../../../server/domains/projects/stages/index';
import { balances, generationRef } from '../../../server/domains/billing/ledger';
import { makeSpeechVideo } from '../../fixtures/media';
import { createHarness, type Harness } from '../harness';
import { eventually } from '../helpers';
import { createTyped, jobsOf, newUser, replacePipeline, seedProject, uploadOk, type TestUser } from './projects-fixtures';
import { issuesOf, typedClient } from '../typed-client';
import { grantPlan } from '../spaces/spaces-fixtures';

let h: Harness;
let u: TestUser;
let video: string;
let mediaId: string;
/** Seeded before the worker starts: with a worker running, the ingest queued by their creation could be claimed
 * (and block here) before the seed removes it, and a later cancel would stop that ingest instead. */
const seeded = { refund: '', finished: '', idem: '', deleted: '', again: '' };
/** Stages that block until aborted, and what they saw. */
const blocked = new Map<string, { aborted: boolean }>();
/** Projects whose stage, once aborted, takes until this promise resolves to stop (a model call finishing). */
const slowStop = new Map<string, Promise<void>>();

function blockUntilAborted(ctx: StageContext): Promise<void> {
  const seen = { aborted: false };
  blocked.set(`${ctx.projectId}:${ctx.stage}`, seen);
  return new Promise((_, reject) => {
    ctx.signal.addEventListener('abort', () => {
      seen.aborted = true;
      const gate = slowStop.get(ctx.projectId) ?? Promise.resolve();
      void gate.then(() => reject(new DOMException('aborted', 'AbortError')));
    });
  });
}

const as = (who: TestUser = u) => typedClient(h, who.token);
const pid = (id: string) => ({ params: { path: { id } } });
/** The project as its owner reads it (undefined when the read is refused). */
const project = async (id: string) => (await as().GET('/api/project/{id}', pid(id))).data;
const generate = (id: string, idempotencyKey?: string) =>
  as().POST('/api/project/{id}/generate', { params: { path: { id }, ...(idempotencyKey ? { header: { 'Idempotency-Key': idempotencyKey } } : {}) } });
const cancel = (id: string, who: TestUser = u) => as(who).POST('/api/project/{id}/cancel', pid(id));
const restart = (id: string, who: TestUser = u) => as(who).POST('/api/project/{id}/restart', pid(id));

beforeAll(async () => {
  h = await createHarness();
  u = await newUser(h, 'jobs');
  await grantPlan(h, u.id, 'business');
  video = await makeSpeechVideo({ seconds: 3 });
  mediaId = await uploadOk(h, u, video);
  seeded.refund = await seedProject(h, u, { mediaId, duration: 50 });
  seeded.finished = await seedProject(h, u, { mediaId, status: 'merging_done' });
  seeded.idem = await seedProject(h, u, { mediaId, duration: 30, name: 'Idem gen' });
  seeded.deleted = await seedProject(h, u, { mediaId, duration: 100, name: 'Deleted while dubbing' });
  seeded.again = await seedProject(h, u, { mediaId, duration: 40, name: 'Generated again' });
  const p = await replacePipeline(h, {
    handlers: { ...PROJECT_STAGES.handlers, ingest: blockUntilAborted, voiceover: blockUntilAborted },
  });
  await p.startWorker(2);
}, 120_000);
afterAll(async () => {
  await h?.close();
});

describe('POST /api/project/{id}/cancel', () => {
  it('stops the running stage at once: its signal fires, the job ends cancelled, the status says so', async () => {
    const r = await createTyped(h, u, { name: 'Cancel me', src_lang: 'en', dst_lang: 'es', media_id: mediaId });
    expect(r.response.status, JSON.stringify(r.error)).toBe(200);
    const id = r.data!.id;
    await eventually(() => project(id), (p) => p?.status === 'uploading' && blocked.has(`${id}:ingest`), 15_000, 'ingest running');
    const c = await cancel(id);
    expect(c.response.status, JSON.stringify(c.error)).toBe(200);
    // At once: the stage was aborted before the answer, and the answer carries the final status.
    expect(blocked.get(`${id}:ingest`)!.aborted).toBe(true);
    expect(c.data).toMatchObject({ status: 'upload_failed', error_code: 'cancelled', error_message: 'The processing was cancelled' });
    await eventually(() => jobsOf(h, id), (j) => j.every((x) => x.state === 'cancelled'), 15_000, 'the job cancelled');
    expect((await project(id))?.status).toBe('upload_failed');
    // Nothing runs any more: a second cancel is 409.
    const again = await cancel(id);
    expect(again.response.status).toBe(409);
  });

  it('a cancelled generation gives its minutes back through the ledger', async () => {
    const id = seeded.refund;
    const before = await balances(h.deps.db, u.defaultSpaceId);
    const g = await generate(id);
    expect(g.response.status, JSON.stringify(g.error)).toBe(200);
    expect((await balances(h.deps.db, u.defaultSpaceId)).minutes.available).toBe(before.minutes.available - 1);
    await eventually(async () => blocked.has(`${id}:voiceover`), (x) => x, 15_000, 'voiceover running');
    const c = await cancel(id);
    expect(c.response.status, JSON.stringify(c.error)).toBe(200);
    expect(c.data).toMatchObject({ status: 'voiceover_failed', error_code: 'cancelled' });
    expect((await balances(h.deps.db, u.defaultSpaceId)).minutes.available).toBe(before.minutes.available);
    const refunds = await h.deps.db.query(`SELECT minutes FROM minutes_ledger WHERE kind = 'refund' AND ref = $1`, [generationRef(id, 1)]);
    expect(refunds).toHaveLength(1);
    // The project can be generated again.
    expect((await project(id))?.status).toBe('voiceover_failed');
  });

  it('deleting a project while its dub is generating gives the minutes back, once', async () => {
    const id = seeded.deleted;
    const before = await balances(h.deps.db, u.defaultSpaceId);
    const g = await generate(id);
    expect(g.response.status, JSON.stringify(g.error)).toBe(200);
    expect((await balances(h.deps.db, u.defaultSpaceId)).minutes.available).toBe(before.minutes.available - 2);
    await eventually(async () => blocked.has(`${id}:voiceover`), (x) => x, 15_000, 'voiceover running');
    const d = await as().DELETE('/api/project/{id}', pid(id));
    expect(d.response.status, JSON.stringify(d.error)).toBe(200);
    expect((await balances(h.deps.db, u.defaultSpaceId)).minutes.available).toBe(before.minutes.available);
    await eventually(async () => blocked.get(`${id}:voiceover`)!.aborted, (x) => x, 15_000, 'the stage aborted');
    const rows = await h.deps.db.query<{ kind: string }>(`SELECT kind FROM minutes_ledger WHERE ref = $1 ORDER BY id`, [generationRef(id, 1)]);
    expect(rows.map((r) => r.kind)).toEqual(['debit', 'refund']);
  });

  it('a new Generate while the cancelled one is still stopping is refused, then runs and is never marked cancelled', async () => {
    const id = seeded.again;
    let release!: () => void;
    slowStop.set(id, new Promise((r) => (release = r)));
    expect((await generate(id)).response.status).toBe(200);
    await eventually(async () => blocked.has(`${id}:voiceover`), (x) => x, 15_000, 'voiceover running');
    const c = await cancel(id);
    expect(c.data).toMatchObject({ status: 'voiceover_failed', error_code: 'cancelled' });
    // The cancelled run has not stopped yet (its model call is finishing): a new run must wait for it.
    const early = await generate(id);
    expect(early.response.status, JSON.stringify(early.error)).toBe(409);
    expect(early.error!.detail).toBe('The cancelled run is still stopping: try again in a few seconds');
    blocked.delete(`${id}:voiceover`);
    release();
    await eventually(() => jobsOf(h, id), (j) => j.some((x) => x.stage === 'voiceover' && x.state === 'cancelled'), 15_000, 'the run stopped');
    const g = await generate(id);
    expect(g.response.status, JSON.stringify(g.error)).toBe(200);
    await eventually(async () => blocked.has(`${id}:voiceover`), (x) => x, 15_000, 'the new run running');
    // The new run keeps its status: nothing of the cancelled one writes over it.
    expect((await project(id))?.status).toBe('voiceover_started');
    const refs = await h.deps.db.query<{ ref: string; kind: string }>(`SELECT ref, kind FROM minutes_ledger WHERE project_id = $1 ORDER BY id`, [id]);
    expect(refs).toEqual([
      { ref: generationRef(id, 1), kind: 'debit' },
      { ref: generationRef(id, 1), kind: 'refund' },
      { ref: generationRef(id, 2), kind: 'debit' },
    ]);
    expect((await cancel(id)).response.status).toBe(200);
  });

  it('a cancelled analysis starts again from its stage; anything else is 409; a stranger is refused', async () => {
    const r = await createTyped(h, u, { name: 'Restart me', src_lang: 'en', dst_lang: 'es', media_id: mediaId });
    const id = r.data!.id;
    await eventually(() => project(id), (p) => p?.status === 'uploading' && blocked.has(`${id}:ingest`), 15_000, 'ingest running');
    // Nothing was cancelled yet: nothing to start again.
    expect((await restart(id)).response.status).toBe(409);
    expect((await cancel(id)).data).toMatchObject({ status: 'upload_failed', error_code: 'cancelled' });
    await eventually(() => jobsOf(h, id), (j) => j.every((x) => x.state === 'cancelled'), 15_000, 'the job cancelled');
    const stranger = await newUser(h, 'restart-stranger');
    expect((await restart(id, stranger)).response.status).toBe(403);
    blocked.delete(`${id}:ingest`);
    const again = await restart(id);
    expect(again.response.status, JSON.stringify(again.error)).toBe(200);
    expect(again.data).toMatchObject({ status: 'uploading', error_code: null, error_message: null });
    // The stage runs again (its job claimed anew).
    await eventually(async () => blocked.has(`${id}:ingest`), (x) => x, 15_000, 'ingest running again');
    expect((await jobsOf(h, id)).find((j) => j.stage === 'ingest')).toMatchObject({ state: 'running' });
    expect((await cancel(id)).response.status).toBe(200);
    // A cancelled dub is started again with Generate, not restart.
    const dub = await restart(seeded.refund);
    expect(dub.response.status).toBe(409);
    expect(dub.error!.detail).toMatch(/^Only a cancelled analysis can be started again/);
  });

  it('is 409 on a finished project and 403 for someone outside its space', async () => {
    const id = seeded.finished;
    const r = await cancel(id);
    expect(r.response.status).toBe(409);
    expect(r.error!.detail).toBe('Nothing is running on this project: it is "Video is generated"');
    const stranger = await newUser(h, 'stranger');
    expect((await cancel(id, stranger)).response.status).toBe(403);
  });
});

describe('Idempotency-Key', () => {
  it('create_transcript: the same key and body answers the first project again; another body is 422', async () => {
    const body = { name: 'Once', src_lang: 'en', dst_lang: 'es', media_id: mediaId };
    const idempotencyKey = 'create-once-1';
    const count = async () => (await h.deps.db.one<{ n: number }>(`SELECT count(*)::int AS n FROM projects WHERE name = 'Once'`)).n;
    const a = await createTyped(h, u, body, { idempotencyKey });
    expect(a.response.status, JSON.stringify(a.error)).toBe(200);
    const b = await createTyped(h, u, body, { idempotencyKey });
    expect(b.response.status).toBe(200);
    expect(b.response.headers.get('idempotent-replayed')).toBe('true');
    expect(b.data!.id).toBe(a.data!.id);
    expect(await count()).toBe(1);
    const c = await createTyped(h, u, { ...body, name: 'Other' }, { idempotencyKey });
    expect(c.response.status).toBe(422);
    expect(issuesOf(c.error)[0]).toMatchObject({ loc: ['header', 'Idempotency-Key'], type: 'idempotency_key_reused' });
    expect(await count()).toBe(1);
    // Keys belong to their user: another user's same key is a new request.
    const other = await newUser(h, 'idem');
    const om = await uploadOk(h, other, video);
    const d = await createTyped(h, other, { ...body, media_id: om }, { idempotencyKey });
    expect(d.response.status).toBe(200);
    expect(d.data!.id).not.toBe(a.data!.id);
    // A malformed key is 422.
    const bad = await createTyped(h, u, body, { idempotencyKey: 'ä'.repeat(3) });
    expect(bad.response.status).toBe(422);
  });

  it('generate and copy: a retry charges and creates nothing new; a failed call can be retried with its key', async () => {
    const id = seeded.idem;
    await h.deps.db.query(`UPDATE projects SET status = 'voiceover_failed' WHERE id = $1`, [id]);
    // A refused call (nothing to copy into: same language) is not remembered.
    const copy = (dst_lang: string, key: string) =>
      as().POST('/api/project/{id}/copy', { params: { path: { id }, header: { 'Idempotency-Key': key } }, body: { dst_lang, free_dubbing: false } });
    const refused = await copy('en', 'copy-1');
    expect(refused.response.status).toBe(400);
    const copies = async () => (await h.deps.db.one<{ n: number }>(`SELECT count(*)::int AS n FROM projects WHERE copied_from = $1`, [id])).n;
    const c1 = await copy('ca', 'copy-2');
    expect(c1.response.status, JSON.stringify(c1.error)).toBe(200);
    const c2 = await copy('ca', 'copy-2');
    expect(c2.data!.id).toBe(c1.data!.id);
    expect(await copies()).toBe(1);
    const before = await balances(h.deps.db, u.defaultSpaceId);
    const g1 = await generate(id, 'gen-1');
    expect(g1.response.status, JSON.stringify(g1.error)).toBe(200);
    const g2 = await generate(id, 'gen-1');
    expect(g2.response.status).toBe(200);
    expect(g2.response.headers.get('idempotent-replayed')).toBe('true');
    expect((await balances(h.deps.db, u.defaultSpaceId)).minutes.available).toBe(before.minutes.available - 1);
    const debits = await h.deps.db.query(`SELECT 1 FROM minutes_ledger WHERE kind = 'debit' AND project_id = $1`, [id]);
    expect(debits).toHaveLength(1);
  });
});
