// Speech fitting with real espeak-ng and rubberband: slots respected, bounded stretch, no drift,
// cache hits without synthesis and byte-identical output, and the exact-length voice track.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { createEspeakTts } from '../../../server/engines/builtin/espeak';
import type { TtsEngine } from '../../../server/engines/types';
import { readWav, wavDurationSec } from '../../../server/media/wav';
import { buildVoiceTrack, DEFAULT_FIT_SETTINGS, fitSegments, planFit, type FitSegmentInput, type FittedSegment } from '../../../server/domains/projects/stages/fit';
import { tempDir } from '../../fixtures/media';

const espeak = createEspeakTts();

/** Wraps a TTS engine and counts synthesis calls. */
function counting(inner: TtsEngine): TtsEngine & { calls: string[] } {
  const calls: string[] = [];
  return {
    ...inner,
    id: inner.id,
    calls,
    synthesize: (req, o) => {
      calls.push(req.text);
      return inner.synthesize(req, o);
    },
  };
}

const TOTAL = 14;
const V = 'espeak:es+m3';
const segments: FitSegmentInput[] = [
  // fits easily
  { id: 'a', start: 0.4, end: 2.8, text: 'Hola a todos.', lang: 'es', voiceId: V },
  // too long for its slot: faster synthesis and stretch, borrows the gap before 'c'
  { id: 'b', start: 3.0, end: 4.6, text: 'Esta mañana fuimos al mercado para comprar frutas y verduras frescas.', lang: 'es', voiceId: V },
  // far too long and boxed in by the next segment: already at the fastest rate, so cut with a fade
  {
    id: 'c',
    start: 6.2,
    end: 6.9,
    text: 'Nunca pensé que una frase tan larga tuviera que caber en tan poquísimo tiempo, pero aquí estamos intentándolo.',
    lang: 'es',
    voiceId: V,
  },
  // numbers are spoken much longer than their letters suggest: the planned rate is too slow, so the
  // segment is synthesised again at a higher rate
  { id: 'd', start: 7.1, end: 8.3, text: 'Ganó 1.234.567 euros en 1999.', lang: 'es', voiceId: V },
  { id: 'e', start: 8.5, end: 12.0, text: 'Al final del día, todos volvieron a casa contentos.', lang: 'es', voiceId: 'espeak:es+f3' },
  { id: 'f', start: 12.3, end: 13.5, text: '', lang: 'es', voiceId: V },
];

let cacheDir: string;
let workDir: string;
let first: FittedSegment[];
let tts1: ReturnType<typeof counting>;

beforeAll(async () => {
  const d = tempDir('fit-');
  cacheDir = join(d, 'cache');
  workDir = join(d, 'work');
  tts1 = counting(espeak);
  first = await fitSegments(segments, { tts: tts1, cacheDir, workDir, totalDurationSec: TOTAL });
});

describe('fitSegments', () => {
  it('places every segment at its own start and ends within its slot (+150 ms), never overlapping the next', () => {
    const plans = planFit(segments, { totalDurationSec: TOTAL });
    first.forEach((f, i) => {
      const seg = segments[i]!;
      const next = segments[i + 1]?.start ?? TOTAL;
      expect(f.id).toBe(seg.id);
      expect(f.placedStart).toBe(seg.start); // zero drift
      expect(f.placedEnd).toBeLessThanOrEqual(next - DEFAULT_FIT_SETTINGS.guardSec + 0.15);
      expect(f.placedEnd).toBeLessThanOrEqual(next);
      expect(f.placedEnd).toBeLessThanOrEqual(seg.end + f.borrowedSec + 0.15);
      expect(f.borrowedSec).toBeLessThanOrEqual(plans[i]!.limitSec - plans[i]!.slotSec + 0.03);
      if (f.path) expect(wavDurationSec(f.path)).toBeCloseTo(f.durationSec, 2);
    });
  });

  it('keeps rates and stretch inside their ranges; speed factor = rate × stretch', () => {
    for (const f of first) {
      expect(f.rate).toBeGreaterThanOrEqual(DEFAULT_FIT_SETTINGS.minRate);
      expect(f.rate).toBeLessThanOrEqual(DEFAULT_FIT_SETTINGS.maxRate);
      expect(f.stretch).toBeGreaterThanOrEqual(0.85);
      expect(f.stretch).toBeLessThanOrEqual(1.25);
      expect(f.speedFactor).toBeCloseTo(f.rate * f.stretch, 2);
    }
  });

  it('uses each tool as the order says', () => {
    const [a, b, c, d, , f] = first;
    const plans = planFit(segments, { totalDurationSec: TOTAL });
    expect(a!.stretch).toBe(1);
    expect(a!.overflowSec).toBe(0);
    expect(a!.borrowedSec).toBe(0);
    expect(a!.resynthesized).toBe(false);
    expect(b!.speedFactor).toBeGreaterThan(1.1); // sped up
    expect(b!.overflowSec).toBe(0);
    expect(c!.rate).toBe(DEFAULT_FIT_SETTINGS.maxRate);
    expect(c!.resynthesized).toBe(false); // nothing faster to try
    expect(c!.overflowSec).toBeGreaterThan(0); // last resort: cut with a fade
    expect(c!.durationSec).toBeCloseTo(plans[2]!.limitSec, 2);
    const cx = readWav(c!.path!).channelData[0]!;
    expect(Math.abs(cx[cx.length - 1]!)).toBeLessThan(0.02);
    expect(plans[3]!.rate).toBeLessThan(DEFAULT_FIT_SETTINGS.maxRate);
    expect(d!.resynthesized).toBe(true);
    expect(d!.rate).toBeGreaterThan(plans[3]!.rate);
    expect(f!.path).toBeNull();
    expect(f!.durationSec).toBe(0);
    // five texts, one of them synthesised twice
    expect(tts1.calls).toHaveLength(6);
  });

  it('re-running with unchanged inputs synthesises nothing and gives byte-identical clips', async () => {
    const tts2 = counting(espeak);
    const again = await fitSegments(segments, { tts: tts2, cacheDir, workDir: join(workDir, 'again'), totalDurationSec: TOTAL });
    expect(tts2.calls).toEqual([]);
    again.forEach((f, i) => {
      const prev = first[i]!;
      expect(f.cached).toBe(!!prev.path);
      expect(f.path).toBe(prev.path);
      expect({ ...f, cached: false }).toEqual({ ...prev, cached: false });
      if (f.path) expect(readFileSync(f.path).equals(readFileSync(prev.path!))).toBe(true);
    });
  });

  it('only the changed segment is synthesised again', async () => {
    const tts3 = counting(espeak);
    const edited = segments.map((s) => (s.id === 'a' ? { ...s, text: 'Hola a todas.' } : s));
    const out = await fitSegments(edited, { tts: tts3, cacheDir, workDir: join(workDir, 'edit'), totalDurationSec: TOTAL });
    expect(tts3.calls).toEqual(['Hola a todas.']);
    expect(out[0]!.cached).toBe(false);
    expect(out.slice(1, 5).every((f) => f.cached)).toBe(true);
  });
});

describe('buildVoiceTrack', () => {
  it('puts the clips at their starts on a silent track of exact length', async () => {
    const out = join(tempDir(), 'voice.wav');
    await buildVoiceTrack(first, TOTAL, out);
    const w = readWav(out);
    expect(w.sampleRate).toBe(48000);
    expect(w.frames).toBe(TOTAL * 48000);
    const x = w.channelData[0]!;
    const energy = (a: number, b: number) => {
      let s = 0;
      for (let i = Math.round(a * 48000); i < Math.round(b * 48000); i++) s += x[i]! * x[i]!;
      return Math.sqrt(s / Math.max(1, Math.round((b - a) * 48000)));
    };
    expect(energy(0, 0.39)).toBe(0); // nothing before the first segment
    for (const f of first.filter((g) => g.path)) expect(energy(f.placedStart, f.placedEnd)).toBeGreaterThan(0.01);
    expect(energy(first[4]!.placedEnd + 0.01, TOTAL)).toBe(0); // nothing after the last clip
  });
});
