import * as v from 'valibot';
import { PROJECT_STATUSES } from '../statuses';

export const SegmentText = v.object({ lang: v.string(), text: v.string() });
export const SEGMENT_STATUSES = ['done', 'error', 'processing', 'updated'] as const;
export const Segment = v.object({
  id: v.string(),
  start: v.number(),
  end: v.number(),
  speaker: v.string(),
  src: SegmentText,
  dst: SegmentText,
  status: v.picklist(SEGMENT_STATUSES),
});
export type Segment = v.InferOutput<typeof Segment>;

export const Project = v.object({
  id: v.string(),
  name: v.string(),
  created_date: v.string(),
  space_id: v.string(),
  folder_id: v.nullable(v.string()),
  status: v.picklist(PROJECT_STATUSES),
  progress: v.number(),
  error_message: v.nullable(v.string()),
  prompt: v.nullable(v.string()),
  src_lang: v.string(),
  dst_lang: v.string(),
  duration: v.nullable(v.number()),
  glossary_id: v.nullable(v.string()),
  src_srt_uploaded: v.boolean(),
  dst_srt_uploaded: v.boolean(),
  free_dubbing: v.boolean(),
  tts_provider: v.nullable(v.string()),
  cover: v.nullable(v.string()),
  original_video: v.nullable(v.string()),
  translated_audio: v.nullable(v.string()),
  translated_video: v.nullable(v.string()),
  voiceover: v.nullable(v.string()),
  translation_srt_path: v.nullable(v.string()),
  translation_vtt_path: v.nullable(v.string()),
  lipsync_info: v.object({ lipsync_result_path: v.nullable(v.string()) }),
  subtitles_info: v.object({
    subtitles_burn_result_path: v.nullable(v.string()),
    subtitles_lipsync_burn_result_path: v.nullable(v.string()),
  }),
  speakers: v.array(v.object({ id: v.string(), name: v.string(), voice_id: v.nullable(v.string()), gender: v.nullable(v.string()) })),
  changed_segments: v.number(),
});
export type Project = v.InferOutput<typeof Project>;
