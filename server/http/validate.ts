// Request parsing with the contract's valibot schemas; failures become 422 {"detail":[{loc,msg,type}]}.
import * as v from 'valibot';
import type { Context } from 'hono';
import { ApiError, unprocessable, type ValidationIssue } from './errors';

export function issuesToDetail(where: 'body' | 'query' | 'path', issues: v.BaseIssue<unknown>[]): ValidationIssue[] {
  return issues.map((i) => ({
    loc: [where, ...(i.path?.map((p) => p.key as string | number) ?? [])],
    msg: i.message,
    type: i.type,
  }));
}

export function parseWith<S extends v.GenericSchema>(schema: S, data: unknown, where: 'body' | 'query' | 'path' = 'body'): v.InferOutput<S> {
  const r = v.safeParse(schema, data);
  if (!r.success) throw unprocessable(issuesToDetail(where, r.issues));
  return r.output;
}

const MAX_JSON_BYTES = 5 * 1024 * 1024;

/** Reads a JSON body (bounded), then validates it. Malformed JSON -> 422 as well. */
export async function jsonBody<S extends v.GenericSchema>(c: Context, schema: S): Promise<v.InferOutput<S>> {
  const len = Number(c.req.header('content-length') ?? '0');
  if (len > MAX_JSON_BYTES) throw new ApiError(413, 'Request body too large');
  const text = await c.req.text();
  if (text.length > MAX_JSON_BYTES) throw new ApiError(413, 'Request body too large');
  let data: unknown;
  try {
    data = text.trim() === '' ? {} : JSON.parse(text);
  } catch {
    throw unprocessable([{ loc: ['body'], msg: 'Malformed JSON body', type: 'json_invalid' }]);
  }
  return parseWith(schema, data, 'body');
}

export function queryWith<S extends v.GenericSchema>(c: Context, schema: S): v.InferOutput<S> {
  return parseWith(schema, c.req.query(), 'query');
}
