// The quality report's flags (issue 28): each problem is planted and must be reported with a reason and an action;
// the same measurements without the problem raise nothing. Envelopes are planted for the pure analysis; the voice
// pitch check measures real audio (a tone track standing for the dubbed voice) through measureQuality.
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import * as v from 'valibot';
import { QualityReport, type QualitySpeaker } from '../../../contract/schemas/quality';
import { analyseQuality, analyseQualitySliced, kthSmallest, measureQuality, speakerAttention, speechUnderDub, type Envelope, type QualityInputs } from '../../../server/domains/projects/quality';
import { synthAudio } from '../../../server/media/ffmpeg';
import { DEFAULT_SUBTITLE_LIMITS, layoutSubtitles } from '../../../server/media/subtitle-layout';
import { tempDir } from '../../fixtures/media';

const HOP = 0.02;
const N = 20 / HOP; // 20 s
/** A speech-like envelope: syllables (0.1 s loud, 0.1 s quiet) inside [a, b). */
function syllables(spans: Array<[number, number]>, level = 0.2): Float32Array {
  const x = new Float32Array(N);
  for (const [a, b] of spans) for (let f = Math.round(a / HOP); f < Math.round(b / HOP); f++) x[f] = Math.floor(f / 5) % 2 === 0 ? level : level * 0.05;
  return x;
}
const env = (rms: Float32Array): Envelope => ({ hopSec: HOP, rms });
const flat = (level: number) => new Float32Array(N).fill(level);
const seg = (id: string, start: number, end: number, o: { speed?: number; src?: string; dst?: string; words?: unknown } = {}) => ({
  id, start_sec: start, end_sec: end, speaker: 'S1', src_text: o.src ?? 'Hello there', dst_text: o.dst ?? 'Hola',
  speed_factor: o.speed ?? 1, words: (o.words ?? null) as never,
});

/** Inputs of a clean dub: speech 4-8 s, the dub voice there, music steady at 0.02 everywhere. */
function base(over: Partial<QualityInputs> = {}): QualityInputs {
  const speech = syllables([[4, 8]]);
  return {
    projectId: 'p', generation: 1, duration: 20, segments: [seg('a', 4, 8)], glossary: [],
    voice: env(syllables([[4, 8]])), output: env(flat(0.03)), source: env(flat(0.03)),
    loudnessLufs: -20, sourceLoudnessLufs: -20,
    background: env(flat(0.02)), speech: env(speech), sourceSide: env(flat(0.01)),
    ...over,
  };
}
const kinds = (r: ReturnType<typeof analyseQuality>) => r.attention.map((a) => `${a.segment_id ?? a.speaker}:${a.kind}`);

describe('quality flags: planted problems are reported, clean dubs are not', () => {
  it('a clean dub raises nothing', () => {
    const r = analyseQuality(base());
    expect(kinds(r)).toEqual([]);
    expect(r.segments[0]).toMatchObject({ speech_under_dub_db: null, background_dip_db: 0 });
  });

  it('original speech left in the background under a segment (it rises and falls with the speech)', () => {
    // the background holds the speech at 0.06 amplitude against 0.2 (about -10 dB) over the steady music
    const bg = flat(0.02);
    const sp = syllables([[4, 8]]);
    for (let f = 0; f < N; f++) bg[f] = Math.sqrt(0.02 ** 2 + (0.3 * sp[f]!) ** 2);
    const r = analyseQuality(base({ background: env(bg) }));
    expect(kinds(r)).toEqual(['a:speech_under_dub']);
    expect(r.segments[0]!.speech_under_dub_db).toBeCloseTo(-10.5, 0);
    const item = r.attention[0]!;
    expect(item).toMatchObject({ severity: 'critical', segment_id: 'a', start: 4 });
    expect(item.reason).toMatch(/original speech can still be heard under the dub/);
    expect(item.action).toMatch(/Listen to the segment/);
    // the estimator alone: a leak 30 dB under is below the flag, none is null
    for (let f = 0; f < N; f++) bg[f] = Math.sqrt(0.02 ** 2 + (0.0316 * sp[f]!) ** 2);
    expect(speechUnderDub(env(bg), env(sp), 200, 400)).toBeCloseTo(-30, 0);
    expect(speechUnderDub(env(flat(0.02)), env(sp), 200, 400)).toBeNull();
  });

  it('the background dipping during a segment, but not when the source itself ducks its music there', () => {
    const bg = flat(0.02);
    for (let f = 4 / HOP; f < 8 / HOP; f++) bg[f] = 0.002; // 20 dB down while the segment is spoken
    const r = analyseQuality(base({ background: env(bg) }));
    expect(kinds(r)).toEqual(['a:background_dip']);
    expect(r.segments[0]!.background_dip_db).toBeCloseTo(20, 0);
    expect(r.attention[0]).toMatchObject({ severity: 'critical', reason: expect.stringMatching(/drop by about 20 dB/) });
    // the source's side channel (music only) dips just as much: the source ducks its music, the dub keeps that
    const side = flat(0.01);
    for (let f = 4 / HOP; f < 8 / HOP; f++) side[f] = 0.001;
    expect(kinds(analyseQuality(base({ background: env(bg), sourceSide: env(side) })))).toEqual([]);
  });

  it('speed factors outside 0.9-1.15 are flagged; inside they are not', () => {
    const segments = [seg('a', 4, 5, { speed: 1.2 }), seg('b', 5.5, 6, { speed: 0.85 }), seg('c', 6.5, 7, { speed: 1.1 }), seg('d', 7.2, 8, { speed: 0.95 })];
    const voice = syllables([[4, 5], [5.5, 6], [6.5, 7], [7.2, 8]]);
    const r = analyseQuality(base({ segments, voice: env(voice) }));
    expect(kinds(r)).toEqual(['a:fast_speech', 'b:slow_speech']);
    expect(r.attention[0]!.reason).toMatch(/sped up to ×1\.20/);
    expect(r.attention[1]!.reason).toMatch(/slowed to ×0\.85/);
  });

  it('recognition confidence below the threshold (word posteriors)', () => {
    const words = [{ text: 'hello', start: 4, end: 4.5, confidence: 0.3 }, { text: 'there', start: 4.5, end: 5, confidence: 0.5 }];
    const r = analyseQuality(base({ segments: [seg('a', 4, 8, { words })] }));
    expect(kinds(r)).toEqual(['a:low_asr_confidence']);
    expect(r.attention[0]!.reason).toMatch(/low confidence \(40%\)/);
    const sure = [{ text: 'hello', start: 4, end: 5, confidence: 0.95 }];
    expect(kinds(analyseQuality(base({ segments: [seg('a', 4, 8, { words: sure })] })))).toEqual([]);
  });

  it('many doubtful words in a segment: counted per segment and overall, one flag naming them (not also low confidence)', () => {
    const w = (text: string, start: number, confidence: number) => ({ text, start, end: start + 0.4, confidence });
    const words = [w('and', 4, 0.9), w('mister', 4.4, 0.2), w('john', 4.8, 0.3), w('dashwood', 5.2, 0.1), w('had', 5.6, 0.95)];
    const src = 'And Mister John Dashwood had';
    const r = analyseQuality(base({ segments: [seg('a', 4, 8, { src, words }), seg('b', 9, 10, { src: 'Fine then', words: [w('fine', 9, 0.9), w('then', 9.4, 0.4)] })], voice: env(syllables([[4, 8], [9, 10]])) }));
    expect(r.segments.map((s) => s.doubtful_words)).toEqual([3, 1]);
    expect(r.segments[0]!.doubtful_word_texts).toEqual(['Mister', 'John', 'Dashwood']);
    expect(r.doubtful_words).toBe(4);
    expect(kinds(r)).toEqual(['a:doubtful_words']);
    expect(r.attention[0]).toMatchObject({ severity: 'warning', value: 3 });
    expect(r.attention[0]!.reason).toBe('3 words of the original speech were recognised with doubt (“Mister”, “John”, “Dashwood”): the transcript is likely wrong there.');
    expect(r.attention[0]!.action).toMatch(/shaded words/);
    // the user corrected two of them: the count follows the text, the doubtful-words flag goes; the segment's
    // recognition score stays what the recognizer said (the existing low-confidence flag, worded as before)
    const fixed = analyseQuality(base({ segments: [seg('a', 4, 8, { src: 'And Mr John Ashwood had', words })] }));
    expect(fixed.segments[0]!.doubtful_words).toBe(1);
    expect(kinds(fixed)).toEqual(['a:low_asr_confidence']);
    // a stored segment score (an OpenAI-compatible server's) is reported as the segment's confidence
    const scored = analyseQuality(base({ segments: [{ ...seg('a', 4, 8), asr_confidence: 0.42 }] }));
    expect(scored.segments[0]!.asr_confidence).toBe(0.42);
    expect(kinds(scored)).toEqual(['a:low_asr_confidence']);
  });

  it('a dictionary term missing from the translation', () => {
    const r = analyseQuality(base({ segments: [seg('a', 4, 8, { src: 'Welcome to Acme Cloud', dst: 'Bienvenidos a la nube' })], glossary: [{ source: 'Acme Cloud', target: 'Acme Cloud' }] }));
    expect(kinds(r)).toEqual(['a:glossary']);
    expect(r.attention[0]!.reason).toBe('Dictionary term missing from the translation: Acme Cloud.');
  });

  it('subtitles that still break the limits once laid out (issue 29): too fast with no silence left, flagged on their segment', () => {
    const text = 'Esto es una frase bastante larga que se dice muy deprisa, sin pausa alguna';
    const segments = [seg('a', 4, 6, { dst: text }), seg('b', 6.1, 8, { dst: 'Y otra frase.' })];
    const cues = layoutSubtitles(segments.map((x) => ({ start: x.start_sec, end: x.end_sec, text: x.dst_text })));
    const r = analyseQuality(base({ segments, subtitles: { cues, limits: DEFAULT_SUBTITLE_LIMITS } }));
    const flags = r.attention.filter((a) => a.kind === 'subtitles');
    expect(flags).toHaveLength(1);
    expect(flags[0]).toMatchObject({ segment_id: 'a', start: 4, severity: 'critical' });
    expect(flags[0]!.reason).toMatch(/reads at \d+(\.\d)? characters per second \(at most 20 can be read\)/);
    expect(flags[0]!.value).toBeGreaterThan(25);
    expect(flags[0]!.action).toMatch(/Shorten the translation/);
    // the same text with room to breathe: laid out within the limits, nothing flagged
    const roomy = [seg('a', 4, 9, { dst: text }), seg('b', 10, 12, { dst: 'Y otra frase.' })];
    const ok = layoutSubtitles(roomy.map((x) => ({ start: x.start_sec, end: x.end_sec, text: x.dst_text })));
    expect(analyseQuality(base({ segments: roomy, subtitles: { cues: ok, limits: DEFAULT_SUBTITLE_LIMITS } })).attention.filter((a) => a.kind === 'subtitles')).toEqual([]);
    // a cue written by hand past the limits (the old one-line writer's output) is flagged with what it breaks
    const old = [{ start: 4, end: 4.5, text: text + ' ' + text }];
    const r2 = analyseQuality(base({ segments: [seg('a', 4, 8, { dst: text })], subtitles: { cues: old, limits: DEFAULT_SUBTITLE_LIMITS } }));
    expect(r2.attention.find((a) => a.kind === 'subtitles')!.reason).toMatch(/reads at .* shows for only 0\.50 s .* has a line over 42 characters/);
  });

  it('a voice of the other gender, and a voice far from the speaker’s pitch', () => {
    const sp = (o: Partial<QualitySpeaker>): QualitySpeaker => ({
      id: 'S1', name: 'Speaker 1', voice_id: 'espeak:es+m3', pitch_hz: 172, gender: 'female', dub_pitch_hz: 106, dub_gender: 'male', pitch_distance_st: -8.4, ...o,
    });
    expect(speakerAttention([sp({})]).map((a) => a.kind)).toEqual(['voice_gender', 'voice_pitch']);
    const [g, p] = speakerAttention([sp({})]);
    expect(g).toMatchObject({ severity: 'critical', segment_id: null, speaker: 'S1', reason: 'Speaker 1 sounds female, but is dubbed with a male voice.' });
    expect(p!.reason).toBe("Speaker 1's dubbed voice is 8.4 semitones lower than Speaker 1 (106 Hz against 172 Hz).");
    // right gender, within 4 semitones: nothing; an unsure speaker is not judged on gender
    expect(speakerAttention([sp({ dub_gender: 'female', dub_pitch_hz: 180, pitch_distance_st: 0.8 })])).toEqual([]);
    expect(speakerAttention([sp({ gender: null, dub_pitch_hz: 180, pitch_distance_st: 0.8 })])).toEqual([]);
  });

  it('measures the dubbed voice’s pitch per speaker from the voice-only output (a planted 5-semitone gap)', async () => {
    const dir = tempDir('quality-flags-');
    const voice = join(dir, 'voice.wav');
    // a harmonic "voice" at 160 Hz with syllable-rate gating, in the speaker's segment 1-5 s
    const tone = 'if(between(t\\,1\\,5)*lt(mod(t\\,0.25)\\,0.18)\\,0.2*(sin(2*PI*160*t)+0.5*sin(2*PI*320*t)+0.3*sin(2*PI*480*t))\\,0)';
    await synthAudio(voice, { seconds: 6, source: `aevalsrc=${tone}:s=16000:d=6`, sampleRate: 16000 });
    const speakers = [{ id: 'S1', name: 'Speaker 1', voice_id: 'espeak:es+m3', pitch_hz: 120, gender: 'male' as const, dub_gender: 'male' as const }];
    const r = await measureQuality(
      { voice, output: voice, source16k: null, sourceFull: null, tmp: dir },
      { projectId: 'p', generation: 1, duration: 6, segments: [seg('a', 1, 5)], glossary: [], speakers },
    );
    v.parse(QualityReport, r);
    expect(r.speakers![0]!.dub_pitch_hz).toBeCloseTo(160, -1);
    expect(r.speakers![0]!.pitch_distance_st).toBeCloseTo(5, 0);
    expect(r.attention.map((a) => a.kind)).toContain('voice_pitch');
  }, 120_000);
});

describe('quality report of a long dub: the same report, with the event loop free between slices', () => {
  it('kthSmallest picks what a sort would, duplicates and extremes included', () => {
    let seed = 7;
    const rnd = () => ((seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648);
    for (const len of [1, 2, 3, 10, 101, 5000]) {
      const a = Float32Array.from({ length: len }, () => Math.round(rnd() * 50) / 10);
      const sorted = Float32Array.from(a).sort();
      for (const k of [0, Math.floor(len / 2), Math.floor(len * 0.95), len - 1]) expect(kthSmallest(Float32Array.from(a), k)).toBe(sorted[k]);
    }
  });

  it('analyseQualitySliced gives analyseQuality\'s report and lets timers run while it works', async () => {
    const n = 30 * 60 / HOP;
    const voice = new Float32Array(n);
    const music = new Float32Array(n).fill(0.02);
    const segments = Array.from({ length: 500 }, (_, i) => seg(`s${i}`, i * 3.5, i * 3.5 + 2.5, { speed: i % 9 === 0 ? 1.3 : 1 }));
    for (const s of segments) for (let f = Math.round(s.start_sec / HOP); f < Math.round((s.end_sec - (s.id.endsWith('7') ? 1.5 : 0)) / HOP); f++) voice[f] = Math.floor(f / 5) % 2 === 0 ? 0.2 : 0.01;
    const inputs: QualityInputs = {
      ...base(), duration: 30 * 60, segments, voice: env(voice), output: env(new Float32Array(n).fill(0.03)), source: env(new Float32Array(n).fill(0.03)),
      background: env(music), speech: env(Float32Array.from(voice)), sourceSide: env(new Float32Array(n).fill(0.01)), now: new Date('2026-11-29T00:00:00Z'),
    };
    const whole = analyseQuality(inputs);
    let ticks = 0;
    const timer = setInterval(() => ticks++, 1);
    let sliced;
    try {
      sliced = await analyseQualitySliced(inputs);
    } finally {
      clearInterval(timer);
    }
    expect(sliced).toEqual(whole);
    expect(whole.segments).toHaveLength(500);
    expect(kinds(whole)).toContain('s0:fast_speech');
    // 500 segments in slices of 100, with steps before and after: several turns of the event loop
    expect(ticks).toBeGreaterThanOrEqual(3);
  });
});
