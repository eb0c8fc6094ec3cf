// Batches (issue 31): many videos into many languages in one go. A batch item is one project of the
// multi-language create; its languages are that project and the ones made from its analysis.
import * as v from 'valibot';
import { MAX_DST_LANGS } from './project';
import { PROJECT_STATUSES } from '../statuses';

/** At most this many videos in one batch. */
export const MAX_BATCH_ITEMS = 50;
export const BATCH_STATUSES = ['running', 'completed', 'cancelled'] as const;

const LangCode = v.pipe(v.string(), v.trim(), v.toLowerCase(), v.regex(/^[a-z]{2,3}(?:-[a-z0-9]{2,8})?$/, 'Unknown language code'));
const Id = v.pipe(v.string(), v.uuid('Invalid id'));
const Langs = v.pipe(v.array(LangCode), v.minLength(1, 'Choose at least one target language'), v.maxLength(MAX_DST_LANGS, `At most ${MAX_DST_LANGS} target languages`));

export const BatchItemRequest = v.object({
  name: v.optional(v.pipe(v.string(), v.trim(), v.maxLength(255, 'At most 255 characters'))),
  media_id: v.optional(v.nullable(Id)),
  link: v.optional(v.nullable(v.pipe(v.string(), v.trim(), v.maxLength(2048)))),
  /** Per item; the batch's when absent. */
  src_lang: v.optional(LangCode),
  dst_langs: v.optional(Langs),
  glossary_id: v.optional(v.nullable(Id)),
  src_srt_media_id: v.optional(v.nullable(Id)),
  dst_srt_media_id: v.optional(v.nullable(Id)),
});
export type BatchItemRequest = v.InferOutput<typeof BatchItemRequest>;

/**
 * A batch: items (uploads or links) or a CSV (columns name, link or upload id, source language, target languages
 * separated by ; or space, dictionary id, source SRT upload id, target SRT upload id). src_lang and dst_langs apply
 * to every item that does not give its own.
 */
export const CreateBatchRequest = v.object({
  name: v.optional(v.pipe(v.string(), v.trim(), v.maxLength(255, 'At most 255 characters'))),
  src_lang: v.optional(LangCode),
  dst_langs: v.optional(Langs),
  items: v.optional(v.pipe(v.array(BatchItemRequest), v.maxLength(MAX_BATCH_ITEMS, `At most ${MAX_BATCH_ITEMS} videos in a batch`))),
  csv: v.optional(v.pipe(v.string(), v.maxLength(200_000, 'The CSV is too large'))),
  /** Runs each language straight to the dubbed video once translated. */
  generate: v.optional(v.boolean()),
});
export type CreateBatchRequest = v.InferOutput<typeof CreateBatchRequest>;

export const BatchLanguage = v.object({
  dst_lang: v.string(),
  project_id: v.nullable(v.string()),
  status: v.nullable(v.picklist(PROJECT_STATUSES)),
  progress: v.number(),
  /** pending (not made yet), running, ready (translated, not dubbed), done (dubbed), failed. */
  state: v.picklist(['pending', 'running', 'ready', 'done', 'failed']),
  error: v.nullable(v.string()),
});
export type BatchLanguage = v.InferOutput<typeof BatchLanguage>;

export const BatchItem = v.object({
  id: v.string(),
  position: v.number(),
  name: v.string(),
  project_id: v.nullable(v.string()),
  error: v.nullable(v.string()),
  languages: v.array(BatchLanguage),
});
export type BatchItem = v.InferOutput<typeof BatchItem>;

export const Batch = v.object({
  id: v.string(),
  space_id: v.string(),
  name: v.string(),
  status: v.picklist(BATCH_STATUSES),
  generate: v.boolean(),
  minutes_needed: v.number(),
  created_at: v.string(),
  completed_at: v.nullable(v.string()),
  counts: v.object({ total: v.number(), done: v.number(), failed: v.number(), running: v.number() }),
  items: v.array(BatchItem),
});
export type Batch = v.InferOutput<typeof Batch>;

export const BatchSummary = v.object({
  id: v.string(), space_id: v.string(), name: v.string(), status: v.picklist(BATCH_STATUSES), generate: v.boolean(),
  items: v.number(), created_at: v.string(), completed_at: v.nullable(v.string()),
});
export const BatchList = v.object({ data: v.array(BatchSummary) });
export type BatchList = v.InferOutput<typeof BatchList>;
