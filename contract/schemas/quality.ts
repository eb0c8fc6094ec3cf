// GET /api/project/{id}/quality: the quality report of the last dub (issue 15), measured from the output files.
import * as v from 'valibot';

export const QUALITY_ISSUES = ['overflow', 'fast_speech', 'slow_speech', 'overlap', 'drift', 'missing_speech', 'glossary', 'low_asr_confidence'] as const;
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
  /** Mean word confidence of the recognised source (null: the engine gives none, or the text was uploaded). */
  asr_confidence: v.nullable(v.number()),
  issues: v.array(v.picklist(QUALITY_ISSUES)),
});
export type QualitySegment = v.InferOutput<typeof QualitySegment>;

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
  /** Level of the output where the dub is silent, and of the source at the same moments (dBFS). */
  background_level_db: v.nullable(v.number()),
  source_background_level_db: v.nullable(v.number()),
  background_kept: v.boolean(),
  /** Share of the source's speech time (segment slots) in which the dubbed voice is heard, 0..1. */
  speech_coverage: v.number(),
  segments: v.array(QualitySegment),
  /** Ids of the segments that need attention (with at least one issue), in time order. */
  attention: v.array(v.string()),
});
export type QualityReport = v.InferOutput<typeof QualityReport>;
