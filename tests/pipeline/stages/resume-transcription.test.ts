// A long transcription resumes where it stopped: the stage works in chunks of speech, each finished chunk is kept
// (pipeline_checkpoints); a worker that stops in the middle (here a shutdown while the other chunks are in flight)
// hands the job back, and the next worker transcribes only the chunks that were not finished. The transcript is
// the one an uninterrupted run gives, and no checkpoint is left behind.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AsrEngine } from '../../../server/engines/types';
import { makeSpeechVideo } from '../../fixtures/media';
import { createHarness, type Harness } from '../../server/harness';
import { eventually } from '../../server/helpers';
import { createTyped, newUser, replacePipeline, uploadOk, waitForStatus, type TestUser } from '../../server/projects/projects-fixtures';
import { typedClient } from '../../server/typed-client';
import { grantPlan } from '../../server/spaces/spaces-fixtures';

let h: Harness;
let u: TestUser;
let mediaId: string;
/** Chunk calls by their first region's start, per run. */
const calls: number[] = [];
/** While set, every chunk but the first blocks until its stage is aborted (the worker stops mid-stage). */
let stallAfterFirst = false;

beforeAll(async () => {
  // Several chunks whatever the machine's CPU count (the plan makes at least one chunk per CPU slot).
  h = await createHarness({ PIPELINE_CPU_SLOTS: '3' });
  expect(h.deps.tools.slots.limit).toBe(3);
  u = await newUser(h, 'resume');
  await grantPlan(h, u.id, 'business');
  mediaId = await uploadOk(h, u, await makeSpeechVideo({ seconds: 40 }));
  const engines = h.deps.engines;
  const realAsrFor = engines.asrFor.bind(engines);
  engines.asrFor = async (lang) => {
    const real = await realAsrFor(lang);
    if (!real) return real;
    const wrapped: AsrEngine = Object.create(real) as AsrEngine;
    wrapped.transcribe = async (wav, regions, l, o) => {
      // A second decode of the separation's speech estimate (where it removed something) goes with its chunk.
      if (wav.includes('speech_16k')) return real.transcribe(wav, regions, l, o);
      const first = regions[0]!.start;
      // Chunks start in order: the first call of a run is chunk 0.
      const index = calls.push(first) - 1;
      if (stallAfterFirst && index > 0 && o?.signal) {
        await new Promise<never>((_, reject) => o.signal!.addEventListener('abort', () => reject(new DOMException('stopped', 'AbortError')), { once: true }));
      }
      return real.transcribe(wav, regions, l, o);
    };
    return wrapped;
  };
}, 180_000);
afterAll(async () => {
  await h?.close();
});

async function create(name: string): Promise<string> {
  const r = await createTyped(h, u, { name, src_lang: 'en', dst_lang: 'es', media_id: mediaId });
  expect(r.response.status, JSON.stringify(r.error)).toBe(200);
  return r.data!.id;
}

/** Where the analysis stops and waits for its user, or a failure. */
const settled = (s: string) => s === 'translation_done' || /failed|^no_/.test(s);

const transcriptOf = async (id: string) => {
  const t = await typedClient(h, u.token).GET('/api/project/{id}/transcript', { params: { path: { id } } });
  expect(t.response.status, JSON.stringify(t.error)).toBe(200);
  return t.data!.segments.map((s) => [s.start, s.end, s.src.text]);
};

describe('transcription checkpoints', () => {
  it('a restart mid-transcription transcribes only the chunks that were not finished', async () => {
    // Reference: one uninterrupted run.
    let p = await replacePipeline(h);
    await p.startWorker(1);
    const reference = await create('Reference');
    expect((await waitForStatus(h, u, reference, settled, 240_000)).status).not.toMatch(/failed/);
    const chunks = calls.length;
    const chunk0 = Math.min(...calls);
    expect(chunks).toBeGreaterThanOrEqual(2);
    const expected = await transcriptOf(reference);
    expect(expected.length).toBeGreaterThan(2);

    // The run that stops: the first chunk finishes and is kept, the other two are in flight when the worker stops.
    calls.length = 0;
    stallAfterFirst = true;
    p = await replacePipeline(h);
    await p.startWorker(1);
    const id = await create('Interrupted');
    const saved = async () => (await h.deps.db.query<{ chunk: number }>(`SELECT chunk FROM pipeline_checkpoints WHERE project_id = $1 AND stage = 'transcription'`, [id])).map((r) => r.chunk);
    await eventually(async () => ({ saved: await saved(), calls: calls.length }), (x) => x.saved.length === 1 && x.calls === chunks, 240_000, 'one chunk kept, the others in flight');
    expect(await saved()).toEqual([0]);
    await p.stop({ force: true });
    const job = await h.deps.db.one<{ state: string }>(`SELECT state FROM pipeline_jobs WHERE project_id = $1 AND stage = 'transcription'`, [id]);
    expect(job.state).toBe('queued');

    // The next worker: only the unfinished chunks are transcribed, and the transcript is the same.
    calls.length = 0;
    stallAfterFirst = false;
    p = await replacePipeline(h);
    await p.startWorker(1);
    const done = await waitForStatus(h, u, id, settled, 240_000);
    expect(done.status).not.toMatch(/failed/);
    expect(calls).toHaveLength(chunks - 1);
    expect(calls).not.toContain(chunk0);
    expect(await transcriptOf(id)).toEqual(expected);
    expect(await saved()).toEqual([]);
  }, 600_000);
});
