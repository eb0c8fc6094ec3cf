import * as v from 'valibot';

/** GET /api/library/media/{id}: an upload (tus or multipart) as its uploader and the space's members see it. */
export const Media = v.object({
  id: v.string(),
  status: v.picklist(['uploading', 'uploaded', 'failed']),
  kind: v.picklist(['video', 'audio', 'srt']),
  filename: v.string(),
  size: v.number(),
  /** Seconds, once the file was probed. */
  duration: v.nullable(v.number()),
  error: v.nullable(v.string()),
  space_id: v.nullable(v.string()),
  created_date: v.string(),
});
export type Media = v.InferOutput<typeof Media>;
