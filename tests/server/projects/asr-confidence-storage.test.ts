// Honest recognition confidence (issue 33 part 3) through the pipeline and over HTTP: the built-in recognizer's
// calibrated word confidences and the segment's confidence are stored (segments.words, segments.asr_confidence)
// and answered by GET /api/project/{id}/transcript to the owner only; a server that scores segments but not words
// (an OpenAI-compatible one: avg_logprob, no_speech_prob) has its segment score stored too; the quality report
// made from the stored segments is no longer blind to confidence.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as v from 'valibot';
import { TranscriptResponse } from '../../../contract/schemas/project';
import { DOUBTFUL_WORD_CONFIDENCE } from '../../../contract/confidence';
import type { AsrEngine } from '../../../server/engines/types';
import { analyseQuality } from '../../../server/domains/projects/quality';
import { segmentsOf } from '../../../server/domains/projects/transcript/repository';
import { makeSpeechVideo } from '../../fixtures/media';
import { createHarness, type Harness } from '../harness';
import { typedClient } from '../typed-client';
import { newUser, replacePipeline, uploadOk, waitForStatus, type TestUser } from './projects-fixtures';
import { grantPlan } from '../spaces/spaces-fixtures';

let h: Harness;
let owner: TestUser;
let stranger: TestUser;
let mediaId: string;
/** When set, the recognizer is replaced by one answering like an OpenAI-compatible server (segment scores only). */
let segmentScoresOnly = false;

beforeAll(async () => {
  h = await createHarness();
  owner = await newUser(h, 'conf-owner');
  stranger = await newUser(h, 'conf-stranger');
  await grantPlan(h, owner.id, 'business');
  mediaId = await uploadOk(h, owner, await makeSpeechVideo({ seconds: 8 }));
  const engines = h.deps.engines;
  const realAsrFor = engines.asrFor.bind(engines);
  engines.asrFor = async (lang) => {
    const real = await realAsrFor(lang);
    if (!real || !segmentScoresOnly) return real;
    const whisperLike: AsrEngine = {
      id: 'whisper-like',
      languages: () => ['en'],
      transcribe: async (_wav, regions) =>
        regions.map((r, i) => ({
          start: r.start, end: r.end, text: `Segment number ${i}`, confidence: i === 0 ? 0.412 : 0.9,
          words: [{ text: 'Segment', start: r.start, end: r.start + 0.3 }, { text: 'number', start: r.start + 0.3, end: r.start + 0.6 }],
        })),
    };
    return whisperLike;
  };
  await (await replacePipeline(h)).startWorker(1);
}, 180_000);
afterAll(async () => {
  await h?.close();
});

async function transcribed(name: string): Promise<string> {
  const r = await typedClient(h, owner.token).POST('/api/project/create_transcript', {
    params: { query: { space_id: owner.defaultSpaceId } }, body: { name, src_lang: 'en', dst_lang: 'es', media_id: mediaId },
  });
  expect(r.response.status, JSON.stringify(r.error)).toBe(200);
  const done = await waitForStatus(h, owner, r.data!.id, (s) => s === 'translation_done' || /failed|^no_/.test(s), 300_000);
  expect(done.status).toBe('translation_done');
  return r.data!.id;
}
const transcriptAs = (u: TestUser, id: string) => typedClient(h, u.token).GET('/api/project/{id}/transcript', { params: { path: { id } } });

describe('recognition confidence is stored and answered', () => {
  it('pocketsphinx: every recognised word has a calibrated confidence, each segment its duration-weighted score', async () => {
    const id = await transcribed('Scored');
    const t = await transcriptAs(owner, id);
    expect(t.response.status).toBe(200);
    expect(v.is(TranscriptResponse, t.data)).toBe(true);
    const segs = t.data!.segments;
    expect(segs.length).toBeGreaterThan(0);
    for (const s of segs) {
      expect(s.words!.length).toBeGreaterThan(0);
      for (const w of s.words!) {
        expect(w.confidence).toBeGreaterThanOrEqual(0);
        expect(w.confidence).toBeLessThanOrEqual(1);
      }
      // the segment's score is its words' confidences weighted by their durations
      let num = 0;
      let den = 0;
      for (const w of s.words!) {
        const d = Math.max(0.01, w.end - w.start);
        num += d * w.confidence!;
        den += d;
      }
      expect(s.asr_confidence).toBeCloseTo(num / den, 2);
    }
    // stored in the database, and the quality report made from the stored rows reports it (no longer null)
    const rows = await segmentsOf(h.deps.db, id);
    expect(rows.every((r) => typeof r.asr_confidence === 'number')).toBe(true);
    const env = { hopSec: 0.02, rms: new Float32Array(500) };
    const report = analyseQuality({
      projectId: id, generation: 1, duration: 10, segments: rows, glossary: [], voice: env, output: null, source: null, loudnessLufs: null, sourceLoudnessLufs: null,
    });
    expect(report.segments.every((s) => s.asr_confidence !== null)).toBe(true);
    const doubtful = rows.flatMap((r) => (r.words ?? []).filter((w) => w.confidence! < DOUBTFUL_WORD_CONFIDENCE));
    expect(report.doubtful_words).toBe(doubtful.length);

    // the transcript is the owner's: a stranger gets no words nor scores
    const other = await transcriptAs(stranger, id);
    expect([403, 404]).toContain(other.response.status);
    expect(other.data).toBeUndefined();
    expect(JSON.stringify(other.error)).not.toContain('asr_confidence');
  }, 400_000);

  it('a server that scores segments only (avg_logprob, no_speech_prob): the segment score is stored, words stay unscored', async () => {
    segmentScoresOnly = true;
    try {
      const id = await transcribed('Segment scores');
      const t = await transcriptAs(owner, id);
      expect(t.response.status).toBe(200);
      const segs = t.data!.segments;
      expect(segs.length).toBeGreaterThan(0);
      expect(segs[0]).toMatchObject({ src: { text: 'Segment number 0' }, asr_confidence: 0.412 });
      // no word carries a score: none is sent for shading
      expect(segs.every((s) => s.words === undefined)).toBe(true);
      const rows = await segmentsOf(h.deps.db, id);
      expect(rows.find((r) => r.src_text === 'Segment number 0')!.asr_confidence).toBe(0.412);
    } finally {
      segmentScoresOnly = false;
    }
  }, 400_000);
});
