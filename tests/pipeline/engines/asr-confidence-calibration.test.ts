// Honest recognition confidence (issue 33 part 3): pocketsphinx's word posteriors calibrated into the chance a word
// is right, Whisper-style segment scores (avg_logprob, no_speech_prob, word probabilities) parsed from verbose_json,
// and the doubtful words of a (possibly edited) source text. The real decoder runs on a LibriVox clip of
// pocketsphinx-testdata, clean and under white noise, against its reference transcript.
import { describe, expect, it } from 'vitest';
import { DOUBTFUL_WORD_CONFIDENCE, doubtfulWords, manyDoubtful, scoreTextWords } from '../../../contract/confidence';
import { createPocketsphinxAsr } from '../../../server/engines/builtin/pocketsphinx';
import { alignWords, calibratePosterior, POSTERIOR_CALIBRATION, whisperSegmentConfidence, wordsConfidence } from '../../../server/engines/builtin/word-confidence';
import { verboseToSegments } from '../../../server/engines/adapters/openai-asr';
import { scored } from '../../../server/domains/projects/stages/transcription';
import { LIBRIVOX_IDS, librivoxTranscript, librivoxWav } from '../../fixtures/media';

describe('calibration of the word posteriors', () => {
  it('is monotone, within 0..1, and maps the table knots onto their measured values', () => {
    let prev = -1;
    for (let x = 0; x <= 1.0001; x += 0.01) {
      const y = calibratePosterior(x);
      expect(y).toBeGreaterThanOrEqual(prev);
      expect(y).toBeGreaterThanOrEqual(0);
      expect(y).toBeLessThanOrEqual(1);
      prev = y;
    }
    for (const [x, y] of POSTERIOR_CALIBRATION) expect(calibratePosterior(x)).toBeCloseTo(y, 3);
    expect(calibratePosterior(-3)).toBe(calibratePosterior(0));
    expect(calibratePosterior(Number.NaN)).toBe(calibratePosterior(0));
    // a posterior near zero is doubtful, a certain one is not
    expect(calibratePosterior(0.01)).toBeLessThan(DOUBTFUL_WORD_CONFIDENCE);
    expect(calibratePosterior(1)).toBeGreaterThan(DOUBTFUL_WORD_CONFIDENCE);
  });

  it('aligns a hypothesis to its reference: substituted and inserted words are wrong', () => {
    expect(alignWords('he was not an ill disposed young man', ['he', 'was', 'not', 'and', 'ill', 'this', 'posed', 'young', 'man'])).toEqual([
      true, true, true, false, true, false, false, true, true,
    ]);
    expect(alignWords('a b', [])).toEqual([]);
  });

  it('segment confidence: duration-weighted words, or exp(avg_logprob) x (1 - no_speech_prob)', () => {
    expect(wordsConfidence([{ start: 0, end: 1, confidence: 0.2 }, { start: 1, end: 4, confidence: 1 }])).toBeCloseTo(0.8, 3);
    expect(wordsConfidence([{ start: 0, end: 1 }])).toBeNull();
    expect(whisperSegmentConfidence(Math.log(0.8), 0.25)).toBeCloseTo(0.6, 3);
    expect(whisperSegmentConfidence(0.3, null)).toBe(1);
    expect(whisperSegmentConfidence(null, 0.9)).toBeCloseTo(0.1, 3);
    expect(whisperSegmentConfidence(undefined, undefined)).toBeNull();
  });
});

describe('OpenAI-compatible verbose_json scores', () => {
  it('keeps each segment avg_logprob/no_speech_prob as its confidence and faster-whisper word probabilities', () => {
    const segs = verboseToSegments(
      {
        text: 'Hello there. Fine.',
        segments: [
          { start: 0, end: 1.5, text: ' Hello there.', avg_logprob: -0.105, no_speech_prob: 0.02, words: [{ word: ' Hello', start: 0, end: 0.6, probability: 0.97 }, { word: ' there.', start: 0.6, end: 1.4, probability: 0.31 }] },
          { start: 2, end: 3, text: ' Fine.', avg_logprob: -1.2, no_speech_prob: 0.6 },
        ],
      },
      10,
      [{ start: 10, end: 13.2 }],
      'en',
    );
    expect(segs).toHaveLength(2);
    expect(segs[0]!.confidence).toBeCloseTo(Math.exp(-0.105) * 0.98, 3);
    expect(segs[0]!.words).toEqual([
      { text: 'Hello', start: 10, end: 10.6, confidence: 0.97 },
      { text: 'there.', start: 10.6, end: 11.4, confidence: 0.31 },
    ]);
    expect(segs[1]!.confidence).toBeCloseTo(Math.exp(-1.2) * 0.4, 3);
    // no score in the answer: no confidence invented
    const plain = verboseToSegments({ text: 'Hi.', segments: [{ start: 0, end: 1, text: 'Hi.' }] }, 0, [{ start: 0, end: 1 }], 'en');
    expect(plain[0]!.confidence).toBeUndefined();
    expect(plain[0]!.words.every((w) => w.confidence === undefined)).toBe(true);
  });
});

describe('doubtful words of a source text', () => {
  const words = [
    { text: 'and', confidence: 0.9 }, { text: 'mister', confidence: 0.95 }, { text: 'john', confidence: 0.3 }, { text: 'dashwood', confidence: 0.2 },
  ];
  it('marks the recognised words under the threshold where they are written', () => {
    const text = 'And Mister John Dashwood.';
    const tw = scoreTextWords(text, words);
    expect(tw.map((w) => [text.slice(w.from, w.to), w.doubtful])).toEqual([['And', false], ['Mister', false], ['John', true], ['Dashwood.', true]]);
    expect(doubtfulWords(words).map((w) => w.text)).toEqual(['john', 'dashwood']);
  });
  it('a word the user corrected is no longer doubtful; added words carry no score', () => {
    const text = 'And Mr John Ashwood said';
    const tw = scoreTextWords(text, words);
    expect(tw.filter((w) => w.doubtful).map((w) => text.slice(w.from, w.to))).toEqual(['John']);
    expect(tw.find((w) => text.slice(w.from, w.to) === 'said')!.confidence).toBeNull();
  });
  it('a segment is flagged with at least 3 doubtful words, or 2 making a quarter of its words', () => {
    expect(manyDoubtful(3, 40)).toBe(true);
    expect(manyDoubtful(2, 8)).toBe(true);
    expect(manyDoubtful(2, 9)).toBe(false);
    expect(manyDoubtful(1, 1)).toBe(false);
  });
});

describe('pocketsphinx on a LibriVox clip', () => {
  it('gives calibrated word confidences and a segment confidence; the doubtful words are wrong far more often', async () => {
    const asr = createPocketsphinxAsr({ concurrency: 1 });
    expect(asr.wordConfidence).toBe(calibratePosterior);
    const clean = (await asr.transcribe(librivoxWav('0870'), [{ start: 0, end: 8 }], 'en')).map((s) => scored(asr, s));
    const words = clean.flatMap((s) => s.words);
    expect(words.length).toBeGreaterThan(10);
    expect(clean[0]!.confidence).toBe(wordsConfidence(clean[0]!.words));
    // the raw posteriors the engine gives (and the choice of input compares) are mapped when stored
    const rawWords = (await asr.transcribe(librivoxWav('0870'), [{ start: 0, end: 8 }], 'en')).flatMap((s) => s.words);
    expect(rawWords.map((w) => w.text)).toEqual(words.map((w) => w.text));
    rawWords.forEach((w, i) => expect(words[i]!.confidence).toBe(calibratePosterior(w.confidence!)));

    // the five clips against their reference transcripts: the doubtful words are wrong far more often than the others
    const right: boolean[] = [];
    const doubtful: boolean[] = [];
    for (const id of LIBRIVOX_IDS) {
      const segs = (await asr.transcribe(librivoxWav(id), [{ start: 0, end: 30 }], 'en')).map((s) => scored(asr, s));
      const ws = segs.flatMap((s) => s.words);
      right.push(...alignWords(librivoxTranscript(id), ws.map((w) => w.text)));
      doubtful.push(...ws.map((w) => w.confidence! < DOUBTFUL_WORD_CONFIDENCE));
    }
    const errRate = (sel: boolean) => {
      const idx = doubtful.map((d, i) => (d === sel ? i : -1)).filter((i) => i >= 0);
      return { n: idx.length, rate: idx.filter((i) => !right[i]).length / Math.max(1, idx.length) };
    };
    const low = errRate(true);
    const high = errRate(false);
    expect(low.n).toBeGreaterThan(2);
    expect(high.n).toBeGreaterThan(2);
    expect(low.rate, JSON.stringify({ low, high })).toBeGreaterThan(high.rate + 0.2);
  }, 240_000);
});
