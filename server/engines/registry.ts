// The engine registry: per kind, an ordered list of engines (the configured/preferred one first, then
// the rest in registration order, built-ins last when adapters are registered with prefer). Capability
// queries (asrFor, mtFor, ttsFor) return the first available engine that can do the job, which gives
// per-language fallback to the built-ins. Discovery (installed voices, pairs, models) runs once per
// process and once per registry (ready()).
import { createApertiumMt } from './builtin/apertium';
import { createDspDiarization } from './builtin/dsp-diarization';
import { createDspSeparation } from './builtin/dsp-separation';
import { createEspeakTts } from './builtin/espeak';
import { createFaceApiEngine } from './builtin/face-api';
import { createBuiltinLipsync } from './builtin/lipsync/engine';
import { createPocketsphinxAsr } from './builtin/pocketsphinx';
import { createSileroVad } from './builtin/silero-vad';
import { baseLanguage, buildLanguageLists, voiceFitsVariant, type EngineCapabilities, type Language } from './languages';
import type {
  AsrEngine,
  DiarizationEngine,
  EngineBase,
  EngineByKind,
  EngineKind,
  FaceEngine,
  LipsyncEngine,
  MtEngine,
  SeparationEngine,
  TtsEngine,
  VadEngine,
  Voice,
} from './types';

export type EngineRegistryConfig = Partial<Record<EngineKind, string>>;

export interface EngineRegistry {
  /** The preferred engine of each kind (configured id if registered, else the first). */
  readonly vad: VadEngine;
  readonly asr: AsrEngine;
  readonly diarization: DiarizationEngine;
  readonly mt: MtEngine;
  readonly tts: TtsEngine;
  readonly separation: SeparationEngine;
  /** Face detection and landmarks (face check, built-in lip-sync). */
  readonly face: FaceEngine;
  /** The lip-sync engine LIPSYNC_ENGINE chose (built-in by default). */
  readonly lipsync: LipsyncEngine;
  /** Engines of a kind in preference order. */
  list<K extends EngineKind>(kind: K): Array<EngineByKind[K]>;
  /** Adds an engine; `prefer` puts it before the existing ones (HTTP adapters over built-ins). */
  register<K extends EngineKind>(kind: K, engine: EngineByKind[K], o?: { prefer?: boolean }): void;
  get<K extends EngineKind>(kind: K, id: string): EngineByKind[K] | undefined;
  /** Runs every engine's discovery once; engines whose discovery fails are treated as unavailable. */
  ready(): Promise<void>;
  /** Discovery failures by engine id. */
  problems(): Record<string, string>;
  asrFor(lang: string): Promise<AsrEngine | undefined>;
  mtFor(src: string, dst: string): Promise<MtEngine | undefined>;
  ttsFor(lang: string): Promise<TtsEngine | undefined>;
  /** The TTS engine that owns a voice id. */
  ttsForVoice(voiceId: string, lang: string): Promise<TtsEngine | undefined>;
  /** All voices for a language across available TTS engines, preferred engine first. */
  voices(lang: string): Promise<Voice[]>;
  capabilities(): Promise<EngineCapabilities>;
  languageLists(): Promise<{ transcription: Language[]; translation: Language[] }>;
}

/**
 * An engine's voices for a language tag: every voice of the language for a base tag ('es'); for a regional
 * variant ('es-419') the engine gets the whole tag (espeak-ng puts that region's voice first) and voices of
 * another region are left out, so the voice follows the region.
 */
function voicesOf(e: TtsEngine, lang: string): Voice[] {
  return e.voices(lang).filter((v) => voiceFitsVariant(v, lang));
}

export function createEngineRegistry(config: EngineRegistryConfig = {}): EngineRegistry {
  const face = createFaceApiEngine();
  const lists: { [K in EngineKind]: Array<EngineByKind[K]> } = {
    face: [face],
    lipsync: [createBuiltinLipsync(face)],
    vad: [createSileroVad()],
    asr: [createPocketsphinxAsr()],
    diarization: [createDspDiarization()],
    mt: [createApertiumMt()],
    tts: [createEspeakTts()],
    separation: [createDspSeparation()],
  };
  const failed = new Map<EngineBase, string>();
  const initialised = new Map<EngineBase, Promise<void>>();
  let listsCache: Promise<{ transcription: Language[]; translation: Language[] }> | null = null;

  const initEngine = (e: EngineBase): Promise<void> => {
    let p = initialised.get(e);
    if (!p) {
      p = (async () => {
        try {
          await e.init?.();
        } catch (err) {
          failed.set(e, (err as Error).message);
        }
      })();
      initialised.set(e, p);
    }
    return p;
  };
  const usable = (e: EngineBase) => !failed.has(e) && (e.available ? e.available() : true);

  const ordered = <K extends EngineKind>(kind: K): Array<EngineByKind[K]> => {
    const l = lists[kind] as Array<EngineByKind[K]>;
    const want = config[kind];
    if (!want) return [...l];
    const hit = l.filter((e) => e.id === want);
    return [...hit, ...l.filter((e) => e.id !== want)];
  };
  const preferred = <K extends EngineKind>(kind: K): EngineByKind[K] => {
    const l = ordered(kind);
    if (l.length === 0) throw new Error(`no ${kind} engine registered`);
    return l[0]!;
  };

  const ready = async () => {
    await Promise.all((Object.keys(lists) as EngineKind[]).flatMap((k) => (lists[k] as EngineBase[]).map(initEngine)));
  };

  const reg: EngineRegistry = {
    get vad() {
      return preferred('vad');
    },
    get asr() {
      return preferred('asr');
    },
    get diarization() {
      return preferred('diarization');
    },
    get mt() {
      return preferred('mt');
    },
    get tts() {
      return preferred('tts');
    },
    get separation() {
      return preferred('separation');
    },
    get face() {
      return preferred('face');
    },
    get lipsync() {
      return preferred('lipsync');
    },
    list: ordered,
    register(kind, engine, o = {}) {
      const l = lists[kind] as Array<typeof engine>;
      if (o.prefer) l.unshift(engine);
      else l.push(engine);
      listsCache = null;
    },
    get(kind, id) {
      return (lists[kind] as Array<EngineByKind[typeof kind]>).find((e) => e.id === id);
    },
    ready,
    problems() {
      return Object.fromEntries([...failed].map(([e, m]) => [e.id, m]));
    },
    async asrFor(lang) {
      await ready();
      const b = baseLanguage(lang);
      return ordered('asr').find((e) => usable(e) && e.languages().map(baseLanguage).includes(b));
    },
    async mtFor(src, dst) {
      await ready();
      const s = baseLanguage(src);
      const d = baseLanguage(dst);
      return ordered('mt').find((e) => usable(e) && e.pairs().some(([a, b]) => baseLanguage(a) === s && baseLanguage(b) === d));
    },
    async ttsFor(lang) {
      await ready();
      return ordered('tts').find((e) => usable(e) && voicesOf(e, lang).length > 0);
    },
    async ttsForVoice(voiceId, lang) {
      await ready();
      // A voice of the project's own tag (a regional variant's voices: 'es-419' offers that region's every
      // variant) or of its base language.
      const b = baseLanguage(lang);
      return ordered('tts').find((e) => usable(e) && (e.voices(lang).some((v) => v.id === voiceId) || e.voices(b).some((v) => v.id === voiceId)));
    },
    async voices(lang) {
      await ready();
      return ordered('tts').filter(usable).flatMap((e) => voicesOf(e, lang));
    },
    async capabilities() {
      await ready();
      const asrLanguages = [...new Set(ordered('asr').filter(usable).flatMap((e) => e.languages().map(baseLanguage)))];
      const pairMap = new Map<string, { src: string; dst: string; glossary: boolean; variants: boolean }>();
      for (const e of ordered('mt').filter(usable)) {
        // Engines that know per pair where glossaries work (DeepL) say so; others apply to all their pairs.
        const gp = (e as MtEngine & { glossaryPairs?: () => Array<[string, string]> }).glossaryPairs?.();
        for (const [a, b] of e.pairs()) {
          const src = baseLanguage(a);
          const dst = baseLanguage(b);
          const key = `${src}>${dst}`;
          const prev = pairMap.get(key);
          const glossary = gp ? gp.some(([x, y]) => baseLanguage(x) === src && baseLanguage(y) === dst) : !!e.supportsGlossary;
          // the vocabulary of a variant is the first engine's (the one mtFor picks)
          const variants = prev ? prev.variants : !!e.regionalVariants?.(dst);
          pairMap.set(key, { src, dst, glossary: !!prev?.glossary || glossary, variants });
        }
      }
      const t: Record<string, { dialects: string[]; cloning: boolean }> = {};
      for (const e of ordered('tts').filter(usable)) {
        for (const lang of e.languages().map(baseLanguage)) {
          const voices = e.voices(lang);
          if (voices.length === 0) continue;
          const cur = (t[lang] ??= { dialects: [], cloning: false });
          for (const v of voices) {
            const d = (v.dialect ?? v.lang).toLowerCase();
            if (!cur.dialects.includes(d)) cur.dialects.push(d);
          }
          cur.cloning ||= !!e.supportsCloning;
        }
      }
      return { asrLanguages, mtPairs: [...pairMap.values()], tts: t };
    },
    languageLists() {
      listsCache ??= reg.capabilities().then(buildLanguageLists);
      listsCache.catch(() => (listsCache = null));
      return listsCache;
    },
  };
  return reg;
}

/** Runs an engine's one-time discovery (memoised by the engine) before use. */
export async function ready<E extends { init?(): Promise<void> }>(e: E): Promise<E> {
  await e.init?.();
  return e;
}
