// Recognition benchmark (`npm run bench:asr`, issue 33): word error rate of the built-in recognizer (pocketsphinx)
// on the mix, on the separation's speech estimate (the voice stem) and on the input chosen per region by the
// recognizer's own confidence (what the transcription stage does), and its time per minute of audio.
// The test bed is built at run time: the LibriVox reading of pocketsphinx-testdata (5 sentences, 0.8 s apart), alone
// (clean) and with real music under it (drascula-music's recorded track, fb-music-high's module) at 0, 6 and 12 LU
// under the speech (EBU R128 integrated loudness of each, measured over the reading's length). Each mix goes
// through the pipeline's steps: 48 kHz stereo and 16 kHz mono audio, the voice-activity regions (Silero; the true
// sentence times when it is not installed), the separation engine (writes the 16 kHz speech estimate), recognition.
// The customer's words (issue 33 part 2): a clip of 10 sentences, each with an uncommon product or place name
// (festival's natural HTS voice us-slt when text2wave is installed, else espeak-ng en-us+klatt4 at 130 wpm; nothing mixed), recognised without and with the names as terms (how many of
// the 10 are recognised), and the clean reading's WER and recognition time without and with them.
// Options: --music=drascula2,fb (default both), --only=terms (just the terms section), --no-terms, --json, --keep.
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { FFMPEG, FFMPEG_BASE } from '../server/media/args';
import { runTool } from '../server/media/ffmpeg';
import { run } from '../server/media/run';
import { readWav, readWavInfo, toMono, writeWav } from '../server/media/wav';
import { createPocketsphinxAsr } from '../server/engines/builtin/pocketsphinx';
import { which } from '../server/engines/builtin/util';
import { createDspSeparation } from '../server/engines/builtin/dsp-separation';
import { createSileroVad } from '../server/engines/builtin/silero-vad';
import { chooseByConfidence, hasConfidences } from '../server/engines/builtin/asr-input';
import { segmentRegions } from '../server/domains/projects/stages/transcribe-segments';
import type { AsrEngine, AsrSegment, SpeechRegion } from '../server/engines/types';

const LIBRIVOX_DIR = '/usr/share/pocketsphinx/test/data/librivox';
const IDS = ['0870', '0880', '0890', '0920', '0930'];
const MUSIC: Record<string, { file: string; at: number }> = {
  drascula2: { file: '/usr/share/scummvm/drascula/audio/track2.ogg', at: 30 },
  fb: { file: '/usr/share/games/frozen-bubble/snd/frozen-mainzik-2p.xm', at: 10 },
};
const SR = 48000;

const args = Object.fromEntries(
  process.argv.slice(2).map((a) => {
    const m = /^--([\w-]+)(?:=(.*))?$/.exec(a);
    return m ? [m[1]!, m[2] ?? 'true'] : [a, 'true'];
  }),
);

function reference(id: string): string {
  const line = readFileSync(join(LIBRIVOX_DIR, 'transcription'), 'utf8')
    .split('\n')
    .find((l) => l.includes(`-${id})`));
  if (!line) throw new Error(`no transcript for ${id}`);
  return line.replace(/\(.*\)\s*$/, '').replace(/<\/?s>/g, '').trim();
}

const words = (s: string) => s.toLowerCase().replace(/[^\p{L}\p{N}'\s]/gu, ' ').split(/\s+/).filter(Boolean);
/** Word errors (Levenshtein over words; case and punctuation ignored) and the reference's length. */
function wordErrors(ref: string, hyp: string): { errors: number; words: number } {
  const r = words(ref);
  const h = words(hyp);
  let prev = Array.from({ length: h.length + 1 }, (_, j) => j);
  for (let i = 1; i <= r.length; i++) {
    const cur = [i];
    for (let j = 1; j <= h.length; j++) cur[j] = Math.min(prev[j]! + 1, cur[j - 1]! + 1, prev[j - 1]! + (r[i - 1] === h[j - 1] ? 0 : 1));
    prev = cur;
  }
  return { errors: prev[h.length]!, words: r.length };
}

async function ff(argv: string[]): Promise<void> {
  await runTool(FFMPEG, [...FFMPEG_BASE, ...argv]);
}

async function lufs(path: string): Promise<number> {
  const r = await run(FFMPEG, ['-nostdin', '-hide_banner', '-nostats', '-i', path, '-af', 'ebur128', '-f', 'null', '-']);
  const s = r.stderr.slice(r.stderr.lastIndexOf('Summary:'));
  return Number(/I:\s*(-?[\d.]+) LUFS/.exec(s)?.[1] ?? NaN);
}

interface Bed {
  dir: string;
  seconds: number;
  turns: SpeechRegion[];
  speech: Float32Array;
  ref: string;
}

async function buildReading(dir: string): Promise<Bed> {
  const gap = 0.8;
  let t = 1.0;
  const turns: SpeechRegion[] = [];
  const parts: Float32Array[] = [];
  for (const id of IDS) {
    const p = join(dir, `${id}.wav`);
    await ff(['-i', join(LIBRIVOX_DIR, `sense_and_sensibility_01_austen_64kb-${id}.wav`), '-af', `highpass=f=30:poles=2,aresample=${SR}`, '-ac', '1', '-c:a', 'pcm_f32le', p]);
    const x = toMono(readWav(p).channelData);
    turns.push({ start: t, end: t + x.length / SR });
    parts.push(x);
    t += x.length / SR + gap;
  }
  const seconds = Math.ceil(t + 0.5);
  const speech = new Float32Array(seconds * SR);
  for (const [k, x] of parts.entries()) speech.set(x, Math.round(turns[k]!.start * SR));
  return { dir, seconds, turns, speech, ref: IDS.map(reference).join(' ') };
}

/** The mix (48 kHz stereo float WAV): the reading plus `music` at `lu` LU under it (null: clean). */
async function buildMix(bed: Bed, music: string | null, lu: number | null, out: string): Promise<void> {
  const n = bed.speech.length;
  if (!music || lu === null) {
    writeWav(out, [bed.speech, bed.speech], SR);
    return;
  }
  const m = MUSIC[music]!;
  const raw = join(bed.dir, `music-${music}.wav`);
  await ff(['-ss', String(m.at), '-t', String(bed.seconds), '-i', m.file, '-af', `aresample=${SR},apad`, '-ac', '2', '-t', String(bed.seconds), '-c:a', 'pcm_f32le', raw]);
  const mus = readWav(raw).channelData;
  const sp = join(bed.dir, 'speech-only.wav');
  writeWav(sp, [bed.speech, bed.speech], SR);
  const gain = 10 ** (((await lufs(sp)) - lu - (await lufs(raw))) / 20);
  const L = new Float32Array(n);
  const R = new Float32Array(n);
  for (let i = 0; i < n; i++) {
    L[i] = bed.speech[i]! + (mus[0]![i] ?? 0) * gain;
    R[i] = bed.speech[i]! + ((mus[1] ?? mus[0]!)[i] ?? 0) * gain;
  }
  writeWav(out, [L, R], SR);
}

const text = (segs: AsrSegment[]) => segs.map((s) => s.text).join(' ');

/** The term clip: each sentence says one name (the name as a user would type it, and as it is in the text). */
export const TERM_SENTENCES: ReadonlyArray<{ name: string; text: string }> = [
  { name: 'Zephyrix', text: 'Our new Zephyrix headphones ship next week.' },
  { name: 'Ouarzazate', text: 'The meeting moved to Ouarzazate in the spring.' },
  { name: 'Nuvexa', text: 'She installed Nuvexa on every laptop in the office.' },
  { name: 'Tromso', text: 'We drove north from Tromso for two days.' },
  { name: 'Quillbrook', text: 'The Quillbrook notebook sold out in an hour.' },
  { name: 'Skelleftea', text: 'Please send the invoice to our office in Skelleftea.' },
  { name: 'Vantorio', text: 'The Vantorio blender is quieter than the old one.' },
  { name: 'Kalvaro', text: 'They opened a second store in Kalvaro last year.' },
  { name: 'Lumora', text: 'My brother works for Lumora in the design team.' },
  { name: 'Brightlane', text: 'Brightlane delivers groceries to the whole city.' },
];
export const TERM_VOICE = 'en-us+klatt4';
export const TERM_WPM = 130;
/** The natural voice (festival's HTS us-slt) used for the term clip when festival's text2wave is installed. */
export const TERM_FESTIVAL_VOICE = 'cmu_us_slt_arctic_hts';

/** Which voice the term clip is spoken with: festival's HTS voice when text2wave is installed, else espeak-ng. */
export function termClipVoice(): string {
  return which('text2wave') ? `festival ${TERM_FESTIVAL_VOICE}` : `espeak-ng ${TERM_VOICE} ${TERM_WPM} wpm`;
}

/** Synthesises the term clip (16 kHz mono WAV, 0.8 s between sentences) and returns its sentence times. */
export async function buildTermClip(dir: string, out: string, sentences = TERM_SENTENCES): Promise<SpeechRegion[]> {
  const parts: Float32Array[] = [];
  const regions: SpeechRegion[] = [];
  let t = 0.5;
  for (const [i, s] of sentences.entries()) {
    const raw = join(dir, `term${i}.wav`);
    const wav = join(dir, `term${i}_16k.wav`);
    if (which('text2wave')) {
      await run('text2wave', ['-eval', `(voice_${TERM_FESTIVAL_VOICE})`, '-o', raw], { input: s.text + '\n', timeoutMs: 120_000 });
    } else {
      await run('espeak-ng', ['-v', TERM_VOICE, '-s', String(TERM_WPM), '-w', raw, s.text]);
    }
    await ff(['-i', raw, '-ar', '16000', '-ac', '1', '-c:a', 'pcm_f32le', wav]);
    const x = toMono(readWav(wav).channelData);
    parts.push(x);
    regions.push({ start: t, end: t + x.length / 16000 });
    t += x.length / 16000 + 0.8;
  }
  const all = new Float32Array(Math.ceil((t + 0.5) * 16000));
  parts.forEach((x, k) => all.set(x, Math.round(regions[k]!.start * 16000)));
  writeWav(out, [all], 16000);
  return regions;
}

/** Which sentences' names are in the hypotheses (matched per region, case-insensitive). */
export function namesRecognised(segs: AsrSegment[], regions: SpeechRegion[], sentences = TERM_SENTENCES): boolean[] {
  return sentences.map((s, i) => {
    const r = regions[i]!;
    const hyp = segs.filter((g) => g.start < r.end && g.end > r.start).map((g) => g.text).join(' ');
    return words(hyp).includes(s.name.toLowerCase());
  });
}

async function termsSection(asr: AsrEngine, root: string): Promise<Record<string, unknown>> {
  const dir = join(root, 'terms');
  mkdirSync(dir, { recursive: true });
  const clip = join(dir, 'terms_16k.wav');
  const regions = await buildTermClip(dir, clip);
  const names = TERM_SENTENCES.map((s) => s.name);
  const ref = TERM_SENTENCES.map((s) => s.text).join(' ');
  const wer = (r: string, segs: AsrSegment[]) => {
    const e = wordErrors(r, text(segs));
    return Math.round((1000 * e.errors) / e.words) / 10;
  };
  const before = await asr.transcribe(clip, regions, 'en', { parallel: 1 });
  const after = await asr.transcribe(clip, regions, 'en', { parallel: 1, terms: names });
  // the clean reading, without and with the names as terms (their WER must not rise); timed 3 times each, alternately
  const bed = await buildReading(root);
  const r16 = join(dir, 'reading_16k.wav');
  const r48 = join(dir, 'reading_48k.wav');
  writeWav(r48, [bed.speech], SR);
  await ff(['-i', r48, '-ac', '1', '-ar', '16000', '-c:a', 'pcm_s16le', r16]);
  const minutes = readWavInfo(r16).durationSec / 60;
  const t = { base: [] as number[], terms: [] as number[] };
  let readBase: AsrSegment[] = [];
  let readTerms: AsrSegment[] = [];
  for (let k = 0; k < 3; k++) {
    let t0 = performance.now();
    readBase = await asr.transcribe(r16, bed.turns, 'en', { parallel: 1 });
    t.base.push((performance.now() - t0) / 1000);
    t0 = performance.now();
    readTerms = await asr.transcribe(r16, bed.turns, 'en', { parallel: 1, terms: names });
    t.terms.push((performance.now() - t0) / 1000);
  }
  const median = (a: number[]) => [...a].sort((x, y) => x - y)[Math.floor(a.length / 2)]!;
  const hitsBefore = namesRecognised(before, regions);
  const hitsAfter = namesRecognised(after, regions);
  const row = {
    voice: termClipVoice(),
    namesBefore: hitsBefore.filter(Boolean).length,
    namesAfter: hitsAfter.filter(Boolean).length,
    clipWerBefore: wer(ref, before),
    clipWerAfter: wer(ref, after),
    readingWerBefore: wer(bed.ref, readBase),
    readingWerAfter: wer(bed.ref, readTerms),
    secPerMinBefore: Math.round((median(t.base) / minutes) * 10) / 10,
    secPerMinAfter: Math.round((median(t.terms) / minutes) * 10) / 10,
    ...(args.verbose ? { hypBefore: text(before), hypAfter: text(after), lost: names.filter((_, i) => !hitsAfter[i]) } : {}),
  };
  if (!args.json) {
    console.log(
      `terms clip: ${row.namesBefore}/10 names recognised -> ${row.namesAfter}/10 with them as terms (clip WER ${row.clipWerBefore}% -> ${row.clipWerAfter}%)\n` +
        `reading (clean): WER ${row.readingWerBefore}% -> ${row.readingWerAfter}% with the 10 terms; recognition ${row.secPerMinBefore} -> ${row.secPerMinAfter} s per minute of audio`,
    );
    if (args.verbose) console.log(' before:', text(before), '\n after:', text(after), '\n lost:', row.lost);
  }
  return row;
}

async function main(): Promise<void> {
  const root = mkdtempSync(join(tmpdir(), 'bench-asr-'));
  const asr = createPocketsphinxAsr();
  if (asr.available?.() === false) throw new Error('pocketsphinx (pocketsphinx_batch and its en-us model) is not installed');
  const sep = createDspSeparation();
  const vad = createSileroVad();
  const useVad = vad.available?.() ?? true;
  if (useVad) await vad.init?.();
  const musics = String(args.music ?? 'drascula2,fb').split(',').filter(Boolean);
  const conditions: Array<{ name: string; music: string | null; lu: number | null }> = args.only === 'terms' ? [] : [{ name: 'clean', music: null, lu: null }];
  for (const mu of args.only === 'terms' ? [] : musics) for (const lu of [0, 6, 12]) conditions.push({ name: `${mu} ${lu} LU`, music: mu, lu });
  const rows: Array<Record<string, unknown>> = [];
  const tot = { mix: 0, speech: 0, chosen: 0, audio: 0 };
  try {
    const bed = await buildReading(root);
    for (const c of conditions) {
      const dir = join(root, c.name.replace(/\s+/g, '_'));
      mkdirSync(dir, { recursive: true });
      const mix48 = join(dir, 'audio_48k.wav');
      const mix16 = join(dir, 'audio_16k.wav');
      const speech16 = join(dir, 'speech_16k.wav');
      await buildMix(bed, c.music, c.lu, mix48);
      await ff(['-i', mix48, '-ac', '1', '-ar', '16000', '-c:a', 'pcm_s16le', mix16]);
      const vadRegions = useVad ? await vad.detect(mix16) : bed.turns;
      const regions = segmentRegions(vadRegions);
      await sep.separate(mix48, vadRegions, { background: join(dir, 'background.wav'), voice: speech16, voiceSampleRate: 16000 });
      const minutes = readWavInfo(mix16).durationSec / 60;
      let t0 = performance.now();
      const onMix = await asr.transcribe(mix16, regions, 'en', { parallel: 1 });
      const tMix = (performance.now() - t0) / 1000;
      t0 = performance.now();
      const onSpeech = await asr.transcribe(speech16, regions, 'en', { parallel: 1 });
      const tSpeech = (performance.now() - t0) / 1000;
      const chosen = hasConfidences(onMix) || hasConfidences(onSpeech) ? chooseByConfidence(regions, onMix, onSpeech) : { segments: onMix, choices: [] };
      const wer = (segs: AsrSegment[]) => {
        const e = wordErrors(bed.ref, text(segs));
        return Math.round((1000 * e.errors) / e.words) / 10;
      };
      const row = {
        condition: c.name,
        regions: regions.length,
        stemRegions: chosen.choices.filter((x) => x.input === 'speech').length,
        werMix: wer(onMix),
        werStem: wer(onSpeech),
        werChosen: wer(chosen.segments),
        secPerMinMix: Math.round((tMix / minutes) * 10) / 10,
        secPerMinChosen: Math.round(((tMix + tSpeech) / minutes) * 10) / 10,
        ...(args.verbose ? { choices: chosen.choices, hypMix: text(onMix), hypStem: text(onSpeech) } : {}),
      };
      tot.mix += tMix;
      tot.speech += tSpeech;
      tot.audio += minutes;
      rows.push(row);
      if (!args.json) {
        console.log(
          `${c.name.padEnd(16)} WER mix ${String(row.werMix).padStart(5)}%  stem ${String(row.werStem).padStart(5)}%  chosen ${String(row.werChosen).padStart(5)}%` +
            `  (stem kept in ${row.stemRegions}/${row.regions} regions)  recognition ${row.secPerMinMix} -> ${row.secPerMinChosen} s per minute of audio`,
        );
        if (args.verbose) console.log(JSON.stringify(chosen.choices), '\n  mix:', text(onMix), '\n  stem:', text(onSpeech));
      }
    }
    const terms = args['no-terms'] ? null : await termsSection(asr, root);
    const summary = {
      ...(terms ? { terms } : {}),
      regionsFrom: useVad ? 'silero-vad' : 'true sentence times',
      words: words(bed.ref).length,
      ...(tot.audio > 0
        ? { recognitionSecPerMinute: { mixOnly: Math.round((tot.mix / tot.audio) * 10) / 10, chosen: Math.round(((tot.mix + tot.speech) / tot.audio) * 10) / 10 } }
        : {}),
    };
    if (args.json) console.log(JSON.stringify({ rows, summary }, null, 2));
    else console.log(JSON.stringify(summary));
  } finally {
    if (!args.keep) rmSync(root, { recursive: true, force: true });
    else console.log('kept', root);
  }
}

if (process.argv[1] && /bench[\\/]asr\.ts$/.test(process.argv[1])) await main();
