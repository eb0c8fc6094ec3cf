// Voice presets and clones (spec sections 3 and 7): /api/voice_preset. A preset belongs to a Teamspace; it is a
// voice cloned (or, without a cloning engine, matched) from a speech sample: an uploaded audio file, the audio of a
// video, or a project's speaker. similarity_boost is shown as "accent", stability as "expressiveness".
import * as v from 'valibot';

export const VOICE_PRESET_MAX_LABEL = 80;
/** Longest sample accepted (seconds). */
export const VOICE_SAMPLE_MAX_SEC = 5 * 60;
/** Least speech a sample must hold (seconds). */
export const VOICE_SAMPLE_MIN_SPEECH_SEC = 2;

export const VOICE_PRESET_STATUSES = ['processing', 'done', 'error'] as const;
export type VoicePresetStatus = (typeof VOICE_PRESET_STATUSES)[number];

/** Prefix of a preset's id where a voice id is expected (a speaker's voice_id, the voice pool). */
export const PRESET_VOICE_PREFIX = 'preset:';
export const presetVoiceId = (presetId: string) => `${PRESET_VOICE_PREFIX}${presetId}`;
export const presetIdOfVoice = (voiceId: string | null | undefined): string | null =>
  voiceId && voiceId.startsWith(PRESET_VOICE_PREFIX) ? voiceId.slice(PRESET_VOICE_PREFIX.length) : null;

const Unit = (name: string) =>
  v.pipe(v.number(`${name} must be a number`), v.minValue(0, `${name} must be between 0 and 1`), v.maxValue(1, `${name} must be between 0 and 1`));

const Label = v.pipe(
  v.string('The name must be a string'),
  v.trim(),
  v.nonEmpty('Field is required'),
  v.maxLength(VOICE_PRESET_MAX_LABEL, `The name is too long: at most ${VOICE_PRESET_MAX_LABEL} characters`),
);

/** The voice measured from the sample (built-in voice matching; also shown in the library). */
export const VoiceProfile = v.object({
  median_hz: v.number(),
  range_st: v.number(),
  /** Share of the spectrum's energy above 1 kHz (brightness; how "thin" or "dark" the voice is). */
  spectral_tilt: v.number(),
  /** Syllables per second while speaking. */
  speech_rate: v.number(),
  speech_sec: v.number(),
  gender: v.picklist(['male', 'female']),
  /** Formant scale (Hz: geometric mean of F1-F3; follows the vocal tract's length), when measured. */
  formant_hz: v.optional(v.nullable(v.number())),
  /** How sure the gender is, 0 (a guess) .. 1 (pitch and formants agree clearly). */
  gender_confidence: v.optional(v.number()),
});
export type VoiceProfile = v.InferOutput<typeof VoiceProfile>;

export const VoicePreset = v.object({
  id: v.string(),
  space_id: v.string(),
  label: v.string(),
  /** 0..1, shown as accent: how strongly the speaker's voice is applied. */
  similarity_boost: v.number(),
  /** 0..1, shown as expressiveness (inverted): how steady the pitch is. */
  stability: v.number(),
  is_temporary: v.boolean(),
  project_id: v.nullable(v.string()),
  speaker_id: v.nullable(v.string()),
  status: v.picklist(VOICE_PRESET_STATUSES),
  error: v.nullable(v.string()),
  /** 'elevenlabs' (a cloned voice) or 'builtin' (voice matching of the built-in voices). */
  engine: v.string(),
  /** The id to give a speaker (voice_id) to dub with this preset. */
  voice_id: v.string(),
  gender: v.nullable(v.string()),
  profile: v.nullable(VoiceProfile),
  sample_duration: v.nullable(v.number()),
  created_at: v.string(),
  updated_at: v.string(),
});
export type VoicePreset = v.InferOutput<typeof VoicePreset>;

export const VoicePresetList = v.object({
  presets: v.array(VoicePreset),
  /** Clones the plan allows in this Teamspace (null: unlimited) and how many it holds. */
  limit: v.nullable(v.number()),
  used: v.number(),
  /** 'elevenlabs' when a cloning engine is configured, else 'builtin' (voice matching). */
  engine: v.string(),
});
export type VoicePresetList = v.InferOutput<typeof VoicePresetList>;

export const CreateVoicePresetRequest = v.object({
  label: Label,
  /** An upload of /api/library/media (kind audio) or /api/library/media/extract-audio, or a video upload. */
  media_id: v.pipe(v.string('media_id must be a string'), v.uuid('media_id must be an upload id')),
  similarity_boost: v.optional(Unit('similarity_boost'), 0.75),
  stability: v.optional(Unit('stability'), 0.5),
});
export type CreateVoicePresetRequest = v.InferInput<typeof CreateVoicePresetRequest>;

export const VoicePresetFromProjectRequest = v.object({
  project_id: v.pipe(v.string('project_id must be a string'), v.uuid('project_id must be a project id')),
  speaker_id: v.pipe(v.string('speaker_id must be a string'), v.trim(), v.nonEmpty('Field is required'), v.maxLength(100)),
  label: v.optional(Label),
  /** An instant voice preset for this project's speaker (not in the library, not counted against the limit). */
  is_temporary: v.optional(v.boolean('is_temporary must be true or false'), false),
  similarity_boost: v.optional(Unit('similarity_boost'), 0.75),
  stability: v.optional(Unit('stability'), 0.5),
});
export type VoicePresetFromProjectRequest = v.InferInput<typeof VoicePresetFromProjectRequest>;

export const UpdateVoicePresetRequest = v.object({
  label: v.optional(Label),
  similarity_boost: v.optional(Unit('similarity_boost')),
  stability: v.optional(Unit('stability')),
});
export type UpdateVoicePresetRequest = v.InferInput<typeof UpdateVoicePresetRequest>;

export const VoicePresetSettingsRequest = v.object({
  similarity_boost: Unit('similarity_boost'),
  stability: Unit('stability'),
  /** update_settings_from_project: the project whose speakers using this preset are re-voiced on the next generate. */
  project_id: v.optional(v.pipe(v.string(), v.uuid('project_id must be a project id'))),
});
export type VoicePresetSettingsRequest = v.InferInput<typeof VoicePresetSettingsRequest>;

export const VoicePresetStatuses = v.array(v.object({ id: v.string(), status: v.picklist(VOICE_PRESET_STATUSES), error: v.nullable(v.string()) }));
export type VoicePresetStatuses = v.InferOutput<typeof VoicePresetStatuses>;

export const VoiceTutorialFlags = v.object({
  voice_preset_tutorial_displayed: v.boolean(),
  instant_voice_clone_tooltip_displayed: v.boolean(),
});
export type VoiceTutorialFlags = v.InferOutput<typeof VoiceTutorialFlags>;
