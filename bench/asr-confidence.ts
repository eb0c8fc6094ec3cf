// Word confidence benchmark (`npm run bench:asr-confidence`, issue 33 part 3): how well pocketsphinx's word scores
// predict its errors. The five LibriVox sentences of pocketsphinx-testdata are recognised clean, with music under
// them (drascula-music, frozen-bubble) and with white noise, at several levels; each recognised word is aligned to
// the reference transcript (Levenshtein over words) and counted right or wrong. Printed: per band of the raw
// posterior (-ctm) the words and their error rate, and the error rate of the words below and above the doubtful
// threshold of the calibrated confidence. --snr=15,9 picks the noise levels; --json prints the pairs (raw posterior,
// right, condition) for refitting, --from=pairs.json reports on saved pairs without decoding.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { FFMPEG, FFMPEG_BASE } from '../server/media/args';
import { runTool } from '../server/media/ffmpeg';
import { readWav, writeWav } from '../server/media/wav';
import { createPocketsphinxAsr } from '../server/engines/builtin/pocketsphinx';
import { alignWords, calibratePosterior } from '../server/engines/builtin/word-confidence';
import { DOUBTFUL_WORD_CONFIDENCE } from '../contract/confidence';

const LIBRIVOX_DIR = '/usr/share/pocketsphinx/test/data/librivox';
const IDS = ['0870', '0880', '0890', '0920', '0930'];
const MUSIC = [
  { name: 'drascula', file: '/usr/share/scummvm/drascula/audio/track2.ogg', at: 30 },
  { name: 'fb', file: '/usr/share/games/frozen-bubble/snd/frozen-mainzik-2p.xm', at: 10 },
];
/** Speech-to-noise ratios (dB, RMS over the clip). */
const SNRS = [15, 9, 5];

function reference(id: string): string {
  const line = readFileSync(join(LIBRIVOX_DIR, 'transcription'), 'utf8').split('\n').find((l) => l.includes(`-${id})`));
  if (!line) throw new Error(`no transcript for ${id}`);
  return line.replace(/\(.*\)\s*$/, '').replace(/<\/?s>/g, '').trim();
}

const rms = (x: Float32Array) => Math.sqrt(x.reduce((s, v) => s + v * v, 0) / Math.max(1, x.length));

async function main(): Promise<void> {
  const json = process.argv.includes('--json');
  const from = process.argv.find((a) => a.startsWith('--from='))?.slice(7);
  if (from) {
    // pairs saved by a --json run: the statistics of the current calibration without decoding again
    const saved = JSON.parse(readFileSync(from, 'utf8')) as Array<{ raw: number; right: boolean; cond: string }>;
    report(saved.map((p) => ({ ...p, cal: Number.isFinite(p.raw) ? calibratePosterior(p.raw) : NaN })));
    return;
  }
  const dir = mkdtempSync(join(tmpdir(), 'bench-conf-'));
  const asr = createPocketsphinxAsr({ concurrency: 1 });
  const pairs: Array<{ raw: number; cal: number; right: boolean; cond: string }> = [];
  try {
    const noises: Array<{ name: string; data: Float32Array }> = [];
    for (const m of MUSIC) {
      const out = join(dir, `${m.name}.wav`);
      await runTool(FFMPEG, [...FFMPEG_BASE, '-ss', String(m.at), '-t', '40', '-i', m.file, '-ac', '1', '-ar', '16000', '-c:a', 'pcm_s16le', out]);
      noises.push({ name: m.name, data: readWav(out).channelData[0]! });
    }
    let seed = 7;
    const white = new Float32Array(16000 * 40).map(() => ((seed = (seed * 1103515245 + 12345) & 0x7fffffff) / 0x7fffffff) * 2 - 1);
    noises.push({ name: 'white', data: white });
    const conds: Array<{ name: string; noise: Float32Array | null; snr: number }> = [{ name: 'clean', noise: null, snr: 0 }];
    const snrArg = process.argv.find((a) => a.startsWith('--snr='))?.slice(6);
    const snrs = snrArg ? snrArg.split(',').map(Number) : SNRS;
    for (const n of noises) for (const snr of snrs) conds.push({ name: `${n.name} ${snr} dB`, noise: n.data, snr });
    for (const c of conds) {
      for (const id of IDS) {
        const speech = readWav(join(LIBRIVOX_DIR, `sense_and_sensibility_01_austen_64kb-${id}.wav`)).channelData[0]!;
        let x = speech;
        if (c.noise) {
          const g = (rms(speech) / rms(c.noise.subarray(0, speech.length))) * 10 ** (-c.snr / 20);
          x = speech.map((v, i) => Math.max(-1, Math.min(1, v + (c.noise![i % c.noise!.length]! * g))));
        }
        const wav = join(dir, `in-${id}.wav`);
        writeWav(wav, [x], 16000);
        const segs = await asr.transcribe(wav, [{ start: 0, end: speech.length / 16000 }], 'en');
        const words = segs.flatMap((s) => s.words);
        const right = alignWords(reference(id), words.map((w) => w.text));
        words.forEach((w, i) => pairs.push({ raw: w.confidence ?? NaN, cal: w.confidence === undefined ? NaN : calibratePosterior(w.confidence), right: right[i]!, cond: c.name }));
      }
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  if (json) {
    console.log(JSON.stringify(pairs.map((p) => ({ raw: p.raw, right: p.right, cond: p.cond }))));
    return;
  }
  report(pairs);
}

function report(pairs: Array<{ raw: number; cal: number; right: boolean; cond: string }>): void {
  const scored = pairs.filter((p) => Number.isFinite(p.raw));
  console.log(`words recognised: ${pairs.length}, with a score: ${scored.length}, wrong: ${pairs.filter((p) => !p.right).length}`);
  console.log('raw posterior band   words  error rate');
  const bands = [0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 0.95, 1.0001];
  for (let i = 0; i + 1 < bands.length; i++) {
    const b = scored.filter((p) => p.raw >= bands[i]! && p.raw < bands[i + 1]!);
    if (!b.length) continue;
    const e = b.filter((p) => !p.right).length / b.length;
    console.log(`${bands[i]!.toFixed(2)}-${Math.min(1, bands[i + 1]!).toFixed(2)}  ${String(b.length).padStart(10)}  ${(e * 100).toFixed(0).padStart(9)}%`);
  }
  const rate = (xs: typeof pairs) => (xs.length ? `${((xs.filter((p) => !p.right).length / xs.length) * 100).toFixed(1)}% of ${xs.length}` : '-');
  const low = scored.filter((p) => p.cal < DOUBTFUL_WORD_CONFIDENCE);
  const high = scored.filter((p) => p.cal >= DOUBTFUL_WORD_CONFIDENCE);
  const wrong = scored.filter((p) => !p.right);
  console.log(`calibrated confidence < ${DOUBTFUL_WORD_CONFIDENCE} (doubtful): error rate ${rate(low)}`);
  console.log(`calibrated confidence >= ${DOUBTFUL_WORD_CONFIDENCE}:           error rate ${rate(high)}`);
  console.log(`share of the wrong words marked doubtful (recall): ${((wrong.filter((p) => p.cal < DOUBTFUL_WORD_CONFIDENCE).length / Math.max(1, wrong.length)) * 100).toFixed(1)}%`);
  for (const cond of ['clean', ...new Set(pairs.map((p) => p.cond).filter((c) => c !== 'clean'))]) {
    const xs = scored.filter((p) => p.cond === cond);
    const d = xs.filter((p) => p.cal < DOUBTFUL_WORD_CONFIDENCE);
    const mean = xs.reduce((a, p) => a + p.cal, 0) / Math.max(1, xs.length);
    console.log(`  ${cond.padEnd(16)} mean confidence ${mean.toFixed(2)}`);
    console.log(`  ${cond.padEnd(16)} words ${String(xs.length).padStart(3)}  wrong ${rate(xs).padEnd(12)}  doubtful ${d.length} (wrong ${rate(d)}), sure wrong ${rate(xs.filter((p) => p.cal >= DOUBTFUL_WORD_CONFIDENCE))}`);
  }
  // Brier score of the calibrated confidence as the probability of being right, against the raw posterior's
  const brier = (f: (p: (typeof pairs)[number]) => number) => scored.reduce((s, p) => s + (f(p) - (p.right ? 1 : 0)) ** 2, 0) / scored.length;
  console.log(`Brier score (lower is better): raw ${brier((p) => p.raw).toFixed(4)}, calibrated ${brier((p) => p.cal).toFixed(4)}`);
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
