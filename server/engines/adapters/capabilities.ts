// What each HTTP adapter can do, as ISO 639-1 language lists (the codes of the engines' interfaces).
// These are the services' documented lists; the DeepL and ElevenLabs adapters refresh theirs from the
// service at init() when it answers. The registry turns them into the settings' language lists and
// flags (transcription/translation lists, voice_clone, is_glossary_available, is_voice_preset_available).

/**
 * Languages OpenAI documents for /v1/audio/transcriptions (Whisper languages with a word error rate
 * under 50%); OpenAI's text-to-speech follows the same list. Self-hosted Whisper servers
 * (faster-whisper) accept at least these.
 */
export const OPENAI_WHISPER_LANGUAGES: readonly string[] = [
  'af', 'ar', 'hy', 'az', 'be', 'bs', 'bg', 'ca', 'zh', 'hr', 'cs', 'da', 'nl', 'en', 'et', 'fi', 'fr', 'gl', 'de',
  'el', 'he', 'hi', 'hu', 'is', 'id', 'it', 'ja', 'kn', 'kk', 'ko', 'lv', 'lt', 'mk', 'ms', 'mr', 'mi', 'ne', 'no',
  'fa', 'pl', 'pt', 'ro', 'ru', 'sr', 'sk', 'sl', 'es', 'sw', 'sv', 'tl', 'ta', 'th', 'tr', 'uk', 'ur', 'vi', 'cy',
  // Norwegian Bokmål: the catalogue's code for Whisper's 'no' (sent as 'no', see whisperLanguage()).
  'nb',
];

/** The language code Whisper expects for an app code ('nb' -> 'no'). */
export function whisperLanguage(code: string): string {
  return code === 'nb' ? 'no' : code;
}

export const OPENAI_TTS_LANGUAGES: readonly string[] = [...OPENAI_WHISPER_LANGUAGES];

/** Languages the chat-completion translator is offered for (any ordered pair among them). */
export const LLM_MT_LANGUAGES: readonly string[] = [...OPENAI_WHISPER_LANGUAGES];

/** The built-in OpenAI voices (multilingual); gender as commonly described, pitch a typical f0. */
export const OPENAI_VOICES: ReadonlyArray<{ id: string; gender: 'male' | 'female'; pitch: number }> = [
  { id: 'alloy', gender: 'female', pitch: 190 },
  { id: 'echo', gender: 'male', pitch: 115 },
  { id: 'fable', gender: 'male', pitch: 130 },
  { id: 'onyx', gender: 'male', pitch: 95 },
  { id: 'nova', gender: 'female', pitch: 215 },
  { id: 'shimmer', gender: 'female', pitch: 205 },
];

/**
 * Kokoro voice names encode language and gender in their first two letters (af_heart = American
 * English female, jm_kumo = Japanese male). Returns null for a name that does not follow the scheme.
 */
export function kokoroVoiceInfo(id: string): { lang: string; dialect?: string; gender: 'male' | 'female' } | null {
  const m = /^([abjzefhip])([fm])_/.exec(id);
  if (!m) return null;
  const langs: Record<string, { lang: string; dialect?: string }> = {
    a: { lang: 'en', dialect: 'en-us' },
    b: { lang: 'en', dialect: 'en-gb' },
    j: { lang: 'ja' },
    z: { lang: 'zh' },
    e: { lang: 'es' },
    f: { lang: 'fr' },
    h: { lang: 'hi' },
    i: { lang: 'it' },
    p: { lang: 'pt', dialect: 'pt-br' },
  };
  return { ...langs[m[1]!]!, gender: m[2] === 'f' ? 'female' : 'male' };
}

// ---------------------------------------------------------------------------------------------- DeepL

/** DeepL source languages (GET /v2/languages?type=source), lower-cased ISO 639-1. */
export const DEEPL_SOURCE_LANGUAGES: readonly string[] = [
  'ar', 'bg', 'cs', 'da', 'de', 'el', 'en', 'es', 'et', 'fi', 'fr', 'he', 'hu', 'id', 'it', 'ja', 'ko', 'lt', 'lv',
  'nb', 'nl', 'pl', 'pt', 'ro', 'ru', 'sk', 'sl', 'sv', 'th', 'tr', 'uk', 'vi', 'zh',
];

/** DeepL target languages by base code (regional variants are chosen by toDeepLTarget). */
export const DEEPL_TARGET_LANGUAGES: readonly string[] = [...DEEPL_SOURCE_LANGUAGES];

/** Targets that accept the `formality` parameter (supports_formality in /v2/languages). */
export const DEEPL_FORMALITY_TARGETS: readonly string[] = ['de', 'es', 'fr', 'it', 'ja', 'nl', 'pl', 'pt', 'ru'];

/** Languages DeepL glossaries may combine (any ordered pair of two different ones). */
export const DEEPL_GLOSSARY_LANGUAGES: readonly string[] = [
  'da', 'de', 'en', 'es', 'fr', 'it', 'ja', 'ko', 'nb', 'nl', 'pl', 'pt', 'ru', 'sv', 'zh',
];

/** Base code the app uses -> DeepL's base code ('no' is Norwegian Bokmål at DeepL). */
function deeplBase(lang: string): string {
  const base = lang.toLowerCase().split(/[-_]/)[0]!;
  return base === 'no' ? 'nb' : base;
}

export function toDeepLSource(lang: string): string {
  return deeplBase(lang).toUpperCase();
}

/**
 * DeepL target code. English, Portuguese and Chinese need a variant: a dialect such as 'en-gb',
 * 'pt-pt', 'zh-hant' or 'es-419' picks it, otherwise EN-US, PT-BR and ZH-HANS.
 */
export function toDeepLTarget(lang: string): string {
  const l = lang.toLowerCase().replace('_', '-');
  const base = deeplBase(l);
  const variants: Record<string, { def: string; known: string[] }> = {
    en: { def: 'EN-US', known: ['EN-US', 'EN-GB'] },
    pt: { def: 'PT-BR', known: ['PT-BR', 'PT-PT'] },
    zh: { def: 'ZH-HANS', known: ['ZH-HANS', 'ZH-HANT'] },
    es: { def: 'ES', known: ['ES', 'ES-419'] },
  };
  const v = variants[base];
  if (!v) return base.toUpperCase();
  const asked = l.toUpperCase();
  if (v.known.includes(asked)) return asked;
  // Spanish of the Americas ('es-MX', 'es-AR'...) is DeepL's Latin American Spanish; 'es-ES' is ES
  if (base === 'es') return /^es-[a-z]{2}$/.test(l) && l !== 'es-es' ? 'ES-419' : 'ES';
  if (base === 'zh' && /-(tw|hk|mo)$/.test(l)) return 'ZH-HANT';
  if (base === 'pt' && l === 'pt-pt') return 'PT-PT';
  if (base === 'en' && /-(gb|uk|au|nz|ie)$/.test(l)) return 'EN-GB';
  return v.def;
}

/** Target languages whose regional variants DeepL translates into with their own vocabulary. */
export const DEEPL_VARIANT_LANGUAGES: readonly string[] = ['en', 'pt', 'es', 'zh'];

/** App code for a DeepL language code ('EN-US' -> 'en', 'NB' -> 'nb'). */
export function fromDeepL(code: string): string {
  return code.toLowerCase().split('-')[0]!;
}

// ------------------------------------------------------------------------------------------ ElevenLabs

/** Languages of eleven_multilingual_v2 (29). */
export const ELEVENLABS_MULTILINGUAL_V2_LANGUAGES: readonly string[] = [
  'en', 'ja', 'zh', 'de', 'hi', 'fr', 'ko', 'pt', 'it', 'es', 'id', 'nl', 'tr', 'tl', 'pl', 'sv', 'bg', 'ro', 'ar',
  'cs', 'el', 'fi', 'hr', 'ms', 'sk', 'da', 'ta', 'uk', 'ru',
];

/** eleven_turbo_v2_5 and eleven_flash_v2_5 add Hungarian, Norwegian and Vietnamese (32). */
export const ELEVENLABS_V2_5_LANGUAGES: readonly string[] = [...ELEVENLABS_MULTILINGUAL_V2_LANGUAGES, 'hu', 'no', 'nb', 'vi'];

export function elevenLabsLanguages(modelId: string): readonly string[] {
  return /_v2_5$|flash|turbo_v2_5/.test(modelId) ? ELEVENLABS_V2_5_LANGUAGES : ELEVENLABS_MULTILINGUAL_V2_LANGUAGES;
}

/** Whether the model takes the `language_code` body field (only the v2.5 models do). */
export function elevenLabsTakesLanguageCode(modelId: string): boolean {
  return /_v2_5$/.test(modelId);
}

/** ElevenLabs' premade voices that every account has; used until GET /v1/voices has answered. */
export const ELEVENLABS_PREMADE_VOICES: ReadonlyArray<{ id: string; name: string; gender: 'male' | 'female' }> = [
  { id: '21m00Tcm4TlvDq8ikWAM', name: 'Rachel', gender: 'female' },
  { id: 'EXAVITQu4vr4xnSDxMaL', name: 'Sarah', gender: 'female' },
  { id: 'pNInz6obpgDQGcFmaJgB', name: 'Adam', gender: 'male' },
  { id: 'JBFqnCBsd6RMkjVDRZzb', name: 'George', gender: 'male' },
];

/** Ordered pairs of different languages among `langs`. */
export function allPairs(langs: readonly string[]): Array<[string, string]> {
  const out: Array<[string, string]> = [];
  for (const a of langs) for (const b of langs) if (a !== b) out.push([a, b]);
  return out;
}

/** English name of a language code, for prompts ('ja' -> 'Japanese'). */
export function languageName(code: string): string {
  try {
    return new Intl.DisplayNames(['en'], { type: 'language' }).of(code) ?? code;
  } catch {
    return code;
  }
}
