// English ASR with Debian's pocketsphinx (pocketsphinx_batch + the en-us model). All regions of a file
// are decoded in one process per CPU share: a control file lists each region as a frame range of the
// 16 kHz WAV, and the -hypseg output gives each word's start frame relative to its region.
import { createHash } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, renameSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { cpus, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { CommandError } from '../../media/errors';
import { run } from '../../media/run';
import { readWavInfo } from '../../media/wav';
import { EngineError, type AsrCallOptions, type AsrEngine, type AsrSegment, type EngineCallOptions, type SpeechRegion, type Word } from '../types';
import { mapLimit, once, which } from './util';
import { buildTermDict, termWords, type TermDict } from './asr-terms';
import { calibratePosterior } from './word-confidence';

export const POCKETSPHINX_BIN = 'pocketsphinx_batch';
const FRAME_RATE = 100; // frames per second (-frate default)

export interface PocketsphinxOptions {
  /** Model folder holding en-us/ (acoustic), en-us.lm.bin and cmudict-en-us.dict. */
  modelDir?: string;
  /** Parallel decoder processes (default: min(2, CPUs)). */
  concurrency?: number;
  timeoutMs?: number;
}

export const DEFAULT_POCKETSPHINX_MODEL = '/usr/share/pocketsphinx/model/en-us';

function modelFiles(dir: string) {
  return { hmm: join(dir, 'en-us'), lm: join(dir, 'en-us.lm.bin'), dict: join(dir, 'cmudict-en-us.dict') };
}

/** Word tokens that are not words: sentence marks, silence, noise and filler entries. */
export function isFillerToken(w: string): boolean {
  return /^(<s>|<\/s>|<sil>|\[[^\]]*\]|\+\+.*\+\+|\+.*\+)$/i.test(w) || w.length === 0;
}

/** "leisure(2)" -> "leisure" (alternate pronunciations). */
export function stripVariant(w: string): string {
  return w.replace(/\(\d+\)$/, '');
}

export interface HypsegUtterance {
  uttId: string;
  /** Words with times in seconds relative to the utterance start (fillers removed). */
  words: Word[];
}

/**
 * Parses one -hypseg line: `uttid S s T t A a L l  sf ascr lscr word  sf ascr lscr word ... endframe`.
 */
export function parseHypsegLine(line: string, aliases?: ReadonlyMap<string, string>): HypsegUtterance | null {
  const tok = line.trim().split(/\s+/);
  if (tok.length < 9 || tok[1] !== 'S') return null;
  const uttId = tok[0]!;
  const rest = tok.slice(9);
  const items: Array<{ sf: number; word: string }> = [];
  let i = 0;
  for (; i + 3 < rest.length; i += 4) items.push({ sf: Number(rest[i]), word: rest[i + 3]! });
  const endFrame = i < rest.length ? Number(rest[i]) : items.length ? items[items.length - 1]!.sf : 0;
  const words: Word[] = [];
  items.forEach((it, k) => {
    if (isFillerToken(it.word)) return;
    const ef = k + 1 < items.length ? items[k + 1]!.sf : endFrame;
    words.push({ text: aliases?.get(it.word) ?? stripVariant(it.word), start: it.sf / FRAME_RATE, end: Math.max(it.sf + 1, ef) / FRAME_RATE });
  });
  return { uttId, words };
}

/**
 * Word posteriors from a -ctm file (`uttid 1 start dur word posterior`, times relative to the utterance): by
 * utterance id and start frame. pocketsphinx computes them from its word lattice (bestpath).
 */
export function parseCtm(text: string): Map<string, Map<number, number>> {
  const out = new Map<string, Map<number, number>>();
  for (const line of text.split('\n')) {
    const t = line.trim().split(/\s+/);
    if (t.length < 6) continue;
    const p = Number(t[5]);
    const sf = Math.round(Number(t[2]) * FRAME_RATE);
    if (!Number.isFinite(p) || !Number.isFinite(sf)) continue;
    let m = out.get(t[0]!);
    if (!m) out.set(t[0]!, (m = new Map()));
    m.set(sf, Math.max(0, Math.min(1, p)));
  }
  return out;
}

/** Sentence-cases recogniser output: first letter upper case, the pronoun "i" as "I". */
export function formatTranscript(words: readonly string[]): string {
  const t = words.join(' ').replace(/\bi\b/g, 'I').replace(/\bi'(m|ll|d|ve)\b/g, "I'$1");
  return t.charAt(0).toUpperCase() + t.slice(1);
}

/**
 * The language model's vocabulary as a file of one word a line (cached in the temp folder per model file): the
 * binary trie model ends with its words, NUL-separated. Extracted by a child process; null when that fails.
 */
const lmVocabs = new Map<string, () => Promise<string | null>>();
export function lmVocab(lmPath: string): Promise<string | null> {
  let f = lmVocabs.get(lmPath);
  if (!f) {
    f = once(async () => {
      try {
        const st = statSync(lmPath);
        const out = join(tmpdir(), `psx-lmvocab-${createHash('sha1').update(`${lmPath}:${st.size}:${st.mtimeMs}`).digest('hex').slice(0, 16)}.txt`);
        if (existsSync(out) && statSync(out).size > 0) return out;
        const tmp = `${out}.${process.pid}.tmp`;
        const q = (x: string) => `'${x.replace(/'/g, `'\\''`)}'`;
        await run('sh', ['-c', `tr '\\0' '\\n' < ${q(lmPath)} | tac | awk '/^[ -~]+$/ {print; next} {exit}' | tac > ${q(tmp)}`], { timeoutMs: 120_000 });
        if (statSync(tmp).size === 0) return null;
        renameSync(tmp, out);
        return out;
      } catch {
        return null;
      }
    });
    lmVocabs.set(lmPath, f);
  }
  return f();
}

export function createPocketsphinxAsr(opts: PocketsphinxOptions = {}): AsrEngine {
  const modelDir = opts.modelDir ?? DEFAULT_POCKETSPHINX_MODEL;
  const files = modelFiles(modelDir);
  const isAvailable = () => !!which(POCKETSPHINX_BIN) && existsSync(files.hmm) && existsSync(files.lm) && existsSync(files.dict);

  async function decodeChunk(
    dir: string,
    chunk: Array<{ idx: number; region: SpeechRegion }>,
    n: number,
    hdr: number,
    o: EngineCallOptions,
    terms: TermDict | null,
  ): Promise<Map<number, Word[]>> {
    const ctl = join(dir, `part${n}.ctl`);
    const hyp = join(dir, `part${n}.hypseg`);
    const ctm = join(dir, `part${n}.ctm`);
    const log = join(dir, `part${n}.log`);
    writeFileSync(
      ctl,
      chunk
        .map(({ idx, region }) => `in ${Math.max(0, Math.floor(region.start * FRAME_RATE))} ${Math.ceil(region.end * FRAME_RATE)} r${idx}`)
        .join('\n') + '\n',
    );
    const args = [
      '-hmm', files.hmm, '-lm', files.lm, '-dict', terms?.dictPath ?? files.dict,
      '-adcin', 'yes', '-adchdr', String(hdr), '-samprate', '16000',
      '-cepdir', dir, '-cepext', '.wav',
      '-ctl', ctl, '-hypseg', hyp, '-ctm', ctm, '-logfn', log,
    ];
    try {
      await run(POCKETSPHINX_BIN, args, { signal: o.signal, timeoutMs: opts.timeoutMs ?? 30 * 60_000, cpuSlot: true });
    } catch (e) {
      if (e instanceof CommandError && e.reason === 'exit') {
        const tail = existsSync(log) ? readFileSync(log, 'utf8').trimEnd().split('\n').slice(-8).join('\n') : '';
        throw new EngineError('failed', `pocketsphinx failed: ${e.message}\n${tail}`, { cause: e });
      }
      throw e;
    }
    const res = new Map<number, Word[]>();
    const text = existsSync(hyp) ? readFileSync(hyp, 'utf8') : '';
    // each word's posterior probability (its confidence), matched by start frame
    const post = parseCtm(existsSync(ctm) ? readFileSync(ctm, 'utf8') : '');
    for (const line of text.split('\n')) {
      const u = parseHypsegLine(line, terms?.aliases);
      if (!u) continue;
      const pu = post.get(u.uttId);
      res.set(
        Number(u.uttId.slice(1)),
        u.words.map((w) => {
          const c = pu?.get(Math.round(w.start * FRAME_RATE));
          return c === undefined ? w : { ...w, confidence: c };
        }),
      );
    }
    return res;
  }

  return {
    id: 'pocketsphinx',
    label: 'CMU PocketSphinx (en-us)',
    localWordConfidences: true,
    // the raw posteriors (what the choice of input compares) become the chance a word is right when stored
    wordConfidence: calibratePosterior,
    available: isAvailable,
    async init() {},
    languages() {
      return isAvailable() ? ['en'] : [];
    },
    async transcribe(wav16kMono, regions, lang, o: AsrCallOptions = {}) {
      if (lang.toLowerCase().split(/[-_]/)[0] !== 'en') {
        throw new EngineError('unsupported_language', `pocketsphinx only transcribes English, not '${lang}'`);
      }
      if (!isAvailable()) throw new EngineError('unavailable', 'pocketsphinx or its en-us model is not installed');
      const info = readWavInfo(wav16kMono);
      if (info.sampleRate !== 16000 || info.channels !== 1 || info.bitsPerSample !== 16 || info.format !== 1) {
        throw new EngineError('bad_input', 'pocketsphinx needs 16 kHz mono 16-bit PCM WAV');
      }
      const usable = regions
        .map((region, idx) => ({ idx, region: { start: Math.max(0, region.start), end: Math.min(region.end, info.durationSec) } }))
        .filter((r) => r.region.end - r.region.start >= 0.1);
      if (usable.length === 0) return [];
      const dir = mkdtempSync(join(tmpdir(), 'psx-'));
      try {
        symlinkSync(resolve(wav16kMono), join(dir, 'in.wav'));
        // the customer's words: added to a copy of the dictionary as pronunciations of a carrier word (asr-terms.ts)
        const words = o.terms?.length ? termWords(o.terms) : [];
        const terms = words.length
          ? await buildTermDict({ dictPath: files.dict, lmVocabPath: await lmVocab(files.lm), words, dir, signal: o.signal })
          : null;
        // split into chunks of about equal audio duration, one decoder process each
        const conc = Math.max(1, Math.min(o.parallel ?? opts.concurrency ?? Math.min(2, cpus().length), usable.length));
        const total = usable.reduce((s, r) => s + r.region.end - r.region.start, 0);
        const chunks: Array<typeof usable> = conc === 1 || total < 20 ? [usable] : Array.from({ length: conc }, () => []);
        if (chunks.length > 1) {
          let acc = 0;
          for (const r of usable) {
            const k = Math.min(conc - 1, Math.floor((acc / total) * conc));
            chunks[k]!.push(r);
            acc += r.region.end - r.region.start;
          }
        }
        const maps = await mapLimit(
          chunks.filter((c) => c.length),
          conc,
          (c, n) => decodeChunk(dir, c, n, info.dataOffset, o, terms),
        );
        const byIdx = new Map<number, Word[]>();
        for (const m of maps) for (const [k, v] of m) byIdx.set(k, v);
        const out: AsrSegment[] = [];
        for (const { idx, region } of usable) {
          const rel = byIdx.get(idx) ?? [];
          if (rel.length === 0) continue;
          const frameStart = Math.floor(region.start * FRAME_RATE) / FRAME_RATE;
          const words = rel.map((w) => ({
            text: w.text,
            start: round3(Math.min(frameStart + w.start, region.end)),
            end: round3(Math.min(frameStart + w.end, region.end)),
            ...(w.confidence !== undefined ? { confidence: round3(w.confidence) } : {}),
          }));
          out.push({ start: region.start, end: region.end, text: formatTranscript(words.map((w) => w.text)), words });
        }
        return out;
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    },
  };
}

function round3(x: number): number {
  return Math.round(x * 1000) / 1000;
}
