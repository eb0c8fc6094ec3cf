// Alignment benchmark (`npm run bench:align`, issue 33): how well the words of a given transcript are timed.
// The clip: the five LibriVox readings of pocketsphinx-testdata one after another with 0.7 s of silence between
// them, so each reading's place in the clip is known. The reference word times: the recognizer's own words on each
// reading alone (clean audio), shifted to the reading's place, for the words it got right. Compared:
//   text         the plain-text path (the text split over the VAD regions, each aligned under a grammar of its words)
//   srt          the SRT path (each reading a cue, 0.3 s early and late, aligned in the cue window with slack)
//   proportional what a language without an acoustic model gets (times spread over the speech by length)
//   recognition  recognising the clip (today's path without a given text): its words' times and its WER
// Printed: word boundary error (start and end, ms, median and p90) against the reference, and the transcript WER.
// Options: --json.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { readWav, toMono, writeWav } from '../server/media/wav';
import { createPocketsphinxAsr } from '../server/engines/builtin/pocketsphinx';
import { createSileroVad } from '../server/engines/builtin/silero-vad';
import {
  createPocketsphinxAligner, distributeText, proportionalWords, sentences, tokenize, type AlignWindow,
} from '../server/engines/builtin/align';
import { CUE_SLACK_SEC } from '../server/domains/projects/stages/given-text';
import { segmentRegions } from '../server/domains/projects/stages/transcribe-segments';
import type { SpeechRegion, Word } from '../server/engines/types';

const LIBRIVOX_DIR = '/usr/share/pocketsphinx/test/data/librivox';
const IDS = ['0870', '0880', '0890', '0920', '0930'];
const GAP = 0.7;
const LEAD = 0.3;
const json = process.argv.includes('--json');

const wavOf = (id: string) => join(LIBRIVOX_DIR, `sense_and_sensibility_01_austen_64kb-${id}.wav`);
function reference(id: string): string {
  const line = readFileSync(join(LIBRIVOX_DIR, 'transcription'), 'utf8').split('\n').find((l) => l.includes(`-${id})`));
  if (!line) throw new Error(`no transcript for ${id}`);
  return line.replace(/\(.*\)\s*$/, '').replace(/<\/?s>/g, '').trim();
}
const norm = (s: string) => s.toLowerCase().replace(/[^\p{L}\p{N}'\s]/gu, ' ').split(/\s+/).filter(Boolean);

/** Index pairs of equal words in a minimal edit alignment of two word lists. */
function matches(a: string[], b: string[]): Array<[number, number]> {
  const d = Array.from({ length: a.length + 1 }, (_, i) => Array.from({ length: b.length + 1 }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)));
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) d[i]![j] = Math.min(d[i - 1]![j]! + 1, d[i]![j - 1]! + 1, d[i - 1]![j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
  }
  const out: Array<[number, number]> = [];
  let i = a.length;
  let j = b.length;
  while (i > 0 && j > 0) {
    if (a[i - 1] === b[j - 1] && d[i]![j] === d[i - 1]![j - 1]) {
      out.unshift([i - 1, j - 1]);
      i--;
      j--;
    } else if (d[i]![j] === d[i - 1]![j - 1]! + 1) {
      i--;
      j--;
    } else if (d[i]![j] === d[i - 1]![j]! + 1) i--;
    else j--;
  }
  return out;
}
/** Word error rate: word edits (substitutions, deletions, insertions) over the reference's length. */
function wer(ref: string[], hyp: string[]): number {
  const d = Array.from({ length: ref.length + 1 }, (_, i) => [i, ...new Array<number>(hyp.length).fill(0)]);
  for (let j = 1; j <= hyp.length; j++) d[0]![j] = j;
  for (let i = 1; i <= ref.length; i++) {
    for (let j = 1; j <= hyp.length; j++) d[i]![j] = Math.min(d[i - 1]![j]! + 1, d[i]![j - 1]! + 1, d[i - 1]![j - 1]! + (ref[i - 1] === hyp[j - 1] ? 0 : 1));
  }
  return d[ref.length]![hyp.length]! / Math.max(1, ref.length);
}
const pct = (xs: number[], p: number) => {
  if (xs.length === 0) return NaN;
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))]!;
};

async function main(): Promise<void> {
  const root = mkdtempSync(join(tmpdir(), 'bench-align-'));
  const asr = createPocketsphinxAsr();
  const aligner = createPocketsphinxAligner();
  if (!aligner.available()) throw new Error('pocketsphinx (pocketsphinx_batch and its en-us model) is not installed');
  try {
    // the clip, and each reading's span in it
    const parts: Float32Array[] = [];
    const spans: SpeechRegion[] = [];
    let t = LEAD;
    parts.push(new Float32Array(Math.round(LEAD * 16000)));
    for (const id of IDS) {
      const w = readWav(wavOf(id));
      if (w.sampleRate !== 16000) throw new Error('the readings are 16 kHz');
      const mono = toMono(w.channelData);
      parts.push(mono, new Float32Array(Math.round(GAP * 16000)));
      spans.push({ start: t, end: t + mono.length / 16000 });
      t += mono.length / 16000 + Math.round(GAP * 16000) / 16000;
    }
    const all = new Float32Array(parts.reduce((s, p) => s + p.length, 0));
    let o = 0;
    for (const p of parts) {
      all.set(p, o);
      o += p.length;
    }
    const clip = join(root, 'clip.wav');
    writeWav(clip, [all], 16000);

    // reference times: recognition of each reading alone, its right words only
    const refWords = IDS.map((id) => norm(reference(id)));
    const refTimes: Array<Array<Word | null>> = [];
    for (let k = 0; k < IDS.length; k++) {
      const segs = await asr.transcribe(wavOf(IDS[k]!), [{ start: 0, end: spans[k]!.end - spans[k]!.start }], 'en');
      const hw = segs.flatMap((s) => s.words);
      const times: Array<Word | null> = refWords[k]!.map(() => null);
      for (const [i, j] of matches(refWords[k]!, hw.map((w) => w.text.toLowerCase()))) {
        times[i] = { text: refWords[k]![i]!, start: hw[j]!.start + spans[k]!.start, end: hw[j]!.end + spans[k]!.start };
      }
      refTimes.push(times);
    }
    const ref = refTimes.flat();
    const refText = refWords.flat();
    // the given transcript: the reference, written as a person would (sentence case, a full stop per reading)
    const given = refWords.map((ws) => ws.join(' ').replace(/^./, (c) => c.toUpperCase()) + '.');

    const vad = createSileroVad();
    const useVad = vad.available?.() ?? true;
    if (useVad) await vad.init?.();
    const regions = segmentRegions(useVad ? await vad.detect(clip) : spans);

    const runs: Record<string, { words: Word[]; ms: number }> = {};
    let t0 = performance.now();
    const sents = sentences(given.join(' '));
    const textParts = distributeText(sents, regions);
    const textWins: AlignWindow[] = regions.map((r, i) => ({ start: Math.max(0, r.start - 0.25), end: r.end + 0.25, tokens: textParts[i]! }));
    runs.text = { words: (await aligner.align(clip, textWins)).flatMap((r) => r.words), ms: performance.now() - t0 };
    t0 = performance.now();
    const cueWins: AlignWindow[] = spans.map((s, i) => ({ start: s.start - 0.3 - CUE_SLACK_SEC, end: s.end + 0.3 + CUE_SLACK_SEC, tokens: tokenize(given[i]!) }));
    runs.srt = { words: (await aligner.align(clip, cueWins)).flatMap((r) => r.words), ms: performance.now() - t0 };
    t0 = performance.now();
    runs.proportional = { words: textWins.flatMap((w, i) => (w.tokens.length ? proportionalWords(w.tokens, [regions[i]!]) : [])), ms: performance.now() - t0 };
    t0 = performance.now();
    runs.recognition = { words: (await asr.transcribe(clip, regions, 'en')).flatMap((s) => s.words), ms: performance.now() - t0 };

    const rows = Object.entries(runs).map(([name, r]) => {
      const hyp = r.words.flatMap((w) => norm(w.text).map((k) => ({ ...w, text: k })));
      const ds: number[] = [];
      const de: number[] = [];
      for (const [i, j] of matches(refText, hyp.map((w) => w.text))) {
        const a = ref[i];
        if (!a) continue;
        ds.push(Math.abs(hyp[j]!.start - a.start) * 1000);
        de.push(Math.abs(hyp[j]!.end - a.end) * 1000);
      }
      return {
        method: name,
        wer: Math.round(wer(refText, hyp.map((w) => w.text)) * 1000) / 10,
        words: ds.length,
        start_median_ms: Math.round(pct(ds, 50)),
        start_p90_ms: Math.round(pct(ds, 90)),
        end_median_ms: Math.round(pct(de, 50)),
        end_p90_ms: Math.round(pct(de, 90)),
        time_ms: Math.round(r.ms),
      };
    });
    const meta = { clipSec: Math.round(t * 100) / 100, regions: regions.length, vad: useVad ? 'silero' : 'true spans', referenceWords: ref.filter(Boolean).length, of: refText.length };
    if (json) {
      console.log(JSON.stringify({ meta, rows }, null, 2));
      return;
    }
    console.log(`clip ${meta.clipSec} s, ${meta.regions} speech regions (${meta.vad}); reference: ${meta.referenceWords}/${meta.of} words timed by recognition on each reading alone`);
    console.log('method        WER %   words  start med/p90 ms   end med/p90 ms   time ms');
    for (const r of rows) {
      console.log(
        `${r.method.padEnd(13)} ${String(r.wer).padStart(5)}   ${String(r.words).padStart(5)}  ${`${r.start_median_ms}/${r.start_p90_ms}`.padStart(15)}  ${`${r.end_median_ms}/${r.end_p90_ms}`.padStart(15)}  ${String(r.time_ms).padStart(8)}`,
      );
    }
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
