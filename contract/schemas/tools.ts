// POST /api/tools/summarize: the AI rewrite tool (summarise or rewrite a piece of the script).
import * as v from 'valibot';
import { Segment } from './project';

/** Longest text the tool accepts (characters). */
export const SUMMARIZE_MAX_TEXT = 20_000;
/** Longest extra instructions (characters). */
export const SUMMARIZE_MAX_INSTRUCTIONS = 1_000;
export const SUMMARIZE_MODES = ['summarize', 'rewrite'] as const;

export const SummarizeRequest = v.object({
  text: v.pipe(
    v.string('The text must be a string'),
    v.check((s) => s.trim() !== '', 'Field is required'),
    v.maxLength(SUMMARIZE_MAX_TEXT, `The text is too long: at most ${SUMMARIZE_MAX_TEXT} characters`),
  ),
  /** ISO 639-1 code of the text (optionally with a region, e.g. 'en-gb'); the model keeps the text's language when absent. */
  lang: v.optional(
    v.nullable(
      v.pipe(
        v.string('The language must be a string'),
        v.trim(),
        v.toLowerCase(),
        v.regex(/^[a-z]{2,3}([-_][a-z0-9]{2,8})?$/, 'The language must be an ISO 639-1 code such as "en" or "es"'),
      ),
    ),
  ),
  /** The longest answer wanted, in characters. */
  max_chars: v.optional(
    v.nullable(
      v.pipe(
        v.number('max_chars must be a number'),
        v.integer('max_chars must be a whole number'),
        v.minValue(1, 'max_chars must be at least 1'),
        v.maxValue(SUMMARIZE_MAX_TEXT, `max_chars must be at most ${SUMMARIZE_MAX_TEXT}`),
      ),
    ),
  ),
  instructions: v.optional(
    v.nullable(
      v.pipe(
        v.string('The instructions must be a string'),
        v.trim(),
        v.maxLength(SUMMARIZE_MAX_INSTRUCTIONS, `The instructions are too long: at most ${SUMMARIZE_MAX_INSTRUCTIONS} characters`),
      ),
    ),
  ),
  /** summarize (default): keep the main points; rewrite: same meaning, shorter and easier to speak. */
  mode: v.optional(v.picklist(SUMMARIZE_MODES, 'mode must be "summarize" or "rewrite"'), 'summarize'),
});
export type SummarizeRequest = v.InferInput<typeof SummarizeRequest>;

export const SummarizeResponse = v.object({ text: v.string() });
export type SummarizeResponse = v.InferOutput<typeof SummarizeResponse>;

/** POST /api/project/{id}/transcript/{segmentId}/rewrite: AI rewrite of one segment's translation in the editor. */
export const SEGMENT_REWRITE_MODES = ['shorten', 'rephrase', 'instruction'] as const;
export const SegmentRewriteRequest = v.object({
  /** shorten: to fit the segment's slot at the voice's speech rate; rephrase: same meaning, other words; instruction: the caller's own. */
  mode: v.picklist(SEGMENT_REWRITE_MODES, 'mode must be "shorten", "rephrase" or "instruction"'),
  instructions: v.optional(
    v.nullable(v.pipe(v.string(), v.trim(), v.maxLength(SUMMARIZE_MAX_INSTRUCTIONS, `The instructions are too long: at most ${SUMMARIZE_MAX_INSTRUCTIONS} characters`))),
  ),
  /** The text to rewrite (the editor's current, maybe unsaved, translation); the saved one when absent. */
  text: v.optional(v.nullable(v.pipe(v.string(), v.maxLength(5000, 'At most 5000 characters')))),
});
export type SegmentRewriteRequest = v.InferInput<typeof SegmentRewriteRequest>;
/** A proposal: nothing is saved until the editor accepts it. */
export const SegmentRewriteResponse = v.object({
  text: v.string(),
  mode: v.picklist(SEGMENT_REWRITE_MODES),
  slot_sec: v.number(),
  /** Characters that fit the slot at the voice's speech rate (the limit asked of the model when shortening). */
  max_chars: v.number(),
  chars_per_sec: v.number(),
});
export type SegmentRewriteResponse = v.InferOutput<typeof SegmentRewriteResponse>;

/** How POST /api/project/{id}/transcript/{segmentId}/shorten shortened the line. */
export const SEGMENT_SHORTEN_METHODS = ['llm', 'offline'] as const;
/**
 * POST /api/project/{id}/transcript/{segmentId}/shorten (empty body): the segment's translation shortened to its
 * character budget and saved, by the LLM engine when one is configured, else by the offline rewrites (contractions,
 * fillers, asides). 409 when the line already fits or the project is being processed; 422 when nothing can be
 * shortened.
 */
/** The shorten request's body: an empty object (nothing is read from it; the browser sends {}). */
export const SegmentShortenRequest = v.object({});
export const SegmentShortenResponse = v.object({
  /** The saved segment, as the transcript read returns it. */
  segment: Segment,
  method: v.picklist(SEGMENT_SHORTEN_METHODS),
  /** Characters that fit the segment's slot (and the pause after it) at the voice's speaking rate. */
  budget_chars: v.number(),
  before_chars: v.number(),
  after_chars: v.number(),
});
export type SegmentShortenResponse = v.InferOutput<typeof SegmentShortenResponse>;
