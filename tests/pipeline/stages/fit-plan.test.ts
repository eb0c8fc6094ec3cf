// The pure part of speech fitting: slots, limits, natural-duration estimates, rates, cache keys.
import { describe, expect, it } from 'vitest';
import {
  countLetters,
  DEFAULT_FIT_SETTINGS,
  estimateNaturalDuration,
  fitCacheKey,
  planFit,
  type FitSegmentInput,
} from '../../../server/domains/projects/stages/fit';

const seg = (start: number, end: number, text: string, extra: Partial<FitSegmentInput> = {}): FitSegmentInput => ({
  start,
  end,
  text,
  lang: 'es',
  voiceId: 'espeak:es+m3',
  ...extra,
});

describe('estimateNaturalDuration', () => {
  it('counts letters, not spaces or punctuation', () => {
    expect(countLetters('¡Hola, mundo! 123')).toBe(12);
    expect(countLetters('你好世界')).toBe(4);
  });
  it('scales with text length and the language metrics', () => {
    const one = estimateNaturalDuration('Hola a todos mis amigos', 'es');
    const two = estimateNaturalDuration('Hola a todos mis amigos hola a todos mis amigos', 'es');
    expect(two.seconds).toBeCloseTo(one.seconds * 2, 5);
    // Spanish: 2.2 letters per syllable, 6.6 syllables per second
    expect(one.syllables).toBeCloseTo(19 / 2.2, 5);
    expect(one.seconds).toBeCloseTo(19 / 2.2 / 6.6, 5);
    // English: 3.0 letters per syllable at 5.3 syllables per second
    expect(estimateNaturalDuration('Hello to all my friends', 'en').seconds).toBeCloseTo(19 / 3.0 / 5.3, 5);
    // unknown languages fall back to average metrics
    expect(estimateNaturalDuration('Hello to all my friends', 'xx').seconds).toBeCloseTo(19 / 2.5 / 5.5, 5);
  });
  it('adds short pauses for inner punctuation only', () => {
    const a = estimateNaturalDuration('Uno dos tres cuatro.', 'es').seconds;
    const b = estimateNaturalDuration('Uno, dos. Tres cuatro.', 'es').seconds;
    expect(b - a).toBeCloseTo(0.12 + 0.25, 5);
    expect(estimateNaturalDuration('   ', 'es')).toEqual({ syllables: 0, seconds: 0 });
    // not in numbers or times
    expect(estimateNaturalDuration('Son 1.234,5 a las 12:30', 'es').seconds).toBeCloseTo(16 / 2.2 / 6.6, 5);
  });
});

describe('planFit', () => {
  it('slot = own duration, limit = up to the next start minus the guard (or the video end)', () => {
    const plans = planFit([seg(1, 3, 'Hola'), seg(4, 5, 'Adiós')], { totalDurationSec: 10 });
    expect(plans[0]).toMatchObject({ index: 0, start: 1, slotSec: 2, limitSec: 2.95 });
    expect(plans[1]).toMatchObject({ index: 1, start: 4, slotSec: 1, limitSec: 5.95 });
  });
  it('uses start order, not input order, and honours an explicit nextStart', () => {
    const plans = planFit([seg(4, 5, 'b'), seg(1, 2, 'a'), seg(6, 7, 'c', { nextStart: 7.5 })]);
    expect(plans[1]!.limitSec).toBeCloseTo(2.95, 6);
    expect(plans[0]!.limitSec).toBeCloseTo(1.95, 6);
    expect(plans[2]!.limitSec).toBeCloseTo(1.45, 6);
  });
  it('never lets the slot run into an overlapping next segment', () => {
    const plans = planFit([seg(0, 3, 'a'), seg(2, 4, 'b')], { totalDurationSec: 5 });
    expect(plans[0]!.slotSec).toBeCloseTo(1.95, 6);
    expect(plans[0]!.limitSec).toBeCloseTo(1.95, 6);
  });
  it('chooses the rate that fits the slot, clamped to the range', () => {
    const text = 'Esta es una frase bastante larga que necesita tiempo para decirse bien';
    const nat = estimateNaturalDuration(text, 'es').seconds;
    const [fits] = planFit([seg(0, nat * 1.1, text)]);
    expect(fits!.rate).toBeCloseTo(1 / 1.1, 3);
    const [exact] = planFit([seg(0, nat / 1.3, text)]);
    expect(exact!.rate).toBeCloseTo(1.3, 2);
    const [tooLong] = planFit([seg(0, nat / 3, text)]);
    expect(tooLong!.rate).toBe(DEFAULT_FIT_SETTINGS.maxRate);
    const [relaxed] = planFit([seg(0, nat * 3, text)]);
    expect(relaxed!.rate).toBe(DEFAULT_FIT_SETTINGS.minRate);
    const [custom] = planFit([seg(0, nat / 3, text)], { settings: { maxRate: 2 } });
    expect(custom!.rate).toBe(2);
    const [empty] = planFit([seg(0, 1, '')]);
    expect(empty!.rate).toBe(1);
  });
});

describe('fitCacheKey', () => {
  const s = { ...DEFAULT_FIT_SETTINGS };
  const base = seg(1, 3, 'Hola amigos');
  const key = (x: FitSegmentInput, settings = s, engine = 'espeak', total = 10) => fitCacheKey(x, planFit([x], { totalDurationSec: total })[0]!, engine, settings);
  it('is stable for the same inputs and ignores the absolute position', () => {
    expect(key(base)).toBe(key({ ...base }));
    expect(key(base)).toBe(key({ ...base, start: 5, end: 7 }, s, 'espeak', 14));
    expect(key(base)).toBe(key({ ...base, text: '  Hola   amigos ' }));
    expect(key(base)).toMatch(/^[0-9a-f]{40}$/);
  });
  it('changes with text, language, voice, engine, settings and slot', () => {
    const k = key(base);
    expect(key({ ...base, text: 'Hola amigas' })).not.toBe(k);
    expect(key({ ...base, lang: 'es-419' })).not.toBe(k);
    expect(key({ ...base, voiceId: 'espeak:es+f3' })).not.toBe(k);
    expect(key(base, s, 'other-tts')).not.toBe(k);
    expect(key(base, { ...s, maxTempo: 1.3 })).not.toBe(k);
    expect(key({ ...base, end: 3.5 })).not.toBe(k);
    expect(key(base, s, 'espeak', 3.5)).not.toBe(k); // less room to borrow
  });
});
