// Readable subtitles (issue 29): line length, lines per cue, phrase-boundary breaks, reading speed, cue durations,
// long segments split into cues timed to the words.
import { describe, expect, it } from 'vitest';
import { breakLines, checkCues, cueChars, DEFAULT_SUBTITLE_LIMITS as L, layoutSubtitles, MIN_GAP_SEC } from '../../../server/media/subtitle-layout';
import type { Cue } from '../../../server/media/subtitles';

const ARTICLES = ['el', 'la', 'los', 'las', 'un', 'una', 'de', 'del', 'al', 'y', 'o', 'que', 'the', 'a', 'of', 'to'];
const lastWord = (line: string) => line.split(' ').pop()!.toLowerCase();

function expectReadable(cues: Cue[]) {
  for (const c of cues) {
    const lines = c.text.split('\n');
    expect(lines.length, c.text).toBeLessThanOrEqual(L.maxLines);
    for (const l of lines) expect([...l].length, l).toBeLessThanOrEqual(L.maxLineChars);
    for (const l of lines.slice(0, -1)) expect(ARTICLES, c.text).not.toContain(lastWord(l));
    expect(c.end - c.start, c.text).toBeLessThanOrEqual(L.maxDuration + 1e-9);
  }
  for (let i = 1; i < cues.length; i++) expect(cues[i]!.start).toBeGreaterThanOrEqual(cues[i - 1]!.end - 1e-9);
}

const LONG =
  'La familia de Dashwood se había establecido durante mucho tiempo en Sussex. Su finca era grande, y su residencia ' +
  'estaba en Norland Park, en el centro de su propiedad, donde, durante muchas generaciones, habían vivido de una manera tan respetable.';

describe('line breaks', () => {
  it('keeps a short text on one line', () => {
    expect(breakLines('Hola, ¿qué tal?')).toBe('Hola, ¿qué tal?');
    expect(breakLines('x'.repeat(42))).toBe('x'.repeat(42));
  });
  it('breaks a longer text into two balanced lines, never after an article or preposition', () => {
    expect(breakLines('Y el señor John Dashwood tuvo tiempo de pensar.')).toBe('Y el señor John Dashwood\ntuvo tiempo de pensar.');
    expect(breakLines('Mañana vamos a ir al mercado con los niños y después a la playa de la ciudad')).toBe(
      'Mañana vamos a ir al mercado con los niños\ny después a la playa de la ciudad',
    );
  });
  it('prefers a break after punctuation', () => {
    expect(breakLines('Lo sabía desde el principio, pero no quería decirlo nunca')).toBe('Lo sabía desde el principio,\npero no quería decirlo nunca');
    expect(breakLines('No, no. Esta vez vamos a hacerlo juntos de verdad')).toBe('No, no.\nEsta vez vamos a hacerlo juntos de verdad');
  });
  it('never ends a line with el/la/los/las/un/una/de/del/al/y/o/que', () => {
    const texts = [
      'Ella dijo que el perro de la vecina se escapó por la noche del sábado',
      'Compramos una casa y un coche en el pueblo de los abuelos al final del verano',
      'Los niños y las niñas que vinieron ayer o antes de ayer al colegio',
      'Quiero que sepas que la verdad es que no sé qué hacer con el dinero',
    ];
    for (const t of texts) {
      const lines = breakLines(t)!.split('\n');
      expect(lines).toHaveLength(2);
      for (const l of lines) expect(l.length).toBeLessThanOrEqual(42);
      expect(ARTICLES, lines.join(' | ')).not.toContain(lastWord(lines[0]!));
      expect(lines.join(' ')).toBe(t);
    }
  });
  it('returns null when the text cannot fit one cue', () => {
    expect(breakLines('palabra '.repeat(15))).toBeNull();
  });
  it('cuts a single word longer than a line with a hyphen', () => {
    const w = 'Supercalifragilisticoespialidosoyalgunasletrasmás';
    const t = breakLines(w)!;
    expect(t.split('\n')).toHaveLength(2);
    expect(t.split('\n')[0]).toMatch(/-$/);
    expect(t.split('\n')[0]!.length).toBeLessThanOrEqual(42);
    expect(t.replace('-\n', '')).toBe(w);
  });
});

describe('cues', () => {
  it('splits a long segment into several readable cues that keep every word in order', () => {
    const cues = layoutSubtitles([{ start: 10, end: 26, text: LONG }]);
    expect(cues.length).toBeGreaterThanOrEqual(3);
    expectReadable(cues);
    expect(cues.map((c) => c.text.replace(/\n/g, ' ')).join(' ')).toBe(LONG);
    expect(cues[0]!.start).toBe(10);
    expect(cues.at(-1)!.end).toBe(26);
    for (const c of cues) expect(cueChars(c.text) / (c.end - c.start)).toBeLessThanOrEqual(L.maxCps);
    // without word timings, the slot is shared in proportion to characters
    const cps = cues.map((c) => cueChars(c.text) / (c.end - c.start));
    expect(Math.max(...cps) - Math.min(...cps)).toBeLessThan(1.5);
    expect(checkCues(cues)).toEqual([]);
  });

  it('prefers to end a cue at the end of a sentence', () => {
    const cues = layoutSubtitles([{ start: 0, end: 8, text: 'Nos vemos mañana por la mañana. Y no te olvides de traer las llaves del coche, por favor.' }]);
    expect(cues.map((c) => c.text)).toEqual(['Nos vemos mañana por la mañana.', 'Y no te olvides de traer\nlas llaves del coche, por favor.']);
  });

  it('times the cues of a long segment to its words', () => {
    // speech: 10.0-13.0, a pause, then 16.0-19.0 (the pause is between the two sentences)
    const first = 'Nos vemos mañana por la mañana temprano.'.split(' ');
    const second = 'Y no te olvides de traer las llaves del coche.'.split(' ');
    const words = [
      ...first.map((w, i) => ({ text: w, start: 10 + (i * 3) / first.length, end: 10 + ((i + 1) * 3) / first.length - 0.05 })),
      ...second.map((w, i) => ({ text: w, start: 16 + (i * 3) / second.length, end: 16 + ((i + 1) * 3) / second.length - 0.05 })),
    ];
    const cues = layoutSubtitles([{ start: 10, end: 19, text: [...first, ...second].join(' '), words }]);
    expect(cues).toHaveLength(2);
    expect(cues[0]!.start).toBe(10);
    // the first cue ends around the end of the first sentence's speech (lengthened to be read at 17 cps at most)
    expect(cues[0]!.end).toBeGreaterThan(12.5);
    expect(cues[0]!.end).toBeLessThan(15);
    expect(cues[1]!.start).toBeCloseTo(16, 1);
    expect(cues[1]!.end).toBe(19);
  });

  it('lengthens a fast segment into the silence after it, then before it, never over a neighbour', () => {
    const text = 'Esto es una frase bastante larga que se dice muy deprisa'; // 56 characters
    const cues = layoutSubtitles([
      { start: 0, end: 1, text: 'Hola.' },
      { start: 2, end: 3.5, text },
      { start: 5, end: 6, text: 'Adiós.' },
    ]);
    expect(cues).toHaveLength(3);
    const mid = cues[1]!;
    expect(mid.end).toBeCloseTo(5 - MIN_GAP_SEC, 3);
    expect(mid.start).toBeLessThan(2);
    expect(mid.start).toBeGreaterThanOrEqual(cues[0]!.end + MIN_GAP_SEC - 1e-9);
    expect(cueChars(mid.text) / (mid.end - mid.start)).toBeLessThanOrEqual(17.01);
    expectReadable(cues);
  });

  it('a fast segment with no silence around it takes the time the segment before it does not need', () => {
    const cues = layoutSubtitles([
      { start: 0, end: 4, text: 'Sí.' },
      { start: 4.1, end: 5.1, text: 'Esto es una frase larga' }, // 23 characters: 1.35 s at 17 cps
      { start: 5.2, end: 6, text: 'Y otra.' },
    ]);
    expect(cues).toHaveLength(3);
    // "Sí." keeps 0.83 s at least; the fast line ends before the next one and starts earlier (at most 0.5 s before its speech)
    expect(cues[0]!.end - cues[0]!.start).toBeGreaterThanOrEqual(0.83);
    expect(cues[1]!.end).toBeCloseTo(5.2 - MIN_GAP_SEC, 3);
    expect(cues[1]!.start).toBeCloseTo(5.2 - MIN_GAP_SEC - 1.353, 2);
    expect(cues[1]!.start).toBeGreaterThanOrEqual(3.6);
    expect(cues[0]!.end).toBeLessThanOrEqual(cues[1]!.start - MIN_GAP_SEC + 1e-9);
    expect(checkCues(cues)).toEqual([]);
  });

  it('a segment too fast for any room left is flagged (hard limit 20 cps)', () => {
    const cues = layoutSubtitles([
      { start: 0, end: 1, text: 'Esto es una frase bastante larga que se dice muy deprisa' },
      { start: 1.1, end: 2, text: 'Y otra.' },
    ]);
    expectReadable(cues);
    const problems = checkCues(cues);
    expect(problems[0]).toMatchObject({ index: 0, problems: ['too_fast'] });
    expect(problems[0]!.cps).toBeGreaterThan(20);
  });

  it('keeps a short cue up at least 0.83 s and a long one at most 7 s', () => {
    const cues = layoutSubtitles([{ start: 0, end: 0.3, text: 'Sí.' }, { start: 3, end: 15, text: 'Bueno.' }], L, 20);
    expect(cues[0]!.end - cues[0]!.start).toBeCloseTo(0.83, 3);
    expect(cues[1]!.end - cues[1]!.start).toBeCloseTo(7, 3);
  });

  it('does not lengthen a cue past the end of the media', () => {
    const cues = layoutSubtitles([{ start: 9, end: 10, text: 'Esto es una frase bastante larga que se dice muy deprisa' }], L, 10.5);
    expect(cues.at(-1)!.end).toBeLessThanOrEqual(10.5);
  });

  it('a segment with a single very long word still fits the lines', () => {
    const w = 'a'.repeat(130);
    const cues = layoutSubtitles([{ start: 0, end: 10, text: `Mira: ${w} fin.` }]);
    expectReadable(cues);
    expect(cues.map((c) => c.text.replace(/-\n/g, '').replace(/-$/, '').replace(/\n/g, ' ')).join('')).toContain('a'.repeat(41));
  });

  it('follows other limits', () => {
    const limits = { ...L, maxLineChars: 32, maxLines: 1 };
    const cues = layoutSubtitles([{ start: 0, end: 12, text: LONG }], limits);
    for (const c of cues) {
      expect(c.text.includes('\n')).toBe(false);
      expect(c.text.length).toBeLessThanOrEqual(32);
    }
  });

  it('skips empty texts and empty slots, sorts by time', () => {
    expect(layoutSubtitles([
      { start: 3, end: 4, text: 'B' },
      { start: 0, end: 1, text: 'A' },
      { start: 5, end: 6, text: '  ' },
      { start: 7, end: 7, text: 'C' },
    ]).map((c) => c.text)).toEqual(['A', 'B']);
  });
});

describe('checkCues', () => {
  it('names every broken limit', () => {
    const r = checkCues([
      { start: 0, end: 2, text: 'ok' },
      { start: 3, end: 3.2, text: 'x'.repeat(50) + '\nb\nc' },
      { start: 4, end: 12, text: 'long' },
    ]);
    expect(r.map((x) => x.index)).toEqual([1, 2]);
    expect(r[0]!.problems).toEqual(['line_too_long', 'too_many_lines', 'too_fast', 'too_short']);
    expect(r[1]!.problems).toEqual(['too_long']);
  });
});
