import * as v from 'valibot';

export const Email = v.pipe(v.string(), v.trim(), v.toLowerCase(), v.maxLength(254), v.email('Incorrect email'));
export const ErrorDetailItem = v.object({ loc: v.array(v.union([v.string(), v.number()])), msg: v.string(), type: v.string() });
/**
 * An error answer: `detail` (a text, or the validation issues of a 422), and for some refusals machine-readable
 * fields beside it: `code` (feature_not_in_plan, voice_clone_limit, concurrent_jobs, usage_cap_reached,
 * not_subtitle_file), the refused `feature` and the `required_plan`, a `limit` and the `running` jobs, and for the
 * platform billing's spending cap the page that raises it (`raise_cap_url`, `new_capped_amount`, `capped_amount`,
 * `balance_used`) and the platform's `user_errors`.
 */
export const ErrorBody = v.object({
  detail: v.union([v.string(), v.array(ErrorDetailItem)]),
  code: v.optional(v.string()),
  feature: v.optional(v.string()),
  required_plan: v.optional(v.string()),
  limit: v.optional(v.number()),
  running: v.optional(v.number()),
  raise_cap_url: v.optional(v.nullable(v.string())),
  new_capped_amount: v.optional(v.nullable(v.number())),
  capped_amount: v.optional(v.number()),
  balance_used: v.optional(v.number()),
  user_errors: v.optional(v.array(v.object({ field: v.nullable(v.array(v.string())), message: v.string() }))),
});
export type ErrorBody = v.InferOutput<typeof ErrorBody>;
/** The answer of a delete: what was deleted. */
export const Deleted = v.object({ id: v.string(), status: v.literal('deleted') });
export const Paginated = <T extends v.GenericSchema>(item: T) =>
  v.object({ data: v.array(item), offset: v.number(), total: v.number() });
