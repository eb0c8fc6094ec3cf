// GET /api/project/{id}/quality: the quality report of the last dub (issue 15), measured from the output files.
import * as v from 'valibot';

export const QUALITY_ISSUES = [
  'overflow', 'fast_speech', 'slow_speech', 'overlap', 'drift', 'missing_speech', 'glossary', 'low_asr_confidence', 'speech_under_dub', 'background_dip',
  'doubtful_words',
] as const;
export type QualityIssue = (typeof QUALITY_ISSUES)[number];

export const QualitySegment = v.object({
  id: v.string(),
  start: v.number(),
  end: v.number(),
  speaker: v.string(),
  /** Speed of the dubbed speech against the language's natural pace (synthesis rate x time-stretch). */
  speed_factor: v.nullable(v.number()),
  /** Where the dubbed voice was heard in the output (null: no voice heard). */
  dub_start: v.nullable(v.number()),
  dub_end: v.nullable(v.number()),
  /** The dubbed voice stopped by the end of the segment's slot. */
  ended_within_slot: v.boolean(),
  /** Seconds the voice ran past the slot. */
  overflow_sec: v.number(),
  /** Of the overflow, seconds taken from the silence before the next segment. */
  borrowed_gap_sec: v.number(),
  /** Seconds the voice sounded while another segment's slot was running too. */
  overlap_sec: v.number(),
  /** Seconds between the source segment's start and the dubbed voice's start. */
  drift_sec: v.nullable(v.number()),
  glossary_expected: v.array(v.string()),
  glossary_found: v.array(v.string()),
  /** Of the missing terms, those the translation engine could not apply (its per-segment record; absent: none). */
  glossary_unapplied: v.optional(v.array(v.string())),
  /** Mean word confidence of the recognised source (null: the engine gives none, or the text was uploaded). */
  asr_confidence: v.nullable(v.number()),
  /**
   * Recognised words still in the source text that are likely wrong (confidence under DOUBTFUL_WORD_CONFIDENCE of
   * contract/confidence.ts), and those words as written (absent in reports made before).
   */
  doubtful_words: v.optional(v.number()),
  doubtful_word_texts: v.optional(v.array(v.string())),
  /** The original speech left in the background under this segment, dB under the speech (null: not measured). */
  speech_under_dub_db: v.optional(v.nullable(v.number())),
  /** How much quieter the background is during this segment than around it, beyond the source's own dip (dB). */
  background_dip_db: v.optional(v.nullable(v.number())),
  issues: v.array(v.picklist(QUALITY_ISSUES)),
});
export type QualitySegment = v.InferOutput<typeof QualitySegment>;

/** How much a flag matters: a warning is worth a listen; critical is heard by anyone. */
export const ATTENTION_SEVERITIES = ['warning', 'critical'] as const;

/**
 * One thing that needs attention, with a reason a person understands and what to do. `kind` is open: other checks
 * add their own kinds (the built-in ones are QUALITY_ISSUES, 'voice_pitch' and 'voice_gender'). `segment_id` is
 * null for the whole dub or a speaker (`speaker`).
 */
export const AttentionItem = v.object({
  kind: v.string(),
  severity: v.picklist(ATTENTION_SEVERITIES),
  segment_id: v.nullable(v.string()),
  speaker: v.optional(v.nullable(v.string())),
  /** Start of the segment (seconds), for ordering and jumping there. */
  start: v.optional(v.nullable(v.number())),
  reason: v.string(),
  action: v.string(),
  /** The measured figure behind the flag (semitones, dB, speed factor, confidence ...), when there is one. */
  value: v.optional(v.nullable(v.number())),
});
export type AttentionItem = v.InferOutput<typeof AttentionItem>;

/** A speaker's voice in the dub against their own (median pitch, gender). */
export const QualitySpeaker = v.object({
  id: v.string(),
  name: v.string(),
  voice_id: v.nullable(v.string()),
  /** The speaker's own median pitch (Hz) and gender (null: unsure). */
  pitch_hz: v.nullable(v.number()),
  gender: v.nullable(v.picklist(['male', 'female'])),
  /** The dubbed voice's median pitch (Hz), measured on the voice-only output, and its gender. */
  dub_pitch_hz: v.nullable(v.number()),
  dub_gender: v.nullable(v.picklist(['male', 'female'])),
  /** Semitones from the speaker's pitch to the dub's (positive: the dub is higher). */
  pitch_distance_st: v.nullable(v.number()),
});
export type QualitySpeaker = v.InferOutput<typeof QualitySpeaker>;

export const QualityReport = v.object({
  project_id: v.string(),
  generation: v.number(),
  created_at: v.string(),
  /** The transcript changed since this dub: the report describes the previous output. */
  stale: v.boolean(),
  duration: v.number(),
  max_drift_sec: v.number(),
  loudness_lufs: v.nullable(v.number()),
  source_loudness_lufs: v.nullable(v.number()),
  /** Loudness range (LU) of the dub and of the source, the dub's true peak (dBTP), and the target it was made for. */
  loudness_range_lu: v.optional(v.nullable(v.number())),
  source_loudness_range_lu: v.optional(v.nullable(v.number())),
  true_peak_dbtp: v.optional(v.nullable(v.number())),
  loudness_target: v.optional(v.nullable(v.string())),
  /** Level of the output where the dub is silent, and of the source at the same moments (dBFS). */
  background_level_db: v.nullable(v.number()),
  source_background_level_db: v.nullable(v.number()),
  background_kept: v.boolean(),
  /** Share of the source's speech time (segment slots) in which the dubbed voice is heard, 0..1. */
  speech_coverage: v.number(),
  /** Doubtful recognised words over all segments (absent in reports made before). */
  doubtful_words: v.optional(v.number()),
  segments: v.array(QualitySegment),
  speakers: v.optional(v.array(QualitySpeaker)),
  /** What needs attention: the dub's and speakers' flags first, then the segments' in time order. */
  attention: v.array(AttentionItem),
});
export type QualityReport = v.InferOutput<typeof QualityReport>;
