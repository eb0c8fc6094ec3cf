import * as v from 'valibot';

export const Email = v.pipe(v.string(), v.trim(), v.toLowerCase(), v.maxLength(254), v.email('Incorrect email'));
export const ErrorDetailItem = v.object({ loc: v.array(v.union([v.string(), v.number()])), msg: v.string(), type: v.string() });
export const ErrorBody = v.object({ detail: v.union([v.string(), v.array(ErrorDetailItem)]) });
export type ErrorBody = v.InferOutput<typeof ErrorBody>;
export const Paginated = <T extends v.GenericSchema>(item: T) =>
  v.object({ data: v.array(item), offset: v.number(), total: v.number() });
