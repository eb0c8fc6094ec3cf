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
  /**
   * How sure the recognizer is of the segment, 0..1 (the duration-weighted confidence of its words, or a server's
   * own segment score such as Whisper's avg_logprob and no_speech_prob); absent when the engine gives none.
   */
  confidence?: number;
}

export interface EngineCallOptions {
  signal?: AbortSignal;
  /** Share of the work done so far (0..1), reported now and then by engines that know it. */
  onProgress?: (fraction: number) => void;
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

export interface AsrCallOptions extends EngineCallOptions {
  /**
   * Decoders (processes, requests) the engine may run at once for this call; the pipeline passes 1 when
   * it runs several chunks of a long file side by side itself. Default: the engine's own choice.
   */
  parallel?: number;
  /**
   * The customer's words (dictionary terms, the project's word list): engines that can bias their recognition
   * toward them do (pocketsphinx adds them to its dictionary); others ignore them.
   */
  terms?: readonly string[];
}

export interface AsrEngine extends EngineBase {
  /**
   * Runs on this machine and scores its words (confidences): a second decode of the separation's speech estimate
   * costs nothing but CPU and can be compared with the mix's (a paid service is never asked twice).
   */
  readonly localWordConfidences?: boolean;
  /**
   * Maps the engine's own word scores (as transcribe() gives them) to the chance each word is right, 0..1; the
   * transcription stage stores the mapped values (issue 33). Absent: the scores already are that chance.
   */
  readonly wordConfidence?: (raw: number) => number;
  languages(): string[];
  transcribe(wav16kMono: string, regions: SpeechRegion[], lang: string, o?: AsrCallOptions): Promise<AsrSegment[]>;
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
  /** The source term matches only with this exact case ("Turkey" the country, not "roast turkey"). */
  caseSensitive?: boolean;
}

export interface MtEngine extends EngineBase {
  pairs(): Array<[string, string]>;
  /** Whether glossary terms are enforced by this engine. */
  supportsGlossary?: boolean;
  /**
   * Whether the engine's vocabulary follows a regional variant of the target language ('es-419' gets Latin
   * American words), per 639-1 target. Unset: one vocabulary per language (the voice still follows the region).
   */
  regionalVariants?(dst: string): boolean;
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
    req: { text: string; lang: string; voiceId: string; rate: number /* 1 = the language's normal rate */; outPath: string; style?: SpeechStyle },
    o?: EngineCallOptions,
  ): Promise<{ durationSec: number }>;
}

/** How to say it, for engines that can (built-in voice matching): ignored by the others. */
export interface SpeechStyle {
  /** Pitch variation relative to the voice's own (100 = unchanged; espeak-ng SSML prosody range). */
  pitchRangePct?: number;
}

export interface SeparationEngine extends EngineBase {
  /**
   * Writes the background (music and effects: stereo WAV, the input's rate and length) and, when `out.voice` is
   * given, the voice estimate (the speech the background lost: mono 16-bit WAV at `out.voiceSampleRate` when the
   * engine can, else the input's rate). Input + nothing else: the background plus the voice rebuild the input.
   */
  separate(
    inputWav: string,
    regions: SpeechRegion[],
    out: { voice?: string; background: string; voiceSampleRate?: number },
    o?: EngineCallOptions,
  ): Promise<void>;
}

/** A picture as packed 8-bit RGB, row by row (width * height * 3 bytes). */
export interface RgbImage {
  data: Uint8Array;
  width: number;
  height: number;
}

/** Pixels of the image the face was found in. */
export interface FaceBox {
  x: number;
  y: number;
  width: number;
  height: number;
}

export type Point = [number, number];

export interface DetectedFace {
  box: FaceBox;
  /** Detector confidence, 0..1. */
  score: number;
  /** The 68 points of the iBUG 300-W layout (jaw 0-16, brows, nose, eyes, mouth 48-67), image pixels. */
  landmarks: Point[];
}

export interface FaceEngine extends EngineBase {
  /** Faces in one picture with their landmarks, largest first. */
  detect(img: RgbImage, o?: EngineCallOptions & { minScore?: number; maxFaces?: number }): Promise<DetectedFace[]>;
  /** Landmarks of faces already located (tracking between detections): one 68-point list per box. */
  landmarks(img: RgbImage, boxes: FaceBox[], o?: EngineCallOptions): Promise<Point[][]>;
}

/** When one speaker of the dub talks, on the dubbed video's timeline (seconds). */
export interface SpeechTurn {
  speaker: string;
  start: number;
  end: number;
}

export interface LipsyncRequest {
  /** The dubbed video (its picture is the original's). */
  video: string;
  /** The dub's voice-only track (WAV): what the mouths follow. */
  voice: string;
  /** The soundtrack of the output (the dub mixed with the background); default: the video's own audio. */
  audio?: string;
  /** Who speaks when in the dub. Faces move only inside these turns. */
  turns: SpeechTurn[];
  /** Several people speak on screen: each speaker's turns drive the face that speaks them. */
  multipleSpeakers: boolean;
  /** Where the lip-synced MP4 goes. */
  outPath: string;
  /** Publicly reachable URLs of `video` and `voice` (hosted engines fetch them instead of an upload). */
  urls?: { video: string; voice: string };
  /** A stable key of this request (hosted engines use it as their idempotency key). */
  requestKey?: string;
  /** Called with the fraction done, 0..1 (at most a few times a second). */
  onProgress?: (fraction: number) => void;
}

export interface LipsyncResult {
  engine: string;
  /** Frames of the output and how many of them were changed (built-in engine). */
  frames?: number;
  framesChanged?: number;
  /** Face tracks found and which speaker drove which one. */
  faces?: number;
  speakerFaces?: Record<string, number>;
}

export interface LipsyncEngine extends EngineBase {
  lipsync(req: LipsyncRequest, o?: EngineCallOptions): Promise<LipsyncResult>;
}

export type EngineKind = 'vad' | 'asr' | 'diarization' | 'mt' | 'tts' | 'separation' | 'face' | 'lipsync';

export interface EngineByKind {
  vad: VadEngine;
  asr: AsrEngine;
  diarization: DiarizationEngine;
  mt: MtEngine;
  tts: TtsEngine;
  separation: SeparationEngine;
  face: FaceEngine;
  lipsync: LipsyncEngine;
}

/** Thrown by engines for bad input or a missing capability (unsupported language, unknown voice). */
export class EngineError extends Error {
  override readonly name = 'EngineError';
  constructor(
    readonly code: 'unsupported_language' | 'unknown_voice' | 'unavailable' | 'bad_input' | 'failed' | 'no_face',
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}
