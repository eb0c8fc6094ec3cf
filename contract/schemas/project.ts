import * as v from 'valibot';
import { PROJECT_STATUSES } from '../statuses';
import { Paginated } from './common';

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
  /** Result of the last voiceover: speed factor applied and seconds past the slot (server fields). */
  speed_factor: v.optional(v.nullable(v.number())),
  overflow: v.optional(v.nullable(v.number())),
  /** Kept in the original audio (server field): not dubbed, the original speech and background play over its span. */
  keep_original: v.optional(v.boolean()),
  /**
   * Dictionary terms of this segment (server field; absent without a dictionary): the terms its source holds and
   * those whose translation its target text lacks.
   */
  /**
   * How sure the recognizer was of this segment, 0..1, and its recognised words with their confidence (the chance
   * each is right; under DOUBTFUL_WORD_CONFIDENCE of contract/confidence.ts a word is doubtful). Server fields,
   * absent when the engine gave no scores or the text was uploaded or typed.
   */
  asr_confidence: v.optional(v.nullable(v.number())),
  words: v.optional(v.array(v.object({ text: v.string(), start: v.number(), end: v.number(), confidence: v.optional(v.number()) }))),
  terms: v.optional(v.object({
    expected: v.array(v.object({ source: v.string(), target: v.string() })),
    missing: v.array(v.object({ source: v.string(), target: v.string() })),
    /** Of the missing terms, those the translation engine could not apply (its record; absent: none). */
    unapplied: v.optional(v.array(v.object({ source: v.string(), target: v.string() }))),
  })),
});
export type Segment = v.InferOutput<typeof Segment>;

/** Result of POST /api/project/{id}/run_check_face_task (spec section 7), kept on the project. */
export const FACE_CHECK_STATUSES = ['processing', 'done', 'failed'] as const;
export const FaceCheck = v.object({
  status: v.picklist(FACE_CHECK_STATUSES),
  /** How many faces appear (the most seen together in the sampled frames). */
  faces_found: v.number(),
  /** Share of the sampled frames showing at least one face large enough for lip-sync, 0..1. */
  face_share: v.number(),
  /** More than one person is on screen at once. */
  multiple_faces: v.boolean(),
  /** Faces were seen but all of them too small for lip-sync. */
  small_faces: v.optional(v.boolean()),
  frames_checked: v.optional(v.number()),
  /** Whether lip-sync can work on this video (a usable face in enough frames). */
  lipsync_possible: v.optional(v.boolean()),
  /** What the result means, for people. */
  message: v.optional(v.nullable(v.string())),
  checked_at: v.optional(v.nullable(v.string())),
  error: v.optional(v.nullable(v.string())),
});
export type FaceCheck = v.InferOutput<typeof FaceCheck>;

export const LIPSYNC_STATUSES = ['processing', 'done', 'failed'] as const;

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
  /** The engine of the speakers' voices (a voice preset's own engine for a clone); several joined by '+'. */
  tts_provider: v.nullable(v.string()),
  cover: v.nullable(v.string()),
  original_video: v.nullable(v.string()),
  translated_audio: v.nullable(v.string()),
  translated_video: v.nullable(v.string()),
  voiceover: v.nullable(v.string()),
  translation_srt_path: v.nullable(v.string()),
  translation_vtt_path: v.nullable(v.string()),
  lipsync_info: v.object({
    lipsync_result_path: v.nullable(v.string()),
    /** The lip-sync task (server extras): null before the first run. */
    status: v.optional(v.nullable(v.picklist(LIPSYNC_STATUSES))),
    /** 0..100 while it runs. */
    progress: v.optional(v.number()),
    error: v.optional(v.nullable(v.string())),
    error_code: v.optional(v.nullable(v.string())),
    engine: v.optional(v.nullable(v.string())),
    is_multiple_speakers: v.optional(v.boolean()),
    /** The dub changed after this lip-sync was made. */
    stale: v.optional(v.boolean()),
    started_at: v.optional(v.nullable(v.string())),
    finished_at: v.optional(v.nullable(v.string())),
  }),
  subtitles_info: v.object({
    subtitles_burn_result_path: v.nullable(v.string()),
    subtitles_lipsync_burn_result_path: v.nullable(v.string()),
  }),
  speakers: v.array(v.object({ id: v.string(), name: v.string(), voice_id: v.nullable(v.string()), gender: v.nullable(v.string()) })),
  changed_segments: v.number(),
  /** Server extras: why it failed (machine code), subtitle-banner flags, the burned-subtitles task. */
  error_code: v.optional(v.nullable(v.string())),
  subtitles_banner_displayed: v.optional(v.array(v.string())),
  subtitles_burn_state: v.optional(v.nullable(v.picklist(['processing', 'done', 'failed']))),
  subtitles_burn_error: v.optional(v.nullable(v.string())),
  /** The last face check (null: never run). */
  face_check: v.optional(v.nullable(FaceCheck)),
  /** The project this one was copied from (a copy, or another language of a multi-language create). */
  copied_from: v.optional(v.nullable(v.string())),
  /** Target languages whose projects are made from this one once its speakers are known. */
  pending_dst_langs: v.optional(v.array(v.string())),
});
export type Project = v.InferOutput<typeof Project>;

// ------------------------------------------------------------------ project calls (requests)

const LangCode = v.pipe(v.string(), v.trim(), v.toLowerCase(), v.regex(/^[a-z]{2,3}(?:-[a-z0-9]{2,8})?$/, 'Unknown language code'));
const Id = v.pipe(v.string(), v.uuid('Invalid id'));
const Text = (max: number) => v.pipe(v.string(), v.maxLength(max, `At most ${max} characters`));

/** Limits of a project's word list for speech recognition (PUT /api/project/{id}/asr_words, and on create). */
export const ASR_WORDS_MAX = 200;
export const ASR_WORD_MAX_CHARS = 60;
const AsrWordList = v.pipe(
  v.array(
    v.pipe(
      v.string('Each entry must be a string'),
      v.trim(),
      v.maxLength(ASR_WORD_MAX_CHARS, `Each entry has at most ${ASR_WORD_MAX_CHARS} characters`),
    ),
    'The words must be a list of strings',
  ),
  v.maxLength(ASR_WORDS_MAX, `At most ${ASR_WORDS_MAX} words`),
);

/** Most target languages of one create (one project per language). */
export const MAX_DST_LANGS = 10;
export const CreateTranscriptRequest = v.object({
  name: v.pipe(v.string(), v.trim(), v.minLength(1, 'Field is required'), v.maxLength(255, 'At most 255 characters')),
  src_lang: LangCode,
  /** The target language; with dst_langs it may be left out (it is then the first of them). */
  dst_lang: v.optional(LangCode),
  /** Several target languages (plan feature multilanguage): one project per language, sharing one analysis. */
  dst_langs: v.optional(v.pipe(v.array(LangCode), v.minLength(1, 'Choose at least one target language'), v.maxLength(MAX_DST_LANGS, `At most ${MAX_DST_LANGS} target languages`))),
  media_id: v.optional(v.nullable(Id)),
  link: v.optional(v.nullable(v.pipe(v.string(), v.trim(), v.maxLength(2048)))),
  glossary_id: v.optional(v.nullable(Id)),
  num_speakers: v.optional(v.nullable(v.pipe(v.number(), v.integer(), v.minValue(1), v.maxValue(20)))),
  src_srt_media_id: v.optional(v.nullable(Id)),
  dst_srt_media_id: v.optional(v.nullable(Id)),
  /** The source transcript as plain text (no times): aligned to the speech instead of recognising it. */
  src_text: v.optional(v.nullable(v.string())),
  /** Words recognition should know (names, products, places), stored as the project's word list (see asr_words). */
  asr_words: v.optional(AsrWordList),
});
export type CreateTranscriptRequest = v.InferOutput<typeof CreateTranscriptRequest>;

export const UpdateProjectRequest = v.object({
  name: v.optional(v.pipe(v.string(), v.trim(), v.minLength(1, 'Field is required'), v.maxLength(255, 'At most 255 characters'))),
  folder_id: v.optional(v.nullable(v.pipe(v.string(), v.maxLength(64)))),
  speakers: v.optional(
    v.pipe(
      v.array(v.object({
        id: v.pipe(v.string(), v.minLength(1), v.maxLength(64)),
        name: v.optional(v.pipe(v.string(), v.trim(), v.minLength(1, 'Field is required'), v.maxLength(100))),
        voice_id: v.optional(v.nullable(v.pipe(v.string(), v.maxLength(200)))),
      })),
      v.maxLength(50),
    ),
  ),
});
export type UpdateProjectRequest = v.InferOutput<typeof UpdateProjectRequest>;

export const PromptRequest = v.object({ prompt: v.nullable(Text(5000)) });
/**
 * The words speech recognition should know (product and place names): each entry a word or a short phrase;
 * blank entries and repeats are dropped. The project's dictionary terms are added to them.
 */
export const AsrWordsRequest = v.object({ words: AsrWordList });
export const AsrWordsResponse = v.object({ words: v.array(v.string()) });
export type AsrWordsResponse = v.InferOutput<typeof AsrWordsResponse>;
export const CopyProjectRequest = v.object({ dst_lang: LangCode, free_dubbing: v.optional(v.boolean(), false) });
export const MEDIA_DOWNLOAD_TYPES = ['video', 'audio', 'voiceover', 'srt', 'vtt', 'original', 'lipsync', 'lipsync_subtitles'] as const;
/** POST /api/project/{id}/run_lipsync_task. */
export const RunLipsyncRequest = v.object({
  /** Pay with the space's free lip-sync minutes only (refused when they do not cover the video). */
  is_free_lipsync: v.optional(v.boolean(), false),
  /** Several people speak on screen: each speaker's voice moves the face that speaks it. */
  is_multiple_speakers: v.optional(v.boolean(), false),
});
export type RunLipsyncRequest = v.InferOutput<typeof RunLipsyncRequest>;
export const MediaDownloadRequest = v.object({ media_type: v.picklist(MEDIA_DOWNLOAD_TYPES, 'Unknown media type') });
export const FeedbackRequest = v.object({
  comment: v.optional(Text(5000), ''),
  options: v.optional(v.pipe(v.array(Text(200)), v.maxLength(20)), []),
});
/** POST /api/project/{id}/feedback: the stored feedback. */
export const FeedbackAnswer = v.object({ id: v.string(), status: v.literal('ok') });
/** DELETE /api/project/{id}/transcript/{segmentId}: the segment that was removed. */
export const SegmentDeletedAnswer = v.object({ id: v.string() });
export const BURN_VIDEO_TYPES = ['translated', 'original', 'lipsync'] as const;

const SegmentTextInput = v.object({ lang: v.optional(v.string()), text: Text(5000) });
const Seconds = v.pipe(v.number(), v.minValue(0, 'Times cannot be negative'), v.maxValue(24 * 3600));
export const NewSegmentInput = v.object({
  start: Seconds,
  end: Seconds,
  speaker: v.pipe(v.string(), v.maxLength(64)),
  src: v.optional(SegmentTextInput),
  dst: v.optional(SegmentTextInput),
});
export const SegmentPatchInput = v.object({
  id: Id,
  start: v.optional(Seconds),
  end: v.optional(Seconds),
  speaker: v.optional(v.pipe(v.string(), v.maxLength(64))),
  src: v.optional(SegmentTextInput),
  dst: v.optional(SegmentTextInput),
});
/** Segment saves are sent in batches of at most 50 (spec section 5). */
export const TranscriptAddRequest = v.object({ segments: v.pipe(v.array(NewSegmentInput), v.minLength(1), v.maxLength(50)) });
export const TranscriptPatchRequest = v.object({ segments: v.pipe(v.array(SegmentPatchInput), v.minLength(1), v.maxLength(50)) });
export const TranscriptMergeRequest = v.object({ segment_ids: v.pipe(v.array(Id), v.minLength(2, 'Select at least two segments'), v.maxLength(50)) });

// ------------------------------------------------------------------ project calls (responses)

/** GET /api/project/paginated. */
export const ProjectPage = Paginated(Project);
export type ProjectPage = v.InferOutput<typeof ProjectPage>;

/** GET /api/project/folders: the folders of a Teamspace (a folder's id is its name) with their project counts. */
export const FolderList = v.object({ data: v.array(v.object({ id: v.string(), count: v.number() })) });
export type FolderList = v.InferOutput<typeof FolderList>;

/** GET /api/project/{id}/transcript and the segment calls. */
export const TranscriptResponse = v.object({ segments: v.array(Segment) });
export type TranscriptResponse = v.InferOutput<typeof TranscriptResponse>;

/** POST /api/project/{id}/transcript/{segmentId}/keep_original: keep the original audio over the segment (true) or dub it again (false). */
export const KeepOriginalRequest = v.object({ keep: v.boolean('keep must be true or false') });
export type KeepOriginalRequest = v.InferOutput<typeof KeepOriginalRequest>;

/** The timing calls on one segment (borrow_pause, keep_original): the segment as saved. */
export const SegmentTimingResponse = v.object({
  segment: Segment,
  /** borrow_pause: seconds the segment's end moved into the silence after it. */
  borrowed_sec: v.optional(v.number()),
});
export type SegmentTimingResponse = v.InferOutput<typeof SegmentTimingResponse>;

/** GET /api/project/{id}/voice_pool: the voices offered for the project's target language. */
export const Voice = v.object({
  id: v.string(),
  name: v.string(),
  gender: v.nullable(v.string()),
  language: v.string(),
  dialect: v.nullable(v.string()),
  engine: v.string(),
  sample_url: v.nullable(v.string()),
  /** Set for a voice preset of the space (its id is 'preset:<preset_id>'): a clone, or an instant clone of a speaker. */
  preset_id: v.optional(v.nullable(v.string())),
  is_temporary: v.optional(v.boolean()),
  speaker_id: v.optional(v.nullable(v.string())),
});
export type Voice = v.InferOutput<typeof Voice>;
export const VoicePool = v.object({ language: v.string(), voices: v.array(Voice) });
export type VoicePool = v.InferOutput<typeof VoicePool>;

/** POST /api/project/{id}/media_download: a signed link to the result. */
export const MediaDownloadResponse = v.object({ url: v.string() });

/** GET /api/library/info/video?link=: what the link's site tells of the video before it is downloaded. */
export const VideoInfo = v.object({
  link: v.string(),
  title: v.nullable(v.string()),
  duration: v.nullable(v.number()),
  thumbnail: v.nullable(v.string()),
  extractor: v.nullable(v.string()),
  webpage_url: v.nullable(v.string()),
});

/** One language of an all-languages deliverable (the original audio has no project). */
export const DeliverableLanguage = v.object({
  lang: v.string(),
  /** ISO 639-2 code written in the file. */
  code: v.string(),
  name: v.string(),
  project_id: v.nullable(v.string()),
  original: v.boolean(),
  default: v.boolean(),
});
/** GET /api/project/{id}/deliverables: the languages a deliverable holds now. */
export const DeliverableLanguages = v.object({ languages: v.array(DeliverableLanguage) });
/** POST /api/project/{id}/deliverables: the deliverable made (or kept). */
export const DeliverableAnswer = v.object({ format: v.picklist(['mp4', 'mkv', 'hls']), url: v.string(), languages: v.array(DeliverableLanguage) });
