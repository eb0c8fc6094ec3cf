// The pipeline runtime with the embedded (in-process) queue: the onDone chain, statuses and progress of
// every stage, failures with their text, double enqueue, concurrency, cancellation, crash and resume.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FAILURE_STATUSES, PROGRESS } from '../../../contract/statuses';
import { MediaError } from '../../../server/media/errors';
import { NON_FATAL, failureOf } from '../../../server/domains/projects/pipeline/hooks';
import { InProcessQueue } from '../../../server/jobs/queue';
import { claimJob, requestCancel, upsertQueuedJob } from '../../../server/jobs/repository';
import { ON_DONE, STAGE_STATUS, StageFailure, setStatus, type StageName } from '../../../server/domains/projects/pipeline/stages';
import { createHarness, type Harness } from '../../server/harness';
import { replacePipeline } from '../../server/projects/projects-fixtures';
import { barrier } from '../../fixtures/barrier';
import { jobRows, projectRow, projectState, recorder, recordingHandlers, untilAborted, waitFor } from './queue-helpers';

let h: Harness;
beforeAll(async () => {
  h = await createHarness();
});
afterAll(async () => {
  await h.deps.pipeline?.stop({ force: true });
  await h?.close();
});

const ANALYSIS: StageName[] = [
  'ingest', 'separate_background', 'transcribe_segments', 'transcription', 'determine_speakers', 'voice_suggest', 'translation',
];

describe('the onDone chain', () => {
  it('runs the analysis stages in order, each started with its status and progress, and stops at translation_done', async () => {
    const rec = recorder();
    const p = await replacePipeline(h, { handlers: recordingHandlers(h, rec) });
    await p.startWorker(1);
    const id = await projectRow(h);
    await p.enqueue(id, 'ingest');
    const end = await waitFor(() => projectState(h, id), (s) => s?.status === 'translation_done', 20_000, 'translation_done');
    expect(end).toMatchObject({ progress: 100, error_code: null, error_message: null });
    expect(rec.calls.map((c) => c.stage)).toEqual(ANALYSIS);
    for (const c of rec.calls) {
      const started = STAGE_STATUS[c.stage]!.started;
      expect(c.statusAtStart, c.stage).toBe(started);
      expect(c.progressAtStart, c.stage).toBe(PROGRESS[started]);
    }
    const jobs = await jobRows(h, id);
    expect(jobs.map((j) => [j.stage, j.state])).toEqual(expect.arrayContaining(ANALYSIS.map((s) => [s, 'done'])));
    expect(jobs).toHaveLength(ANALYSIS.length);
    // generate: voiceover then merging
    await setStatus(h.deps.db, id, 'voiceover_started');
    await p.enqueue(id, 'voiceover');
    await waitFor(() => projectState(h, id), (s) => s?.status === 'merging_done', 20_000, 'merging_done');
    expect(rec.calls.slice(-2).map((c) => [c.stage, c.statusAtStart])).toEqual([
      ['voiceover', 'voiceover_started'], ['merging', 'merging_started'],
    ]);
    await p.stop();
  });

  it('has one onDone edge per stage and a failure status for each fatal stage', () => {
    for (const [stage, next] of Object.entries(ON_DONE)) {
      if (next) expect(STAGE_STATUS[next as StageName] ?? 'side task', stage).not.toBeNull();
      const st = STAGE_STATUS[stage as StageName];
      if (st && !NON_FATAL.has(stage as StageName)) expect(FAILURE_STATUSES as readonly string[]).toContain(st.failed);
    }
    expect([...NON_FATAL]).toEqual(['voice_suggest']);
  });

  it('a voice_suggest failure is recorded and the pipeline goes on to the translation', async () => {
    const rec = recorder();
    const p = await replacePipeline(h, {
      handlers: recordingHandlers(h, rec, { override: { voice_suggest: async () => { throw new Error('no voice for that gender'); } } }),
    });
    await p.startWorker(1);
    const id = await projectRow(h);
    await p.enqueue(id, 'ingest');
    await waitFor(() => projectState(h, id), (s) => s?.status === 'translation_done', 20_000, 'translation_done');
    expect((await jobRows(h, id)).find((j) => j.stage === 'voice_suggest')).toMatchObject({ state: 'failed', error: 'no voice for that gender' });
    expect(rec.calls.map((c) => c.stage)).toEqual(ANALYSIS);
    await p.stop();
  });
});

describe('failures', () => {
  it('a stage that throws ends in its failure status with the error text; nothing stays *_started', async () => {
    const rec = recorder();
    const p = await replacePipeline(h, {
      handlers: recordingHandlers(h, rec, { override: { transcription: async () => { throw new Error('pocketsphinx crashed: exit 139'); } } }),
    });
    await p.startWorker(1);
    const id = await projectRow(h);
    await p.enqueue(id, 'ingest');
    const s = await waitFor(() => projectState(h, id), (x) => x?.status === 'transcription_failed', 20_000, 'transcription_failed');
    expect(s).toEqual({ status: 'transcription_failed', progress: 100, error_code: 'transcription_failed', error_message: 'pocketsphinx crashed: exit 139' });
    const jobs = await jobRows(h, id);
    expect(jobs.find((j) => j.stage === 'transcription')).toMatchObject({ state: 'failed', error: 'pocketsphinx crashed: exit 139' });
    // Stopping waits for every running stage: after it nothing can write, so this is the final state.
    await p.stop();
    expect((await projectState(h, id))!.status).toBe('transcription_failed');
    expect((await jobRows(h, id)).map((j) => j.stage)).not.toContain('determine_speakers');
  });

  it('maps errors to statuses: StageFailure as given, media errors by code, anything else to the stage failure', () => {
    expect(failureOf('transcription', new StageFailure('no_words', 'No words'))).toEqual({ status: 'no_words', message: 'No words', code: undefined });
    expect(failureOf('ingest', new MediaError('no_audio', 'x'))).toMatchObject({ status: 'no_audio', code: 'no_audio' });
    expect(failureOf('ingest', new MediaError('forbidden_link', 'Could not download the video from this link: 404'))).toEqual({
      status: 'forbidden_link', message: 'Could not download the video from this link: 404', code: 'forbidden_link',
    });
    expect(failureOf('ingest', new MediaError('corrupt', 'bad file'))).toMatchObject({ status: 'upload_failed', code: 'corrupt' });
    expect(failureOf('merging', new MediaError('corrupt', 'bad file'))).toMatchObject({ status: 'merging_failed' });
    expect(failureOf('voiceover', new Error('espeak-ng is not installed'))).toEqual({ status: 'voiceover_failed', message: 'espeak-ng is not installed' });
    expect(failureOf('burn_subtitles', new Error('x')).status).toBeNull();
  });

  it('an expected failure ends in its own status (no_words)', async () => {
    const rec = recorder();
    const p = await replacePipeline(h, {
      handlers: recordingHandlers(h, rec, {
        override: {
          transcribe_segments: async () => { throw new StageFailure('no_words', 'No speech was found in the video', 'no_speech'); },
        },
      }),
    });
    await p.startWorker(1);
    const id = await projectRow(h);
    await p.enqueue(id, 'ingest');
    const s = await waitFor(() => projectState(h, id), (x) => x?.status === 'no_words', 20_000, 'no_words');
    expect(s).toMatchObject({ progress: 100, error_code: 'no_speech', error_message: 'No speech was found in the video' });
    await p.stop();
  });
});

describe('queueing', () => {
  it('runs a job once when it is enqueued twice', async () => {
    const rec = recorder();
    const p = await replacePipeline(h, { handlers: recordingHandlers(h, rec, { delayMs: 100 }) });
    const id = await projectRow(h, 'translation_done');
    await setStatus(h.deps.db, id, 'voiceover_started');
    expect(await p.enqueue(id, 'voiceover')).toBe(true);
    expect(await p.enqueue(id, 'voiceover')).toBe(false);
    await p.startWorker(2);
    expect(await p.enqueue(id, 'voiceover')).toBe(false);
    await waitFor(() => projectState(h, id), (x) => x?.status === 'merging_done', 20_000, 'merging_done');
    expect(rec.calls.filter((c) => c.stage === 'voiceover')).toHaveLength(1);
    await p.stop();
  });

  it('runs at most `concurrency` stages at a time', async () => {
    const rec = recorder();
    // The first two ingests wait for each other: two stages surely overlap, however slow the machine.
    const twoRunning = barrier(2, 20_000);
    const p = await replacePipeline(h, {
      handlers: recordingHandlers(h, rec, { delayMs: 50, override: { ingest: () => twoRunning() } }),
    });
    await p.startWorker(2);
    const ids = [await projectRow(h), await projectRow(h), await projectRow(h)];
    for (const id of ids) await p.enqueue(id, 'ingest');
    for (const id of ids) await waitFor(() => projectState(h, id), (x) => x?.status === 'translation_done', 30_000, 'translation_done');
    expect(rec.maxRunning).toBe(2);
    await p.stop();
  });

  it('the in-process queue ignores a job id that is waiting or running', async () => {
    const seen: string[] = [];
    const q = new InProcessQueue();
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    await q.startProcessing(async (j) => {
      seen.push(j.stage);
      await gate;
    }, 1);
    await q.push({ subject: 'p', stage: 'ingest' });
    await q.push({ subject: 'p', stage: 'ingest' });
    await q.push({ subject: 'p', stage: 'merging' });
    await q.push({ subject: 'p', stage: 'merging' });
    release();
    await q.idle();
    expect(seen).toEqual(['ingest', 'merging']);
    await q.close();
  });
});

describe('cancellation and crashes', () => {
  it('deleting a project aborts its running stage; nothing is written afterwards', async () => {
    const rec = recorder();
    let aborted = false;
    const p = await replacePipeline(h, {
      handlers: recordingHandlers(h, rec, {
        override: {
          separate_background: async (ctx) => {
            try {
              await untilAborted(ctx.signal);
            } finally {
              aborted = ctx.signal.aborted;
            }
          },
        },
      }),
    });
    await p.startWorker(1);
    const id = await projectRow(h);
    await p.enqueue(id, 'ingest');
    await waitFor(() => projectState(h, id), (x) => x?.status === 'separate_background_started', 20_000, 'separate_background_started');
    await p.cancel(id);
    await h.deps.db.query('DELETE FROM projects WHERE id = $1', [id]);
    await waitFor(async () => aborted, (x) => x, 20_000, 'abort');
    // Stopping waits for the aborted stage to wind up: after it nothing can write, so this is the final state.
    await p.stop();
    expect(await projectState(h, id)).toBeNull();
    expect(rec.calls.map((c) => c.stage)).toEqual(['ingest', 'separate_background']);
    await p.stop();
  });

  it('a cancel seen through the heartbeat (another process) aborts the stage too', async () => {
    let sawAbort = false;
    const rec = recorder();
    const p = await replacePipeline(h, {
      handlers: recordingHandlers(h, rec, {
        override: {
          ingest: async (ctx) => {
            await untilAborted(ctx.signal).catch(() => {
              sawAbort = true;
              throw new DOMException('aborted', 'AbortError');
            });
          },
        },
      }),
    });
    await p.startWorker(1);
    const id = await projectRow(h);
    await p.enqueue(id, 'ingest');
    await waitFor(() => projectState(h, id), (x) => x?.status === 'uploading', 20_000, 'uploading');
    // Another process asks for cancellation in the database only.
    await h.deps.db.query('UPDATE pipeline_jobs SET cancel_requested = true WHERE project_id = $1', [id]);
    await waitFor(async () => sawAbort, (x) => x, 20_000, 'heartbeat abort');
    // The runtime closes the job, then writes the project's failure status: stopping waits for both.
    await p.stop();
    const jobs = await jobRows(h, id);
    expect(jobs[0]!.state).toBe('cancelled');
    // The project is kept: it ends in the stage's failure status, not *_started.
    expect(await projectState(h, id)).toMatchObject({ status: 'upload_failed', error_code: 'cancelled', error_message: 'The processing was cancelled' });
  });

  it('a stage that ends after a cancel its heartbeat has not seen yet (another process) is not recorded done: the cancel stands', async () => {
    // The scale-out race the chaos test found: the API records the cancel (status, refund) while a worker's merge is
    // finishing; the worker must not then write merging_done (a delivered generation that was also refunded).
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    let entered!: () => void;
    const inside = new Promise<void>((r) => (entered = r));
    const rec = recorder();
    const p = await replacePipeline(h, {
      heartbeatMs: 60_000,
      handlers: recordingHandlers(h, rec, { override: { merging: async () => { entered(); await gate; } } }),
    });
    await p.startWorker(1);
    const id = await projectRow(h, 'voiceover_done');
    await h.deps.db.query('UPDATE projects SET generation = 1 WHERE id = $1', [id]);
    await p.enqueue(id, 'merging');
    await inside;
    // Another process cancels, in the database only (this worker's controllers are not told).
    await h.deps.db.tx(async (t) => {
      await t.query('SELECT 1 FROM projects WHERE id = $1 FOR UPDATE', [id]);
      await requestCancel(t, id);
      await setStatus(t, id, 'merging_failed', { error_code: 'cancelled', message: 'The processing was cancelled' });
    });
    release();
    await waitFor(() => jobRows(h, id), (j) => j[0]?.state !== 'running', 20_000, 'job closed');
    await p.stop();
    expect((await jobRows(h, id)).map((j) => [j.stage, j.state])).toEqual([['merging', 'cancelled']]);
    expect(await projectState(h, id)).toMatchObject({ status: 'merging_failed', error_code: 'cancelled' });
    const row = await h.deps.db.one<{ dubbed_generation: number | null }>('SELECT dubbed_generation FROM projects WHERE id = $1', [id]);
    expect(row.dubbed_generation).toBeNull();
  });

  it('a worker killed mid-stage: the stale *_started stage is swept and resumed by the next worker', async () => {
    const rec = recorder();
    let firstRun = true;
    const handlers = recordingHandlers(h, rec, {
      override: {
        transcription: async (ctx) => {
          if (firstRun) {
            firstRun = false;
            await untilAborted(ctx.signal); // never finishes: the process "dies" here
          }
        },
      },
    });
    const a = await replacePipeline(h, { handlers, owner: 'worker-a' });
    await a.startWorker(1);
    const id = await projectRow(h);
    await a.enqueue(id, 'ingest');
    await waitFor(() => projectState(h, id), (x) => x?.status === 'transcription_started', 20_000, 'transcription_started');
    await a.crash();
    // The crash left the stage as a dead process would: *_started, its job 'running' with a heartbeat going stale.
    expect((await projectState(h, id))!.status).toBe('transcription_started');
    expect((await jobRows(h, id)).find((j) => j.stage === 'transcription')).toMatchObject({ state: 'running', attempts: 1 });

    // A new worker (say, the restarted server) on the same database.
    const b = await replacePipeline(h, { handlers, owner: 'worker-b', staleSec: 1 });
    await b.startWorker(1);
    const s = await waitFor(() => projectState(h, id), (x) => x?.status === 'translation_done', 20_000, 'resumed to translation_done');
    expect(s!.error_message).toBeNull();
    expect((await jobRows(h, id)).find((j) => j.stage === 'transcription')).toMatchObject({ state: 'done', attempts: 2 });
    expect(rec.calls.filter((c) => c.stage === 'transcription')).toHaveLength(2);
    await b.stop();
  });

  it('a job row queued for this process that its in-memory queue lost is pushed again by the sweep', async () => {
    const rec = recorder();
    const p = await replacePipeline(h, { handlers: recordingHandlers(h, rec), staleSec: 1 });
    await p.startWorker(1);
    const id = await projectRow(h);
    await setStatus(h.deps.db, id, 'determine_speakers_done');
    // Queued for this process, but its entry never reached (or was dropped by) the in-memory queue.
    expect(await upsertQueuedJob(h.deps.db, id, 'voice_suggest', p.owner, 1)).toBe(0);
    await waitFor(() => projectState(h, id), (x) => x?.status === 'translation_done', 20_000, 'translation_done');
    expect(rec.calls.filter((c) => c.projectId === id).map((c) => c.stage)).toEqual(['voice_suggest', 'translation']);
    await p.stop();
  });

  it('each queueing of a job row is a new run: queued again after a cancel, the job is not swallowed', async () => {
    const p = await replacePipeline(h, { handlers: recordingHandlers(h, recorder()), staleSec: 1 });
    const id = await projectRow(h);
    expect(await upsertQueuedJob(h.deps.db, id, 'translation', p.owner, 1)).toBe(0);
    await requestCancel(h.deps.db, id);
    expect(await upsertQueuedJob(h.deps.db, id, 'translation', p.owner, 1)).toBe(1);
    expect(await upsertQueuedJob(h.deps.db, id, 'translation', p.owner, 1)).toBeNull(); // already queued
    await p.stop();
  });

  it("a queue's copy of an earlier run (deferred, then cancelled and queued again) is not run: one run of a stage never runs twice at once", async () => {
    const rec = recorder();
    const p = await replacePipeline(h, { handlers: recordingHandlers(h, rec), staleSec: 30 });
    const id = await projectRow(h);
    expect(await upsertQueuedJob(h.deps.db, id, 'translation', p.owner, 30)).toBe(0);
    await requestCancel(h.deps.db, id);
    expect(await upsertQueuedJob(h.deps.db, id, 'translation', p.owner, 30)).toBe(1);
    const jobId = `${id}-translation`;
    // The old copy (run 0) comes back from the queue first: refused, the row stays queued for run 1.
    expect(await claimJob(h.deps.db, jobId, p.owner, 30, 0)).toBeNull();
    expect((await jobRows(h, id)).map((j) => j.state)).toEqual(['queued']);
    // Run 1 is claimed; the old copy arriving again at this same worker while run 1 runs is still refused.
    expect(await claimJob(h.deps.db, jobId, p.owner, 30, 1)).toMatchObject({ state: 'running' });
    expect(await claimJob(h.deps.db, jobId, p.owner, 30, 0)).toBeNull();
    // A payload without a run (older queues) keeps the former rule.
    expect(await claimJob(h.deps.db, jobId, p.owner, 30)).toMatchObject({ state: 'running' });
    await p.stop();
  });

  it('a project left between stages without a queued job is resumed by the sweep', async () => {
    const rec = recorder();
    const p = await replacePipeline(h, { handlers: recordingHandlers(h, rec), staleSec: 1 });
    const id = await projectRow(h);
    await setStatus(h.deps.db, id, 'separate_background_done'); // killed after the status, before queueing
    await h.deps.db.query(`UPDATE projects SET updated_at = now() - interval '1 minute' WHERE id = $1`, [id]);
    await p.startWorker(1);
    await waitFor(() => projectState(h, id), (x) => x?.status === 'translation_done', 20_000, 'translation_done');
    expect(rec.calls.filter((c) => c.projectId === id).map((c) => c.stage)).toEqual(ANALYSIS.slice(2));
    await p.stop();
  });

  it('a project left at a non-fatal failure (voice_suggest_failed) without a queued job goes on to translation; a cancelled one stays', async () => {
    const rec = recorder();
    const p = await replacePipeline(h, { handlers: recordingHandlers(h, rec), staleSec: 1 });
    const failed = await projectRow(h);
    const cancelled = await projectRow(h);
    await setStatus(h.deps.db, failed, 'voice_suggest_failed', { error_code: 'failed', message: 'No voice' }); // the next stage's queueing lost
    await setStatus(h.deps.db, cancelled, 'voice_suggest_failed', { error_code: 'cancelled', message: 'The processing was cancelled' });
    await h.deps.db.query(`UPDATE projects SET updated_at = now() - interval '1 minute' WHERE id IN ($1, $2)`, [failed, cancelled]);
    await p.startWorker(1);
    await waitFor(() => projectState(h, failed), (x) => x?.status === 'translation_done', 20_000, 'translation_done');
    expect(rec.calls.filter((c) => c.projectId === failed).map((c) => c.stage)).toEqual(['translation']);
    await p.sweep(1);
    expect((await projectState(h, cancelled))?.status).toBe('voice_suggest_failed');
    expect(rec.calls.filter((c) => c.projectId === cancelled)).toEqual([]);
    await p.stop();
  });
});
