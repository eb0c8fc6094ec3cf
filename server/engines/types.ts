// One interface per engine kind. Languages are ISO 639-1 codes ('en', 'es', ...) at this interface.
// Built-in engines live in ./builtin; HTTP adapters will sit beside them; ./registry picks per language.

export interface SpeechRegion {
  /** Seconds. */
  start: number;
  end: number;
}

export interface Word {
  text: string;
  start: number;
  end: number;
  confidence?: number;
}

export interface AsrSegment {
  start: number;
  end: number;
  text: string;
  words: Word[];
}

export interface EngineCallOptions {
  signal?: AbortSignal;
}

/**
 * Every engine may need a one-time discovery (installed voices, language pairs, model files).
 * `init()` runs it (memoised per process); the capability methods (languages(), pairs(), voices())
 * answer from its result and return empty lists before it has run. `available` is false when the
 * engine's tool or model is missing on this machine.
 */
export interface EngineBase {
  id: string;
  /** Human-readable name, for logs and admin pages. */
  label?: string;
  init?(): Promise<void>;
  available?(): boolean;
}

export interface VadEngine extends EngineBase {
  detect(wav16kMono: string, o?: EngineCallOptions): Promise<SpeechRegion[]>;
}

export interface AsrEngine extends EngineBase {
  languages(): string[];
  transcribe(wav16kMono: string, regions: SpeechRegion[], lang: string, o?: EngineCallOptions): Promise<AsrSegment[]>;
}

export interface SpeakerProfile {
  speaker: string;
  gender: 'male' | 'female';
  meanPitchHz: number;
}

export interface DiarizationEngine extends EngineBase {
  diarize(
    wav16kMono: string,
    regions: SpeechRegion[],
    o?: EngineCallOptions & { numSpeakers?: number },
  ): Promise<{ labels: string[] /* one per region, e.g. 'SPEAKER_0' */; profiles: SpeakerProfile[] }>;
}

export interface GlossaryTerm {
  source: string;
  target: string;
}

export interface MtEngine extends EngineBase {
  pairs(): Array<[string, string]>;
  /** Whether glossary terms are enforced by this engine. */
  supportsGlossary?: boolean;
  translate(
    texts: string[],
    src: string,
    dst: string,
    o?: EngineCallOptions & { glossary?: GlossaryTerm[]; maxChars?: number[] },
  ): Promise<string[]>;
}

export interface Voice {
  id: string;
  name: string;
  lang: string;
  gender: 'male' | 'female';
  /** Typical fundamental frequency of the voice, Hz. */
  pitch?: number;
  engine: string;
  /** Regional variant of the language this voice speaks (e.g. 'en-gb', 'es-419'), if any. */
  dialect?: string;
}

export interface TtsEngine extends EngineBase {
  languages(): string[];
  voices(lang: string): Voice[];
  /** Whether the engine can clone a voice from a sample (built-in espeak cannot). */
  supportsCloning?: boolean;
  synthesize(
    req: { text: string; lang: string; voiceId: string; rate: number /* 1 = the language's normal rate */; outPath: string },
    o?: EngineCallOptions,
  ): Promise<{ durationSec: number }>;
}

export interface SeparationEngine extends EngineBase {
  separate(
    inputWav: string,
    regions: SpeechRegion[],
    out: { voice: string; background: string },
    o?: EngineCallOptions,
  ): Promise<void>;
}

export type EngineKind = 'vad' | 'asr' | 'diarization' | 'mt' | 'tts' | 'separation';

export interface EngineByKind {
  vad: VadEngine;
  asr: AsrEngine;
  diarization: DiarizationEngine;
  mt: MtEngine;
  tts: TtsEngine;
  separation: SeparationEngine;
}

/** Thrown by engines for bad input or a missing capability (unsupported language, unknown voice). */
export class EngineError extends Error {
  override readonly name = 'EngineError';
  constructor(
    readonly code: 'unsupported_language' | 'unknown_voice' | 'unavailable' | 'bad_input' | 'failed',
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}
