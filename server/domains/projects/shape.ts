// Project and segment JSON (contract schemas): storage keys become signed media URLs.
import type { FaceCheck, Project, Segment } from '../../../contract/schemas/project';
import type { Config } from '../../config';
import type { Db } from '../../db/index';
import { mediaUrl } from '../../storage/index';
import type { Storage } from '../../storage/types';
import { countChangedSegments, type SegmentRow } from './transcript/repository';
import { speakersOfMany, type ProjectRow, type SpeakerRow } from './repository';

export interface ShapeDeps {
  db: Db;
  config: Config;
  storage: Storage;
}

function url(deps: ShapeDeps, key: string | null): string | null {
  return key ? mediaUrl(deps, key) : null;
}

export function projectJson(deps: ShapeDeps, p: ProjectRow, speakers: SpeakerRow[], changed: number): Project {
  return {
    id: p.id,
    name: p.name,
    created_date: new Date(p.created_date).toISOString(),
    space_id: p.space_id,
    folder_id: p.folder_id,
    status: p.status,
    progress: p.progress,
    error_message: p.error_message,
    error_code: p.error_code,
    prompt: p.prompt,
    src_lang: p.src_lang,
    dst_lang: p.dst_lang,
    duration: p.duration,
    glossary_id: p.glossary_id,
    src_srt_uploaded: !!p.src_srt_media_id,
    dst_srt_uploaded: !!p.dst_srt_media_id,
    free_dubbing: p.free_dubbing,
    tts_provider: p.tts_provider,
    cover: url(deps, p.cover),
    original_video: url(deps, p.original_video),
    translated_audio: url(deps, p.translated_audio),
    translated_video: url(deps, p.translated_video),
    voiceover: url(deps, p.voiceover),
    translation_srt_path: url(deps, p.translation_srt_path),
    translation_vtt_path: url(deps, p.translation_vtt_path),
    lipsync_info: {
      lipsync_result_path: url(deps, p.lipsync_result_path),
      status: p.lipsync_state,
      progress: p.lipsync_state === 'done' ? 100 : p.lipsync_state === 'processing' ? p.lipsync_progress : 0,
      error: p.lipsync_state === 'failed' ? p.lipsync_error : null,
      error_code: p.lipsync_state === 'failed' ? p.lipsync_error_code : null,
      engine: p.lipsync_engine,
      is_multiple_speakers: p.lipsync_multiple_speakers,
      stale: !!p.lipsync_result_path && p.lipsync_generation !== null && p.lipsync_generation !== p.generation,
      started_at: iso(p.lipsync_started_at),
      finished_at: iso(p.lipsync_finished_at),
    },
    subtitles_info: {
      subtitles_burn_result_path: url(deps, p.subtitles_burn_result_path),
      subtitles_lipsync_burn_result_path: url(deps, p.subtitles_lipsync_burn_result_path),
    },
    speakers: speakers.map((s) => ({ id: s.id, name: s.name, voice_id: s.voice_id, gender: s.gender })),
    changed_segments: changed,
    subtitles_banner_displayed: Array.isArray(p.subtitles_banner_displayed) ? p.subtitles_banner_displayed : [],
    subtitles_burn_state: p.subtitles_burn_state,
    subtitles_burn_error: p.subtitles_burn_error,
    face_check: (p.face_check as FaceCheck | null) ?? null,
    copied_from: p.copied_from,
    pending_dst_langs: (Array.isArray(p.pending_dst_langs) ? p.pending_dst_langs : []).map((l) => l.dst_lang),
  };
}

function iso(d: Date | string | null): string | null {
  return d === null ? null : new Date(d).toISOString();
}

/** Shapes several projects with two extra queries (speakers, changed-segment counts). */
export async function projectsJson(deps: ShapeDeps, rows: ProjectRow[]): Promise<Project[]> {
  const ids = rows.map((r) => r.id);
  const [speakers, changed] = await Promise.all([speakersOfMany(deps.db, ids), countChangedSegments(deps.db, ids)]);
  return rows.map((r) => projectJson(deps, r, speakers.filter((s) => s.project_id === r.id), changed.get(r.id) ?? 0));
}

export async function oneProjectJson(deps: ShapeDeps, row: ProjectRow): Promise<Project> {
  return (await projectsJson(deps, [row]))[0]!;
}

export function segmentJson(s: SegmentRow, src: string, dst: string): Segment {
  return {
    id: s.id,
    start: s.start_sec,
    end: s.end_sec,
    speaker: s.speaker,
    src: { lang: src, text: s.src_text },
    dst: { lang: dst, text: s.dst_text },
    status: s.status,
    speed_factor: s.speed_factor,
    overflow: s.overflow_sec,
    keep_original: s.keep_original === true,
    ...asrScores(s),
  };
}

/** The recognizer's scores of a segment, only when it gave some (the editor shades the doubtful words). */
function asrScores(s: SegmentRow): Pick<Segment, 'asr_confidence' | 'words'> {
  const scored = (s.words ?? []).filter((w) => typeof w.confidence === 'number' && Number.isFinite(w.confidence));
  const out: Pick<Segment, 'asr_confidence' | 'words'> = {};
  if (typeof s.asr_confidence === 'number') out.asr_confidence = s.asr_confidence;
  if (scored.length > 0) out.words = (s.words ?? []).map((w) => ({ text: w.text, start: w.start, end: w.end, ...(typeof w.confidence === 'number' && Number.isFinite(w.confidence) ? { confidence: w.confidence } : {}) }));
  return out;
}
