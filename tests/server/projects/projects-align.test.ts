// The text a user already has (issue 33): a plain-text transcript or a source SRT given at creation is aligned to
// the speech instead of recognised. The clip is LibriVox sentences placed at known offsets with 0.7 s of silence
// between them, so each sentence's true span is known; the words must be the given ones and their times those of
// the voice, not a recognition's words nor the cue times.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeSpeechTrack, makeSpeechVideo, tempDir, type LibrivoxId, type SpeechTrack } from '../../fixtures/media';
import { createHarness, type Harness } from '../harness';
import type { components } from '../../../src/lib/api/schema';
import { typedClient } from '../typed-client';
import { createProject, newUser, replacePipeline, srtText, uploadOk, waitForStatus, type TestUser } from './projects-fixtures';
import { grantPlan } from '../spaces/spaces-fixtures';

// The readings as a person would write them (case and punctuation), in the clip's order.
const SENTENCES: Record<LibrivoxId, string> = {
  '0870': 'And Mister John Dashwood had then leisure to consider how much there might be prudently in his power to do for them.',
  '0880': 'He was not an ill-disposed young man,',
  '0890': 'unless to be rather cold-hearted and rather selfish is to be ill-disposed.',
  '0920': 'Had he married a more amiable woman, he might have been made still more respectable than he was;',
  '0930': 'he might even have been made amiable himself.',
};

let h: Harness;
let u: TestUser;
let track: SpeechTrack;
let mediaId: string;
const dir = tempDir('align-');
const logs: Array<Record<string, unknown>> = [];

beforeAll(async () => {
  h = await createHarness();
  u = await newUser(h, 'align');
  // Subtitles and a given transcript are plan features (server/app/gates.ts).
  await grantPlan(h, u.id, 'business');
  // the five readings, 0.7 s apart (the same track as the video's sound)
  track = await makeSpeechTrack();
  mediaId = await uploadOk(h, u, await makeSpeechVideo());
  const p = await replacePipeline(h, { log: (msg, meta) => logs.push({ msg, ...meta }) });
  await p.startWorker(1);
}, 120_000);
afterAll(async () => {
  await h?.close();
});

interface SegRow {
  start_sec: number;
  end_sec: number;
  src_text: string;
  words: Array<{ text: string; start: number; end: number }> | null;
}
async function segmentRows(projectId: string): Promise<SegRow[]> {
  return h.deps.db.query<SegRow>(`SELECT start_sec, end_sec, src_text, words FROM segments WHERE project_id = $1 ORDER BY start_sec`, [projectId]);
}
const done = (s: string) => s === 'translation_done' || /failed|^no_/.test(s);
const create = (body: components['schemas']['CreateTranscriptRequest']) =>
  typedClient(h, u.token).POST('/api/project/create_transcript', { params: { query: { space_id: u.defaultSpaceId } }, body });

describe('a given transcript is aligned to the speech', () => {
  it('a plain-text transcript: the words are the given ones, one segment per sentence, timed from the voice', async () => {
    const text = `${SENTENCES['0870']}\n${SENTENCES['0880']} ${SENTENCES['0890']}\n\n${SENTENCES['0920']} ${SENTENCES['0930']}`;
    const r = await create({ name: 'Plain text', src_lang: 'en', dst_lang: 'es', media_id: mediaId, src_text: text });
    expect(r.response.status, JSON.stringify(r.error)).toBe(200);
    const id = r.data!.id;
    const p = await waitForStatus(h, u, id, done, 150_000);
    expect(p.status).toBe('translation_done');
    const t = await typedClient(h, u.token).GET('/api/project/{id}/transcript', { params: { path: { id } } });
    // segments follow the sentences (".", line breaks); the text is exactly the user's
    expect(t.data!.segments.map((s) => s.src.text)).toEqual([
      SENTENCES['0870'], `${SENTENCES['0880']} ${SENTENCES['0890']}`, `${SENTENCES['0920']} ${SENTENCES['0930']}`,
    ]);
    const rows = await segmentRows(id);
    const words = rows.flatMap((s) => s.words ?? []);
    expect(words.map((w) => w.text).join(' ')).toBe(text.replace(/\s+/g, ' '));
    // each reading's first and last word sit on the voice: inside the clip (plus a frame), near its edges
    let k = 0;
    for (const turn of track.turns) {
      const n = SENTENCES[turn.source].split(' ').length;
      const first = words[k]!;
      const last = words[k + n - 1]!;
      k += n;
      expect(first.start, `${turn.source} first word`).toBeGreaterThanOrEqual(turn.start - 0.05);
      expect(first.start, `${turn.source} first word`).toBeLessThan(turn.start + 0.45);
      expect(last.end, `${turn.source} last word`).toBeLessThanOrEqual(turn.end + 0.05);
      expect(last.end, `${turn.source} last word`).toBeGreaterThan(turn.end - 0.6);
      // no word spills into the 0.7 s pause between readings
      for (const w of words.slice(k - n, k)) expect(w.start >= turn.start - 0.05 && w.end <= turn.end + 0.05, JSON.stringify(w)).toBe(true);
    }
    // the sentence segments span their words
    expect(rows[0]!.start_sec).toBeCloseTo(words[0]!.start, 2);
  }, 180_000);

  it('a source SRT: the cues stay the segments, their words are timed from the voice (not spread over the cue)', async () => {
    const [a, b] = track.turns;
    // cues that start early and end late, as subtitles often do
    const srt = join(dir, 'source.srt');
    writeFileSync(srt, srtText([[Math.max(0, a!.start - 0.25), a!.end + 0.4, SENTENCES['0870']], [b!.start - 0.3, b!.end + 0.3, 'He was not an ill disposed young man.']]));
    const src = await uploadOk(h, u, srt, { kind: 'srt' });
    const r = await create({ name: 'SRT', src_lang: 'en', dst_lang: 'es', media_id: mediaId, src_srt_media_id: src });
    expect(r.response.status, JSON.stringify(r.error)).toBe(200);
    const p = await waitForStatus(h, u, r.data!.id, done, 150_000);
    expect(p.status).toBe('translation_done');
    const rows = await segmentRows(r.data!.id);
    expect(rows.map((s) => s.src_text)).toEqual([SENTENCES['0870'], 'He was not an ill disposed young man.']);
    expect(rows[0]!.start_sec).toBeCloseTo(Math.max(0, a!.start - 0.25), 2);
    const w0 = rows[0]!.words!;
    const w1 = rows[1]!.words!;
    expect(w0.map((w) => w.text).join(' ')).toBe(SENTENCES['0870']);
    expect(w1.map((w) => w.text)).toEqual(['He', 'was', 'not', 'an', 'ill', 'disposed', 'young', 'man.']);
    for (const [ws, turn] of [[w0, a!], [w1, b!]] as const) {
      expect(ws[0]!.start).toBeGreaterThanOrEqual(turn.start - 0.05);
      expect(ws[0]!.start).toBeLessThan(turn.start + 0.45);
      expect(ws[ws.length - 1]!.end).toBeLessThanOrEqual(turn.end + 0.05);
    }
  }, 180_000);

  it('a language without an acoustic model: the given words, timed over the speech by length, and the log says so', async () => {
    const text = 'Y el señor John Dashwood tuvo entonces tiempo de pensar cuánto podría hacer por ellas. No era un joven malintencionado.';
    const r = await create({ name: 'Spanish text', src_lang: 'es', dst_lang: 'en', media_id: mediaId, src_text: text });
    expect(r.response.status, JSON.stringify(r.error)).toBe(200);
    const id = r.data!.id;
    const p = await waitForStatus(h, u, id, done, 150_000);
    expect(p.status).toBe('translation_done');
    const rows = await segmentRows(id);
    const words = rows.flatMap((s) => s.words ?? []);
    expect(words.map((w) => w.text).join(' ')).toBe(text);
    // inside the readings (the speech regions), never in the silence before the first
    for (const w of words) expect(track.turns.some((t) => w.start >= t.start - 0.3 && w.end <= t.end + 0.3), JSON.stringify(w)).toBe(true);
    expect(logs.some((l) => l.msg === 'transcript timed by length' && l.projectId === id && /no acoustic model/.test(String(l.reason)))).toBe(true);
  }, 180_000);

  it('refuses a transcript it cannot use (422, with the reason)', async () => {
    const base = { name: 'Bad', src_lang: 'en', dst_lang: 'es', media_id: mediaId };
    const cases: Array<[unknown, RegExp]> = [
      ['   \n ', /empty/],
      ['... !!! ---', /no words/],
      ['1\n00:00:01,000 --> 00:00:02,000\nHello.\n', /subtitle/],
      ['x'.repeat(200_001), /too long/],
      [42, /./],
    ];
    for (const [src_text, why] of cases) {
      // createProject casts its body: one of the cases is a src_text the types refuse (a number).
      const r = await createProject(h, u, { ...base, src_text });
      expect(r.response.status, JSON.stringify(src_text).slice(0, 40)).toBe(422);
      expect(JSON.stringify(r.error)).toMatch(why);
    }
    const srt = join(dir, 'both.srt');
    writeFileSync(srt, srtText([[0.3, 2, 'Hello.']]));
    const src = await uploadOk(h, u, srt, { kind: 'srt' });
    const both = await create({ ...base, src_text: 'Hello.', src_srt_media_id: src });
    expect(both.response.status).toBe(422);
    expect(JSON.stringify(both.error)).toMatch(/not both/);
    // nothing was made
    const n = await h.deps.db.one<{ n: number }>(`SELECT count(*)::int AS n FROM projects WHERE name = 'Bad'`);
    expect(n.n).toBe(0);
  });
});
