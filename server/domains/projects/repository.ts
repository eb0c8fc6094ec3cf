// All SQL of the projects domain: projects, speakers, feedback, glossary look-ups.
import type { VoiceProfile } from '../../../contract/schemas/voice-preset';
import type { TermEntry } from '../glossaries/check';
import type { ProjectStatus } from '../../../contract/statuses';
import type { Db } from '../../db/index';
import { spaceFactColumns, spaceFactsOf, type SpaceFactRow, type SpaceFacts } from '../spaces/repository';

export interface MediaInfo {
  hasVideo: boolean;
  hasAudio: boolean;
  width: number | null;
  height: number | null;
  fps: number | null;
  videoCodec: string | null;
  pixFmt: string | null;
  sizeBytes: number;
  /** Storage key of the source file (original_video holds the same for video inputs). */
  sourceKey?: string;
}

export interface ProjectRow {
  id: string;
  space_id: string;
  user_id: string | null;
  name: string;
  folder_id: string | null;
  status: ProjectStatus;
  progress: number;
  error_code: string | null;
  error_message: string | null;
  prompt: string | null;
  src_lang: string;
  dst_lang: string;
  media_id: string | null;
  link: string | null;
  num_speakers: number | null;
  src_srt_media_id: string | null;
  dst_srt_media_id: string | null;
  glossary_id: string | null;
  copied_from: string | null;
  free_dubbing: boolean;
  tts_provider: string | null;
  duration: number | null;
  media_info: MediaInfo | null;
  original_video: string | null;
  cover: string | null;
  translated_audio: string | null;
  translated_video: string | null;
  voiceover: string | null;
  translation_srt_path: string | null;
  translation_vtt_path: string | null;
  lipsync_result_path: string | null;
  subtitles_burn_result_path: string | null;
  subtitles_lipsync_burn_result_path: string | null;
  subtitles_banner_displayed: string[];
  subtitles_burn_state: 'processing' | 'done' | 'failed' | null;
  subtitles_burn_video_type: string | null;
  subtitles_burn_error: string | null;
  dubbed_generation: number | null;
  face_check: Record<string, unknown> | null;
  lipsync_state: 'processing' | 'done' | 'failed' | null;
  lipsync_progress: number;
  lipsync_error: string | null;
  lipsync_error_code: string | null;
  lipsync_engine: string | null;
  lipsync_multiple_speakers: boolean;
  lipsync_generation: number | null;
  lipsync_runs: number;
  lipsync_started_at: Date | string | null;
  lipsync_finished_at: Date | string | null;
  generation: number;
  /** Languages of a multi-language create still to be made from this project ({dst_lang, glossary_id}). */
  pending_dst_langs: Array<{ dst_lang: string; glossary_id: string | null }>;
  created_date: Date | string;
  updated_at: Date | string;
}

const COLS = `id, space_id, user_id, name, folder_id, status, progress, error_code, error_message, prompt, src_lang,
  dst_lang, media_id, link, num_speakers, src_srt_media_id, dst_srt_media_id, glossary_id, copied_from, free_dubbing,
  tts_provider, duration, media_info, original_video, cover, translated_audio, translated_video, voiceover,
  translation_srt_path, translation_vtt_path, lipsync_result_path, subtitles_burn_result_path,
  subtitles_lipsync_burn_result_path, subtitles_banner_displayed, subtitles_burn_state, subtitles_burn_video_type,
  subtitles_burn_error, dubbed_generation, face_check, lipsync_state, lipsync_progress, lipsync_error,
  lipsync_error_code, lipsync_engine, lipsync_multiple_speakers, lipsync_generation, lipsync_runs, lipsync_started_at,
  lipsync_finished_at, generation, pending_dst_langs, created_date, updated_at`;

export function findProject(db: Db, id: string): Promise<ProjectRow | null> {
  return db.maybeOne<ProjectRow>(`SELECT ${COLS} FROM projects WHERE id = $1`, [id]);
}
/**
 * A project with what versions its transcript answer (server/domains/projects/transcript/cache.ts), in one query: its
 * transcript revision and its dictionary's updated_at, and what the space guard needs about its space and `userId`.
 */
export async function findProjectWithTranscriptVersion(
  db: Db,
  id: string,
  userId: string,
): Promise<{ project: ProjectRow; rev: string | null; glossary: string | null; space: SpaceFacts | null } | null> {
  const row = await db.maybeOne<ProjectRow & SpaceFactRow & { transcript_rev: string | null; glossary_updated: string | null }>(
    `SELECT ${COLS},
            (SELECT r.rev::text FROM transcript_revs r WHERE r.project_id = projects.id) AS transcript_rev,
            (SELECT g.updated_at::text FROM glossaries g WHERE g.id = projects.glossary_id) AS glossary_updated,
            ${spaceFactColumns('projects.space_id', '$2::uuid')}
     FROM projects WHERE id = $1`,
    [id, userId],
  );
  if (!row) return null;
  const { transcript_rev: rev, glossary_updated: glossary, space_fact_id: _i, space_fact_owner: _o, space_fact_active: _a, space_fact_role: _r, ...project } = row;
  return { project: project as ProjectRow, rev, glossary, space: spaceFactsOf(row) };
}
export function lockProject(db: Db, id: string): Promise<ProjectRow | null> {
  return db.maybeOne<ProjectRow>(`SELECT ${COLS} FROM projects WHERE id = $1 FOR UPDATE`, [id]);
}

export interface NewProject {
  spaceId: string;
  userId: string;
  name: string;
  srcLang: string;
  dstLang: string;
  mediaId: string | null;
  link: string | null;
  numSpeakers: number | null;
  srcSrtMediaId: string | null;
  dstSrtMediaId: string | null;
  glossaryId: string | null;
  freeDubbing?: boolean;
  copiedFrom?: string | null;
  ttsProvider: string | null;
  status?: ProjectStatus;
  progress?: number;
  pendingDstLangs?: Array<{ dst_lang: string; glossary_id: string | null }>;
}

export function insertProject(db: Db, p: NewProject): Promise<ProjectRow> {
  return db.one<ProjectRow>(
    `INSERT INTO projects (space_id, user_id, name, src_lang, dst_lang, media_id, link, num_speakers, src_srt_media_id,
       dst_srt_media_id, glossary_id, free_dubbing, copied_from, tts_provider, status, progress, pending_dst_langs)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17::jsonb)
     RETURNING ${COLS}`,
    [
      p.spaceId, p.userId, p.name, p.srcLang, p.dstLang, p.mediaId, p.link, p.numSpeakers, p.srcSrtMediaId,
      p.dstSrtMediaId, p.glossaryId, p.freeDubbing ?? false, p.copiedFrom ?? null, p.ttsProvider, p.status ?? 'created',
      p.progress ?? 1, JSON.stringify(p.pendingDstLangs ?? []),
    ],
  );
}

export interface ListQuery {
  name?: string | null;
  folderId?: string | null;
  limit: number;
  offset: number;
}

function listFilter(o: ListQuery): { name: string | null; folder: string | null; where: string } {
  const name = o.name && o.name.trim() !== '' ? `%${o.name.trim().replace(/[\\%_]/g, (m) => '\\' + m)}%` : null;
  const folder = o.folderId && o.folderId.trim() !== '' ? o.folderId.trim() : null;
  return { name, folder, where: `space_id = $1 AND ($2::text IS NULL OR name ILIKE $2) AND ($3::text IS NULL OR folder_id = $3)` };
}

/**
 * The version of one page of the project list, without reading the page: the number of matching projects, the
 * page's project ids with the transaction that last wrote each row (xmin), the same for their speakers, and the
 * sum of their transcript revisions (changed-segment counts). Any write to what the page shows changes it, whoever
 * made it, and a write that commits late still shows as a new xmin. Read it before the page. The same query reads
 * what the space guard needs about the space and `userId` (spaces/guard.ts checkSpaceFacts): one round trip.
 */
export async function listVersion(db: Db, spaceId: string, userId: string, o: ListQuery): Promise<{ version: string; space: SpaceFacts | null }> {
  const { name, folder, where } = listFilter(o);
  const v = await db.one<SpaceFactRow & { total: string; rows: string | null; speakers: string | null; revs: string }>(
    `WITH page AS (
       SELECT id, xmin::text AS x FROM projects WHERE ${where} ORDER BY created_date DESC, id DESC LIMIT $4 OFFSET $5
     )
     SELECT (SELECT count(*) FROM projects WHERE ${where})::text AS total,
            (SELECT string_agg(id::text || '.' || x, ',' ORDER BY id) FROM page) AS rows,
            (SELECT string_agg(s.project_id::text || '.' || s.id || '.' || s.xmin::text, ',' ORDER BY s.project_id, s.id)
               FROM speakers s WHERE s.project_id IN (SELECT id FROM page)) AS speakers,
            (SELECT coalesce(sum(rev), 0)::text FROM transcript_revs WHERE project_id IN (SELECT id FROM page)) AS revs,
            ${spaceFactColumns('$1::uuid', '$6::uuid')}`,
    [spaceId, name, folder, o.limit, o.offset, userId],
  );
  return { version: [v.total, v.rows ?? '', v.speakers ?? '', v.revs].join('|'), space: spaceFactsOf(v) };
}

export async function listProjects(db: Db, spaceId: string, o: ListQuery): Promise<{ rows: ProjectRow[]; total: number }> {
  const { name, folder, where } = listFilter(o);
  const rows = await db.query<ProjectRow>(
    `SELECT ${COLS} FROM projects WHERE ${where} ORDER BY created_date DESC, id DESC LIMIT $4 OFFSET $5`,
    [spaceId, name, folder, o.limit, o.offset],
  );
  const t = await db.one<{ n: number }>(`SELECT count(*)::int AS n FROM projects WHERE ${where}`, [spaceId, name, folder]);
  return { rows, total: Number(t.n) };
}

/** Folders of a space: the distinct folder names its projects are filed under, with their project counts. */
export function listFolders(db: Db, spaceId: string): Promise<{ id: string; count: number }[]> {
  return db.query<{ id: string; count: number }>(
    `SELECT folder_id AS id, count(*)::int AS count FROM projects
     WHERE space_id = $1 AND folder_id IS NOT NULL AND folder_id <> ''
     GROUP BY folder_id ORDER BY lower(folder_id), folder_id`,
    [spaceId],
  );
}

export async function updateProjectFields(
  db: Db,
  id: string,
  patch: Partial<Pick<ProjectRow,
    | 'name' | 'folder_id' | 'prompt' | 'glossary_id' | 'duration' | 'media_info' | 'original_video' | 'cover'
    | 'translated_audio' | 'translated_video' | 'voiceover' | 'translation_srt_path' | 'translation_vtt_path'
    | 'subtitles_burn_result_path' | 'subtitles_lipsync_burn_result_path' | 'subtitles_burn_state'
    | 'subtitles_burn_video_type' | 'subtitles_burn_error' | 'tts_provider'>>,
): Promise<ProjectRow | null> {
  const keys = Object.keys(patch) as Array<keyof typeof patch>;
  if (keys.length === 0) return findProject(db, id);
  const sets = keys.map((k, i) => `${k} = $${i + 2}`);
  return db.maybeOne<ProjectRow>(
    `UPDATE projects SET ${sets.join(', ')}, updated_at = now() WHERE id = $1 RETURNING ${COLS}`,
    [id, ...keys.map((k) => patch[k] as never)],
  );
}

export async function setPendingLanguages(db: Db, id: string, pending: Array<{ dst_lang: string; glossary_id: string | null }>): Promise<void> {
  await db.query(`UPDATE projects SET pending_dst_langs = $2::jsonb WHERE id = $1`, [id, JSON.stringify(pending)]);
}

/** Marks the face check as running (the job fills in the result). */
export async function startFaceCheck(db: Db, id: string): Promise<void> {
  await db.query(
    `UPDATE projects SET face_check = jsonb_build_object('status', 'processing', 'faces_found', 0, 'face_share', 0,
       'multiple_faces', false, 'error', NULL), updated_at = now() WHERE id = $1`,
    [id],
  );
}

/** Records a new lip-sync run (its number is the billing reference of the run). Returns that number. */
export async function startLipsync(db: Db, id: string, o: { engine: string; multipleSpeakers: boolean }): Promise<number> {
  const r = await db.one<{ lipsync_runs: number }>(
    `UPDATE projects SET lipsync_state = 'processing', lipsync_progress = 1, lipsync_error = NULL, lipsync_error_code = NULL,
       lipsync_engine = $2, lipsync_multiple_speakers = $3, lipsync_runs = lipsync_runs + 1, lipsync_started_at = now(),
       lipsync_finished_at = NULL, updated_at = now()
     WHERE id = $1 RETURNING lipsync_runs`,
    [id, o.engine, o.multipleSpeakers],
  );
  return Number(r.lipsync_runs);
}

/** Starts the next generation of the project's dub; returns its number. */
export async function bumpGeneration(db: Db, id: string): Promise<number> {
  const r = await db.one<{ generation: number }>(`UPDATE projects SET generation = generation + 1 WHERE id = $1 RETURNING generation`, [id]);
  return Number(r.generation);
}

/** Seconds of speech in segments changed since the last dub (not 'done': edited, failed or left over). */
export async function changedSeconds(db: Db, id: string): Promise<number> {
  const r = await db.one<{ s: number }>(
    `SELECT COALESCE(SUM(end_sec - start_sec), 0)::float8 AS s FROM segments WHERE project_id = $1 AND status <> 'done'`,
    [id],
  );
  return Number(r.s);
}

export async function addBannerDisplayed(db: Db, id: string, videoType: string): Promise<void> {
  await db.query(
    `UPDATE projects SET subtitles_banner_displayed = CASE WHEN subtitles_banner_displayed ? $2
       THEN subtitles_banner_displayed ELSE subtitles_banner_displayed || to_jsonb($2::text) END WHERE id = $1`,
    [id, videoType],
  );
}

export async function deleteProject(db: Db, id: string): Promise<boolean> {
  const rows = await db.query(`DELETE FROM projects WHERE id = $1 RETURNING id`, [id]);
  return rows.length > 0;
}

// ------------------------------------------------------------------ speakers

export interface SpeakerRow {
  project_id: string;
  id: string;
  name: string;
  gender: 'male' | 'female' | null;
  pitch_hz: number | null;
  voice_id: string | null;
  voice_locked: boolean;
  position: number;
  /** The measured voice profile (issue 28), null before it is measured. */
  profile: VoiceProfile | null;
}

export function speakersOf(db: Db, projectId: string): Promise<SpeakerRow[]> {
  return db.query<SpeakerRow>(
    `SELECT project_id, id, name, gender, pitch_hz, voice_id, voice_locked, position, profile FROM speakers
     WHERE project_id = $1 ORDER BY position, id`,
    [projectId],
  );
}
export function speakersOfMany(db: Db, ids: string[]): Promise<SpeakerRow[]> {
  if (ids.length === 0) return Promise.resolve([]);
  return db.query<SpeakerRow>(
    `SELECT project_id, id, name, gender, pitch_hz, voice_id, voice_locked, position, profile FROM speakers
     WHERE project_id::text IN (SELECT jsonb_array_elements_text($1::jsonb)) ORDER BY project_id, position, id`,
    [ids],
  );
}

/** Replaces the project's speakers, keeping the voice of speakers whose voice a person chose. */
export async function replaceSpeakers(
  db: Db,
  projectId: string,
  speakers: Array<{ id: string; name: string; gender: string | null; pitch_hz: number | null; profile?: VoiceProfile | null }>,
): Promise<void> {
  await db.query(
    `DELETE FROM speakers WHERE project_id = $1 AND NOT voice_locked
       AND id NOT IN (SELECT jsonb_array_elements_text($2::jsonb))`,
    [projectId, speakers.map((s) => s.id)],
  );
  let pos = 0;
  for (const s of speakers) {
    await db.query(
      `INSERT INTO speakers (project_id, id, name, gender, pitch_hz, position, profile) VALUES ($1, $2, $3, $4, $5, $6, $7)
       ON CONFLICT (project_id, id) DO UPDATE SET gender = EXCLUDED.gender, pitch_hz = EXCLUDED.pitch_hz,
         position = EXCLUDED.position, profile = EXCLUDED.profile`,
      [projectId, s.id, s.name, s.gender, s.pitch_hz, pos++, s.profile ? JSON.stringify(s.profile) : null],
    );
  }
}

export async function setSpeakerVoice(db: Db, projectId: string, speakerId: string, voiceId: string, locked: boolean): Promise<boolean> {
  const rows = await db.query(
    `UPDATE speakers SET voice_id = $3, voice_locked = $4 WHERE project_id = $1 AND id = $2 RETURNING id`,
    [projectId, speakerId, voiceId, locked],
  );
  return rows.length > 0;
}
export async function setSpeakerName(db: Db, projectId: string, speakerId: string, name: string): Promise<boolean> {
  const rows = await db.query(`UPDATE speakers SET name = $3 WHERE project_id = $1 AND id = $2 RETURNING id`, [projectId, speakerId, name]);
  return rows.length > 0;
}
export async function ensureSpeaker(db: Db, projectId: string, speakerId: string): Promise<void> {
  await db.query(
    `INSERT INTO speakers (project_id, id, name, position)
     VALUES ($1, $2, $2, (SELECT COALESCE(max(position) + 1, 0) FROM speakers WHERE project_id = $1))
     ON CONFLICT (project_id, id) DO NOTHING`,
    [projectId, speakerId],
  );
}
export async function copySpeakers(db: Db, fromId: string, toId: string): Promise<void> {
  await db.query(
    `INSERT INTO speakers (project_id, id, name, gender, pitch_hz, position, profile)
     SELECT $2, id, name, gender, pitch_hz, position, profile FROM speakers WHERE project_id = $1`,
    [fromId, toId],
  );
}

// ------------------------------------------------------------------ glossary (minimal table of this domain)

export interface GlossaryRow {
  id: string;
  space_id: string;
  src_lang: string;
  dst_lang: string;
  /** Dictionary entries ({source, target, do_not_translate, case_sensitive, pronunciation}; older rows: source/target only). */
  terms: TermEntry[];
}
export function findGlossary(db: Db, id: string): Promise<GlossaryRow | null> {
  return db.maybeOne<GlossaryRow>(`SELECT id, space_id, src_lang, dst_lang, terms FROM glossaries WHERE id = $1`, [id]);
}

// ------------------------------------------------------------------ feedback

export async function insertFeedback(db: Db, f: { projectId: string; userId: string; comment: string; options: string[] }): Promise<{ id: string }> {
  return db.one<{ id: string }>(
    `INSERT INTO project_feedback (project_id, user_id, comment, options) VALUES ($1, $2, $3, $4) RETURNING id`,
    [f.projectId, f.userId, f.comment, JSON.stringify(f.options)],
  );
}
