// Subtitle readability before/after the layout (issue 29): `node --import tsx bench/subtitles.ts [--json]`.
// 50 sentences of Sense and Sensibility (chapter 1, the LibriVox book of the pipeline bench) translated English ->
// Spanish by the built-in MT (apertium eng-spa, one line at a time), each over a slot of the English speech's length
// at a speaking rate of 12-19 characters per second (seeded), 0.15-1.2 s between segments (and a fast set: 16-22,
// 0.1-0.5 s), English word timings
// (a pause after commas), as the transcript has them. Before: one cue per segment (the old writer). After: the
// subtitle layout (server/media/subtitle-layout.ts). Figures: max line length, lines per cue, CPS (max, mean, p95),
// cues breaking each limit.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { checkCues, cueChars, DEFAULT_SUBTITLE_LIMITS, layoutSubtitles, type LayoutSegment } from '../server/media/subtitle-layout';
import type { Cue } from '../server/media/subtitles';

const EN = [
  "The family of Dashwood had long been settled in Sussex.",
  "Their estate was large, and their residence was at Norland Park, in the centre of their property, where, for many generations, they had lived in so respectable a manner as to engage the general good opinion of their surrounding acquaintance.",
  "The late owner of this estate was a single man, who lived to a very advanced age.",
  "For many years of his life he had a constant companion and housekeeper in his sister.",
  "But her death, which happened ten years before his own, produced a great alteration in his home.",
  "To supply her loss, he invited and received into his house the family of his nephew.",
  "He was the legal inheritor of the Norland estate.",
  "In the society of his nephew and niece, and their children, the old gentleman's days were comfortably spent.",
  "His attachment to them all increased.",
  "The constant attention of Mr. and Mrs. Henry Dashwood to his wishes gave him every degree of solid comfort which his age could receive.",
  "By a former marriage, Mr. Henry Dashwood had one son.",
  "By his present lady, three daughters.",
  "The son, a steady respectable young man, was amply provided for by the fortune of his mother, which had been large, and half of which devolved on him on his coming of age.",
  "By his own marriage, likewise, which happened soon afterwards, he added to his wealth.",
  "To him therefore the succession to the Norland estate was not so really important as to his sisters.",
  "Their fortune, independent of what might arise to them from their father's inheriting that property, could be but small.",
  "Their mother had nothing.",
  "The old gentleman died.",
  "His will was read, and like almost every other will, gave as much disappointment as pleasure.",
  "He was neither so unjust, nor so ungrateful, as to leave his estate from his nephew.",
  "But he left it to him on such terms as destroyed half the value of the bequest.",
  "Yes.",
  "Mr. Dashwood had wished for it more for the sake of his wife and daughters than for himself or his son.",
  "But to his son, and his son's son, a child of four years old, it was secured.",
  "This child had gained on the affections of his uncle by such attractions as are by no means unusual in children of two or three years old.",
  "An imperfect articulation, an earnest desire of having his own way, many cunning tricks, and a great deal of noise.",
  "Thank you.",
  "Mr. Dashwood's disappointment was, at first, severe.",
  "But his temper was cheerful and sanguine.",
  "He might reasonably hope to live many years, and by living economically, lay by a considerable sum from the produce of an estate already large.",
  "But the fortune, which had been so tardy in coming, was his only one twelvemonth.",
  "He survived his uncle no longer.",
  "Ten thousand pounds, including the late legacies, was all that remained for his widow and daughters.",
  "His son was sent for as soon as his danger was known.",
  "And to him Mr. Dashwood recommended, with all the strength and urgency which illness could command, the interest of his mother-in-law and sisters.",
  "Mr. John Dashwood had not the strong feelings of the rest of the family.",
  "But he was affected by a recommendation of such a nature at such a time, and he promised to do every thing in his power to make them comfortable.",
  "His father was rendered easy by such an assurance.",
  "And Mr. John Dashwood had then leisure to consider how much there might be prudently in his power to do for them.",
  "He was not an ill-disposed young man, unless to be rather cold hearted and rather selfish is to be ill-disposed.",
  "Had he married a more amiable woman, he might have been made still more respectable than he was.",
  "He might even have been made amiable himself.",
  "No, I don't think so.",
  "Where are you going?",
  "Mrs. John Dashwood was a strong caricature of himself, more narrow-minded and selfish.",
  "When he gave his promise to his father, he meditated within himself to increase the fortunes of his sisters by the present of a thousand pounds a-piece.",
  "He then really thought himself equal to it.",
  "The prospect of four thousand a-year, in addition to his present income, besides the remaining half of his own mother's fortune, warmed his heart, and made him feel capable of generosity.",
  "Yes, he would give them three thousand pounds: it would be liberal and handsome!",
  "It would be enough to make them completely easy."
];

function rng(seed: number): () => number {
  let s = seed >>> 0;
  return () => ((s = (s * 1664525 + 1013904223) >>> 0) / 2 ** 32);
}

function translate(lines: readonly string[]): string[] {
  const dir = mkdtempSync(join(tmpdir(), 'subs-bench-'));
  try {
    return lines.map((l) => {
      writeFileSync(join(dir, 'in.txt'), l + '\n');
      return execFileSync('apertium', ['-u', '-f', 'line', 'eng-spa', join(dir, 'in.txt')], { encoding: 'utf8' }).replace(/\s+/g, ' ').trim();
    });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

function segments(es: readonly string[], withWords: boolean, fast = false): LayoutSegment[] {
  const r = rng(29);
  let t = 0.5;
  return EN.map((en, i) => {
    const rate = fast ? 16 + r() * 6 : 12 + r() * 7;
    const words = en.split(' ');
    const timed: Array<{ text: string; start: number; end: number }> = [];
    let at = t;
    for (const w of words) {
      const d = (w.length + 1) / rate;
      timed.push({ text: w, start: at, end: at + d - 0.02 });
      at += d + (/[,;:]$/.test(w) ? 0.25 : 0);
    }
    const seg = { start: t, end: at, text: es[i]!, words: withWords ? timed : null };
    t = at + (fast ? 0.1 + r() * 0.4 : 0.15 + r() * 1.05);
    return seg;
  });
}

function figures(cues: readonly Cue[]) {
  const lines = cues.flatMap((c) => c.text.split('\n'));
  const cps = cues.map((c) => cueChars(c.text) / (c.end - c.start)).sort((a, b) => a - b);
  const checks = checkCues(cues);
  const count = (p: string) => checks.filter((c) => c.problems.includes(p as never)).length;
  const round = (x: number) => Math.round(x * 10) / 10;
  return {
    cues: cues.length,
    max_line_chars: Math.max(...lines.map((l) => [...l].length)),
    lines_over_42: lines.filter((l) => [...l].length > 42).length,
    max_lines_per_cue: Math.max(...cues.map((c) => c.text.split('\n').length)),
    max_cps: round(cps.at(-1)!),
    mean_cps: round(cps.reduce((a, b) => a + b, 0) / cps.length),
    p95_cps: round(cps[Math.floor(0.95 * (cps.length - 1))]!),
    cues_over_17_cps: cps.filter((x) => x > 17.01).length,
    cues_over_20_cps: count('too_fast'),
    cues_under_0_83_s: count('too_short'),
    cues_over_7_s: count('too_long'),
  };
}

const es = translate(EN);
const segs = segments(es, true);
const before: Cue[] = segs.map((s) => ({ start: s.start, end: s.end, text: s.text }));
const result = {
  before: figures(before),
  after_with_word_timings: figures(layoutSubtitles(segs, DEFAULT_SUBTITLE_LIMITS)),
  after_without_word_timings: figures(layoutSubtitles(segments(es, false), DEFAULT_SUBTITLE_LIMITS)),
  // fast speakers: 16-22 characters per second, 0.1-0.5 s between segments
  fast_before: figures(segments(es, true, true).map((s) => ({ start: s.start, end: s.end, text: s.text }))),
  fast_after: figures(layoutSubtitles(segments(es, true, true), DEFAULT_SUBTITLE_LIMITS)),
};
if (process.argv.includes('--json')) console.log(JSON.stringify(result, null, 2));
else console.table(result);
