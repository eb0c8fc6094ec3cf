// Text-to-speech with espeak-ng (formant synthesis, 100+ languages, offline). Voices come from
// `espeak-ng --voices` (run once per process); each language voice is offered with male and female
// variants (+m1, +f3 ...). The rate is words per minute = base wpm × rate; the output duration is
// measured from the written WAV.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CommandError } from '../../media/errors';
import { run } from '../../media/run';
import { wavDurationSec } from '../../media/wav';
import { EngineError, type SpeechStyle, type TtsEngine, type Voice } from '../types';
import { variantDialects } from '../languages';
import { ISO3_TO_ISO1 } from './apertium';
import { once, which } from './util';

export const ESPEAK_BIN = 'espeak-ng';
/** espeak-ng's default speed, words per minute; rate 1 maps to this. */
export const ESPEAK_BASE_WPM = 175;
export const ESPEAK_MIN_WPM = 80;
export const ESPEAK_MAX_WPM = 500;

export interface EspeakVoiceEntry {
  /** espeak language/voice code, e.g. 'en-us', 'es-419', 'cmn'. */
  code: string;
  /** espeak voice name, e.g. 'English_(America)'. */
  name: string;
  /** ISO 639-1 language (null when the language has none). */
  lang: string | null;
}

/** Preferred espeak voice for a 639-1 language when several regional voices exist. */
export const ESPEAK_PRIMARY: Readonly<Record<string, string>> = {
  en: 'en-us', fr: 'fr-fr', pt: 'pt', es: 'es', zh: 'cmn', vi: 'vi', fa: 'fa', hy: 'hy', ru: 'ru', nb: 'nb',
};

/** Variants offered per voice, with their gender and measured mean pitch (Hz) on en-us. */
export const ESPEAK_VARIANTS: ReadonlyArray<{ id: string; gender: 'male' | 'female'; pitch: number; label: string }> = [
  { id: 'm1', gender: 'male', pitch: 94, label: 'Male 1' },
  { id: 'm3', gender: 'male', pitch: 104, label: 'Male 2' },
  { id: 'm7', gender: 'male', pitch: 106, label: 'Male 3' },
  { id: 'm2', gender: 'male', pitch: 100, label: 'Male 4' },
  { id: 'f1', gender: 'female', pitch: 179, label: 'Female 1' },
  { id: 'f3', gender: 'female', pitch: 208, label: 'Female 2' },
  { id: 'f4', gender: 'female', pitch: 178, label: 'Female 3' },
  { id: 'f2', gender: 'female', pitch: 194, label: 'Female 4' },
];
/** Variants offered for the secondary regional voices of a language. */
const SECONDARY_VARIANTS = new Set(['m3', 'f3']);

/** 'en-us' -> 'en', 'cmn' -> 'zh', 'chr-US-Qaaa-x-west' -> null. */
export function espeakCodeToIso1(code: string): string | null {
  const base = code.toLowerCase().split('-')[0]!;
  if (base.length === 2) return base;
  return ISO3_TO_ISO1[base] ?? null;
}

/** Parses `espeak-ng --voices` output. */
export function parseEspeakVoices(out: string): EspeakVoiceEntry[] {
  const res: EspeakVoiceEntry[] = [];
  for (const line of out.split('\n').slice(1)) {
    const cols = line.trim().split(/\s+/);
    if (cols.length < 5) continue;
    const [, code, , name] = cols as [string, string, string, string];
    res.push({ code, name, lang: espeakCodeToIso1(code) });
  }
  return res;
}

/** Discovery: installed espeak-ng voices (cached per process). */
export const discoverEspeakVoices = once(async (): Promise<EspeakVoiceEntry[]> => {
  if (!which(ESPEAK_BIN)) return [];
  const { stdout } = await run(ESPEAK_BIN, ['--voices'], { timeoutMs: 30_000 });
  return parseEspeakVoices(stdout);
});

/** Voices offered for a language from the discovered espeak voices. */
export function buildVoiceList(entries: readonly EspeakVoiceEntry[], lang: string): Voice[] {
  const base = lang.toLowerCase().split(/[-_]/)[0]!;
  const mine = entries.filter((e) => e.lang === base);
  if (mine.length === 0) return [];
  // a regional variant ('es-419', 'pt-BR') is spoken by its region's voice first
  const regional = variantDialects(lang)
    .map((d) => mine.find((e) => e.code === d))
    .find((e) => e !== undefined);
  const primaryCode = regional?.code ?? ESPEAK_PRIMARY[base] ?? (mine.find((e) => e.code === base)?.code ?? mine[0]!.code);
  const primary = mine.find((e) => e.code === primaryCode) ?? mine[0]!;
  const ordered = [primary, ...mine.filter((e) => e !== primary)];
  const voices: Voice[] = [];
  for (const e of ordered) {
    const label = e.name.replace(/_/g, ' ');
    for (const v of ESPEAK_VARIANTS) {
      if (e !== primary && !SECONDARY_VARIANTS.has(v.id)) continue;
      voices.push({
        id: `espeak:${e.code}+${v.id}`,
        name: `${label} · ${v.label}`,
        lang: base,
        gender: v.gender,
        pitch: v.pitch,
        engine: 'espeak',
        dialect: e.code,
      });
    }
  }
  return voices;
}

/** 'espeak:en-us+f3' -> { code: 'en-us', variant: 'f3' }. */
export function parseEspeakVoiceId(id: string): { code: string; variant: string | null } | null {
  const m = /^(?:espeak:)?([a-z]{2,3}(?:-[a-z0-9]+)*)(?:\+([a-z0-9]+))?$/i.exec(id.trim());
  return m ? { code: m[1]!.toLowerCase(), variant: m[2] ?? null } : null;
}

export function espeakWpm(rate: number, baseWpm = ESPEAK_BASE_WPM): number {
  if (!(rate > 0) || !Number.isFinite(rate)) throw new EngineError('bad_input', `invalid speech rate ${rate}`);
  return Math.round(Math.min(ESPEAK_MAX_WPM, Math.max(ESPEAK_MIN_WPM, baseWpm * rate)));
}

/** espeak-ng arguments for one synthesis (text read from `textFile`). */
export function espeakArgs(o: { code: string; variant: string | null; wpm: number; textFile: string; outPath: string; ssml?: boolean }): string[] {
  return ['-v', o.variant ? `${o.code}+${o.variant}` : o.code, '-s', String(o.wpm), '-b', '1', ...(o.ssml ? ['-m'] : []), '-f', o.textFile, '-w', o.outPath];
}

const xmlEscape = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');

/** The text file of one synthesis: plain, or SSML with a prosody range (pitch variation) when a style asks. */
export function espeakText(text: string, style?: SpeechStyle): { text: string; ssml: boolean } {
  const plain = text.replace(/\s+/g, ' ').trim();
  const pct = style?.pitchRangePct;
  if (pct === undefined || !Number.isFinite(pct) || Math.abs(pct - 100) < 1) return { text: plain + '\n', ssml: false };
  const range = Math.round(Math.min(400, Math.max(10, pct)));
  return { text: `<speak><prosody range="${range}%">${xmlEscape(plain)}</prosody></speak>\n`, ssml: true };
}

export interface EspeakOptions {
  /** Base words per minute per 639-1 language (rate 1); default 175 for all. */
  baseWpm?: Partial<Record<string, number>>;
  timeoutMs?: number;
}

export function createEspeakTts(opts: EspeakOptions = {}): TtsEngine {
  let entries: EspeakVoiceEntry[] | null = null;
  const init = async () => {
    entries = await discoverEspeakVoices();
  };
  return {
    id: 'espeak',
    label: 'eSpeak NG',
    supportsCloning: false,
    init,
    available: () => !!which(ESPEAK_BIN),
    languages() {
      if (!entries) return [];
      return [...new Set(entries.map((e) => e.lang).filter((l): l is string => !!l))].sort();
    },
    voices(lang) {
      return entries ? buildVoiceList(entries, lang) : [];
    },
    async synthesize(req, o = {}) {
      if (!entries) await init();
      const parsed = parseEspeakVoiceId(req.voiceId);
      if (!parsed) throw new EngineError('unknown_voice', `not an espeak voice: ${req.voiceId}`);
      if (!entries!.some((e) => e.code === parsed.code)) {
        throw new EngineError('unknown_voice', `espeak-ng has no voice '${parsed.code}'`);
      }
      if (parsed.variant && !/^(m[1-8]|f[1-5]|[a-z0-9]+)$/i.test(parsed.variant)) {
        throw new EngineError('unknown_voice', `unknown espeak variant '${parsed.variant}'`);
      }
      const base = req.lang.toLowerCase().split(/[-_]/)[0]!;
      const wpm = espeakWpm(req.rate, opts.baseWpm?.[base] ?? ESPEAK_BASE_WPM);
      const dir = mkdtempSync(join(tmpdir(), 'espeak-'));
      const textFile = join(dir, 'text.txt');
      const body = espeakText(req.text, req.style);
      writeFileSync(textFile, body.text);
      try {
        await run(ESPEAK_BIN, espeakArgs({ ...parsed, wpm, textFile, outPath: req.outPath, ssml: body.ssml }), {
          signal: o.signal,
          timeoutMs: opts.timeoutMs ?? 5 * 60_000,
          cpuSlot: true,
        });
      } catch (e) {
        if (e instanceof CommandError && e.reason === 'aborted') throw e;
        throw new EngineError('failed', `espeak-ng failed: ${(e as Error).message}`, { cause: e });
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
      return { durationSec: wavDurationSec(req.outPath) };
    },
  };
}
