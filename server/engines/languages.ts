// Language metadata catalogue and the settings' language lists, filtered by what is installed.
//
// The catalogue holds facts about languages (stable numeric ids, labels, flags, speech-rate metrics).
// buildLanguageLists() keeps only what the engines can do on this machine:
//   transcription = languages some ASR engine transcribes;
//   translation   = target languages with a TTS voice and an MT pair from at least one transcription
//                   language.
// Speech metrics: speech_rate is a typical conversational rate in syllables per second (read-speech
// rates of Pellegrino et al. 2011 scaled to dubbing pace); mean_char_per_syllable counts letters
// (no spaces or punctuation) per syllable. server/domains/projects/stages/fit.ts uses both to estimate durations.
import { TEXT } from '../../contract/errors';
import type { Language } from '../../contract/schemas/settings';

export type { Language };

export interface LanguageMeta {
  id: number;
  /** Code used in the API and, base part before '-', at the engine interface (ISO 639-1). */
  value: string;
  label: string;
  translation_label: string;
  country_code: string;
  country_label: string;
  speech_rate: number;
  mean_char_per_syllable: number;
  /** The language's voices can change tempo (speech-rate fitting). */
  speech_tempo_feature: boolean;
  is_dialect: boolean;
  is_free: boolean;
  /** Regional voice variant used for this entry's voices (TTS dialect code), dialect entries only. */
  voice_preset_dialect: string | null;
  voice_preset_dialect_label: string | null;
}

type Row = [id: number, value: string, label: string, native: string, cc: string, country: string, rate: number, cps: number];

// Ids are stable: never renumber, only append.
const ROWS: Row[] = [
  [1, 'en', 'English', 'English', 'US', 'United States', 5.3, 3.0],
  [2, 'es', 'Spanish', 'Español', 'ES', 'Spain', 6.6, 2.2],
  [3, 'fr', 'French', 'Français', 'FR', 'France', 6.1, 2.7],
  [4, 'de', 'German', 'Deutsch', 'DE', 'Germany', 5.1, 3.1],
  [5, 'it', 'Italian', 'Italiano', 'IT', 'Italy', 5.9, 2.2],
  [6, 'pt', 'Portuguese', 'Português', 'PT', 'Portugal', 6.0, 2.3],
  [7, 'ru', 'Russian', 'Русский', 'RU', 'Russia', 5.2, 2.5],
  [8, 'zh', 'Chinese (Mandarin)', '中文', 'CN', 'China', 4.4, 1.0],
  [9, 'ja', 'Japanese', '日本語', 'JP', 'Japan', 6.7, 1.2],
  [10, 'ko', 'Korean', '한국어', 'KR', 'South Korea', 6.0, 1.0],
  [11, 'ar', 'Arabic', 'العربية', 'SA', 'Saudi Arabia', 5.0, 2.2],
  [12, 'hi', 'Hindi', 'हिन्दी', 'IN', 'India', 5.5, 2.4],
  [13, 'tr', 'Turkish', 'Türkçe', 'TR', 'Turkey', 5.9, 2.5],
  [14, 'pl', 'Polish', 'Polski', 'PL', 'Poland', 5.6, 2.7],
  [15, 'nl', 'Dutch', 'Nederlands', 'NL', 'Netherlands', 5.4, 3.0],
  [16, 'sv', 'Swedish', 'Svenska', 'SE', 'Sweden', 5.4, 2.9],
  [17, 'da', 'Danish', 'Dansk', 'DK', 'Denmark', 5.4, 2.9],
  [18, 'fi', 'Finnish', 'Suomi', 'FI', 'Finland', 5.3, 2.6],
  [19, 'nb', 'Norwegian (Bokmål)', 'Norsk bokmål', 'NO', 'Norway', 5.4, 2.9],
  [20, 'cs', 'Czech', 'Čeština', 'CZ', 'Czechia', 5.5, 2.6],
  [21, 'el', 'Greek', 'Ελληνικά', 'GR', 'Greece', 5.8, 2.4],
  [22, 'he', 'Hebrew', 'עברית', 'IL', 'Israel', 5.5, 1.9],
  [23, 'hu', 'Hungarian', 'Magyar', 'HU', 'Hungary', 5.5, 2.6],
  [24, 'id', 'Indonesian', 'Bahasa Indonesia', 'ID', 'Indonesia', 6.0, 2.4],
  [25, 'ms', 'Malay', 'Bahasa Melayu', 'MY', 'Malaysia', 6.0, 2.4],
  [26, 'ro', 'Romanian', 'Română', 'RO', 'Romania', 5.8, 2.4],
  [27, 'uk', 'Ukrainian', 'Українська', 'UA', 'Ukraine', 5.3, 2.5],
  [28, 'vi', 'Vietnamese', 'Tiếng Việt', 'VN', 'Vietnam', 5.0, 3.3],
  [29, 'th', 'Thai', 'ไทย', 'TH', 'Thailand', 5.5, 3.0],
  [30, 'bg', 'Bulgarian', 'Български', 'BG', 'Bulgaria', 5.5, 2.5],
  [31, 'hr', 'Croatian', 'Hrvatski', 'HR', 'Croatia', 5.6, 2.5],
  [32, 'sk', 'Slovak', 'Slovenčina', 'SK', 'Slovakia', 5.5, 2.6],
  [33, 'ca', 'Catalan', 'Català', 'ES', 'Spain', 6.2, 2.4],
  [34, 'fa', 'Persian', 'فارسی', 'IR', 'Iran', 5.2, 2.2],
  [35, 'ta', 'Tamil', 'தமிழ்', 'IN', 'India', 5.5, 2.8],
  [36, 'bn', 'Bengali', 'বাংলা', 'BD', 'Bangladesh', 5.5, 2.5],
  [37, 'tl', 'Filipino', 'Filipino', 'PH', 'Philippines', 6.0, 2.4],
  [38, 'ur', 'Urdu', 'اردو', 'PK', 'Pakistan', 5.3, 2.2],
  [39, 'sr', 'Serbian', 'Српски', 'RS', 'Serbia', 5.6, 2.5],
  [40, 'sw', 'Swahili', 'Kiswahili', 'KE', 'Kenya', 5.8, 2.2],
  [41, 'lt', 'Lithuanian', 'Lietuvių', 'LT', 'Lithuania', 5.5, 2.6],
  [42, 'lv', 'Latvian', 'Latviešu', 'LV', 'Latvia', 5.5, 2.6],
  [43, 'et', 'Estonian', 'Eesti', 'EE', 'Estonia', 5.4, 2.6],
  [44, 'sl', 'Slovenian', 'Slovenščina', 'SI', 'Slovenia', 5.6, 2.5],
];

// Regional variants: [id, value, label, native, cc, country, voice dialects, dialect label]. `voice dialects`
// lists the voices' dialect codes (Voice.dialect, '|'-separated, the first is voice_preset_dialect) that speak
// this variant: espeak-ng calls Spain's Spanish 'es' and France's French 'fr-fr', other engines 'es-es', 'fr'.
// A base entry ('es') keeps every voice of the language; a variant keeps only its region's voices.
type DialectRow = [id: number, value: string, label: string, native: string, cc: string, country: string, dialects: string, dialectLabel: string];
const DIALECTS: DialectRow[] = [
  [101, 'en-GB', 'English (United Kingdom)', 'English (UK)', 'GB', 'United Kingdom', 'en-gb', 'British'],
  [102, 'es-419', 'Spanish (Latin America)', 'Español (Latinoamérica)', 'MX', 'Mexico', 'es-419|es-mx', 'Latin American'],
  [103, 'pt-BR', 'Portuguese (Brazil)', 'Português (Brasil)', 'BR', 'Brazil', 'pt-br', 'Brazilian'],
  [104, 'fr-BE', 'French (Belgium)', 'Français (Belgique)', 'BE', 'Belgium', 'fr-be', 'Belgian'],
  [105, 'en-US', 'English (United States)', 'English (US)', 'US', 'United States', 'en-us', 'American'],
  [106, 'es-ES', 'Spanish (Spain)', 'Español (España)', 'ES', 'Spain', 'es|es-es', 'European'],
  [107, 'es-MX', 'Spanish (Mexico)', 'Español (México)', 'MX', 'Mexico', 'es-mx|es-419', 'Mexican'],
  [108, 'pt-PT', 'Portuguese (Portugal)', 'Português (Portugal)', 'PT', 'Portugal', 'pt|pt-pt', 'European'],
  [109, 'fr-FR', 'French (France)', 'Français (France)', 'FR', 'France', 'fr-fr|fr', 'French'],
  [110, 'fr-CA', 'French (Canada)', 'Français (Canada)', 'CA', 'Canada', 'fr-ca', 'Canadian'],
];

/** Voice dialect codes per variant value (lower case): 'es-419' -> ['es-419', 'es-mx']. */
const VARIANT_DIALECTS = new Map(DIALECTS.map((d) => [d[1].toLowerCase(), d[6].split('|')]));

export const LANGUAGE_CATALOGUE: readonly LanguageMeta[] = [
  ...ROWS.map(([id, value, label, native, cc, country, rate, cps]) => ({
    id,
    value,
    label,
    translation_label: native,
    country_code: cc,
    country_label: country,
    speech_rate: rate,
    mean_char_per_syllable: cps,
    speech_tempo_feature: true,
    is_dialect: false,
    is_free: false,
    voice_preset_dialect: null,
    voice_preset_dialect_label: null,
  })),
  ...DIALECTS.map(([id, value, label, native, cc, country, dialects, dialectLabel]) => {
    const base = ROWS.find((r) => r[1] === baseLanguage(value))!;
    return {
      id,
      value,
      label,
      translation_label: native,
      country_code: cc,
      country_label: country,
      speech_rate: base[6],
      mean_char_per_syllable: base[7],
      speech_tempo_feature: true,
      is_dialect: true,
      is_free: false,
      voice_preset_dialect: dialects.split('|')[0]!,
      voice_preset_dialect_label: dialectLabel,
    };
  }),
].sort((a, b) => a.id - b.id);

/** 'pt-BR' -> 'pt', 'EN' -> 'en'. The engine-interface code of a catalogue value. */
export function baseLanguage(value: string): string {
  return value.toLowerCase().split(/[-_]/)[0]!;
}

/** Catalogue entry by value ('es', 'es-419'); a base-language lookup as fallback ('es-AR' -> 'es'). */
export function languageMeta(value: string): LanguageMeta | undefined {
  const v = value.toLowerCase();
  return LANGUAGE_CATALOGUE.find((l) => l.value.toLowerCase() === v) ?? LANGUAGE_CATALOGUE.find((l) => l.value === baseLanguage(v));
}

/** Whether a tag names a regional variant ('es-419', 'pt-BR'), not a base language. */
export function isVariantTag(tag: string): boolean {
  return /[-_]/.test(tag);
}

/** The catalogue's regional variants of a base language ('es' -> ['es-419', 'es-ES', 'es-MX']). */
export function variantsOf(base: string): string[] {
  const b = baseLanguage(base);
  return LANGUAGE_CATALOGUE.filter((l) => l.is_dialect && baseLanguage(l.value) === b).map((l) => l.value);
}

/**
 * A language tag as the API stores it: the catalogue's spelling ('pt-br' -> 'pt-BR', 'ES' -> 'es'). A
 * variant the catalogue does not know ('es-AR'), or a tag that is not one, is an error with a message
 * naming the variants there are; a base language not in the catalogue is left (the engines decide).
 */
export function canonicalLanguage(tag: string): { ok: true; value: string } | { ok: false; message: string } {
  const t = tag.trim().replace('_', '-');
  const exact = LANGUAGE_CATALOGUE.find((l) => l.value.toLowerCase() === t.toLowerCase());
  if (exact) return { ok: true, value: exact.value };
  if (!isVariantTag(t)) return { ok: true, value: t.toLowerCase() };
  const base = languageMeta(baseLanguage(t));
  const known = variantsOf(t);
  // as a person writes it ('es-ar' -> 'es-AR'): the API may have lower-cased it
  tag = t.replace(/^([a-z]+)-([a-z]{2})$/i, (_m, l: string, r: string) => `${l.toLowerCase()}-${r.toUpperCase()}`);
  const what = base ? base.label : `"${baseLanguage(t)}"`;
  return {
    ok: false,
    message: known.length
      ? `Unknown language variant "${tag}": the variants of ${what} are ${known.join(', ')} (or "${baseLanguage(t)}" without a region)`
      : `Unknown language variant "${tag}": ${what} has no regional variants here (use "${baseLanguage(t)}")`,
  };
}

/**
 * Whether a voice speaks the language tag asked for: any voice of the language for a base tag ('es');
 * for a variant ('es-419'), voices of that region or without one (multilingual voices), never another
 * region's ('es' = Spain's espeak-ng voice).
 */
export function voiceFitsVariant(voice: { dialect?: string | null }, tag: string): boolean {
  const dialects = VARIANT_DIALECTS.get(tag.toLowerCase().replace('_', '-'));
  if (!dialects || !voice.dialect) return true;
  const d = voice.dialect.toLowerCase();
  // 'en-gb' also takes espeak-ng's 'en-gb-x-rp'; a bare 'es' (Spain's voice) never takes 'es-419'
  return dialects.some((x) => d === x || (x.includes('-') && d.startsWith(`${x}-`)));
}

/** The voice dialect codes of a variant (the first is the preferred one); [] for a base language. */
export function variantDialects(tag: string): readonly string[] {
  return VARIANT_DIALECTS.get(tag.toLowerCase().replace('_', '-')) ?? [];
}

/** What the installed engines can do, as buildLanguageLists needs it. */
export interface EngineCapabilities {
  /** Languages (639-1) some ASR engine transcribes. */
  asrLanguages: readonly string[];
  /** MT pairs (639-1) with whether the engine serving the pair enforces glossaries. */
  mtPairs: ReadonlyArray<{ src: string; dst: string; glossary: boolean; variants?: boolean }>;
  /** TTS capabilities per 639-1 language: voices' dialect codes, and whether cloning is possible. */
  tts: Readonly<Record<string, { dialects: readonly string[]; cloning: boolean; cloningBeta?: boolean }>>;
}

function toLanguage(
  m: LanguageMeta,
  flags: { glossary: boolean; voicePreset: boolean; clone: boolean; cloneBeta: boolean; variantNote?: string | null },
): Language {
  return {
    variant_note: flags.variantNote ?? null,
    id: m.id,
    label: m.label,
    country_code: m.country_code,
    country_label: m.country_label,
    is_dialect: m.is_dialect,
    is_free: m.is_free,
    is_glossary_available: flags.glossary,
    is_voice_preset_available: flags.voicePreset,
    mean_char_per_syllable: m.mean_char_per_syllable,
    speech_rate: m.speech_rate,
    speech_tempo_feature: m.speech_tempo_feature,
    translation_label: m.translation_label,
    value: m.value,
    voice_clone: flags.clone,
    voice_clone_beta: flags.cloneBeta,
    voice_clone_label: flags.clone ? (flags.cloneBeta ? 'Voice clone (beta)' : 'Voice clone') : null,
    voice_preset_dialect: m.voice_preset_dialect,
    voice_preset_dialect_label: m.voice_preset_dialect_label,
  };
}

/** The transcription and translation lists for the capabilities given, sorted by id. */
export function buildLanguageLists(
  caps: EngineCapabilities,
  catalogue: readonly LanguageMeta[] = LANGUAGE_CATALOGUE,
): { transcription: Language[]; translation: Language[] } {
  const asr = new Set(caps.asrLanguages.map(baseLanguage));
  const transcription = catalogue
    .filter((m) => !m.is_dialect && asr.has(m.value))
    .map((m) => {
      const tts = caps.tts[m.value];
      return toLanguage(m, {
        glossary: caps.mtPairs.some((p) => p.src === m.value && p.glossary),
        voicePreset: !!tts && tts.dialects.length > 0,
        clone: !!tts?.cloning,
        cloneBeta: !!tts?.cloningBeta,
      });
    });
  const translation: Language[] = [];
  for (const m of catalogue) {
    const base = baseLanguage(m.value);
    const tts = caps.tts[base];
    if (!tts || tts.dialects.length === 0) continue;
    const pairs = caps.mtPairs.filter((p) => p.dst === base && p.src !== base && asr.has(p.src));
    if (pairs.length === 0) continue;
    // a dialect entry needs a voice of that dialect, otherwise it would just repeat the base language
    if (m.is_dialect && !tts.dialects.some((d) => voiceFitsVariant({ dialect: d }, m.value))) continue;
    translation.push(
      toLanguage(m, {
        // the voice follows the region; the vocabulary only where a translation engine knows the variant
        // (no note for the region the plain entry stands for: 'es-ES' gets the vocabulary of 'es')
        variantNote:
          m.is_dialect && !pairs.some((p) => p.variants) && catalogue.find((c) => c.value === base)?.country_code !== m.country_code
            ? variantNoteText(m.label)
            : null,
        glossary: pairs.some((p) => p.glossary),
        voicePreset: true,
        clone: tts.cloning,
        cloneBeta: !!tts.cloningBeta,
      }),
    );
  }
  const byId = (a: Language, b: Language) => a.id - b.id;
  return { transcription: transcription.sort(byId), translation: translation.sort(byId) };
}

function variantNoteText(label: string): string {
  return TEXT.variantOneVocabulary.replace('{language}', label);
}
