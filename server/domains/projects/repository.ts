// All SQL of the projects domain: projects, speakers, feedback, glossary look-ups.
import type { VoiceProfile } from '../../../contract/schemas/voice-preset';
import type { TermEntry } from '../glossaries/check';
import type { ProjectStatus } from '../../../contract/statuses';
import type { ExpressionBuilder, Selectable } from 'kysely';
import type { Db } from '../../db/index';
import type { DB, JsonValue, Projects, Speakers } from '../../db/schema';
import { all, first, json, one, q, run, sql } from '../../db/sql';
import { spaceFactColumns, spaceFactsOf, type SpaceFacts } from '../spaces/repository';

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

const COLS = [
  'id',
  'space_id',
  'user_id',
  'name',
  'folder_id',
  'status',
  'progress',
  'error_code',
  'error_message',
  'prompt',
  'src_lang',
  'dst_lang',
  'media_id',
  'link',
  'num_speakers',
  'src_srt_media_id',
  'dst_srt_media_id',
  'glossary_id',
  'copied_from',
  'free_dubbing',
  'tts_provider',
  'duration',
  'media_info',
  'original_video',
  'cover',
  'translated_audio',
  'translated_video',
  'voiceover',
  'translation_srt_path',
  'translation_vtt_path',
  'lipsync_result_path',
  'subtitles_burn_result_path',
  'subtitles_lipsync_burn_result_path',
  'subtitles_banner_displayed',
  'subtitles_burn_state',
  'subtitles_burn_video_type',
  'subtitles_burn_error',
  'dubbed_generation',
  'face_check',
  'lipsync_state',
  'lipsync_progress',
  'lipsync_error',
  'lipsync_error_code',
  'lipsync_engine',
  'lipsync_multiple_speakers',
  'lipsync_generation',
  'lipsync_runs',
  'lipsync_started_at',
  'lipsync_finished_at',
  'generation',
  'pending_dst_langs',
  'created_date',
  'updated_at',
] as const;
type Selected = Pick<Selectable<Projects>, (typeof COLS)[number]>;

/** A project as read: its jsonb columns in their domain shape (the database knows them as any JSON), its states as their unions. */
function projectOf(r: Selected): ProjectRow {
  return {
    ...r,
    status: r.status as ProjectStatus,
    media_info: r.media_info as MediaInfo | null,
    face_check: r.face_check as Record<string, unknown> | null,
    subtitles_banner_displayed: r.subtitles_banner_displayed as string[],
    subtitles_burn_state: r.subtitles_burn_state as ProjectRow['subtitles_burn_state'],
    lipsync_state: r.lipsync_state as ProjectRow['lipsync_state'],
    pending_dst_langs: r.pending_dst_langs as ProjectRow['pending_dst_langs'],
  };
}
const projectOrNull = (r: Selected | null) => (r ? projectOf(r) : null);
const projects = () => q.selectFrom('projects').select(COLS);

export function findProject(db: Db, id: string): Promise<ProjectRow | null> {
  return first(db, projects().where('id', '=', id)).then(projectOrNull);
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
  const row = await first(
    db,
    projects()
      .select((eb) => [
        eb.selectFrom('transcript_revs as r').select(sql<string>`r.rev::text`.as('rev')).whereRef('r.project_id', '=', 'projects.id').as('transcript_rev'),
        eb.selectFrom('glossaries as g').select(sql<string>`g.updated_at::text`.as('u')).whereRef('g.id', '=', 'projects.glossary_id').as('glossary_updated'),
        ...spaceFactColumns(eb.ref('projects.space_id'), userId),
      ])
      .where('id', '=', id),
  );
  if (!row) return null;
  const { transcript_rev: rev, glossary_updated: glossary, space_fact_id: _i, space_fact_owner: _o, space_fact_active: _a, space_fact_role: _r, ...project } = row;
  return { project: projectOf(project), rev, glossary, space: spaceFactsOf(row) };
}
export function lockProject(db: Db, id: string): Promise<ProjectRow | null> {
  return first(db, projects().where('id', '=', id).forUpdate()).then(projectOrNull);
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
  return one(
    db,
    q
      .insertInto('projects')
      .values({
        space_id: p.spaceId, user_id: p.userId, name: p.name, src_lang: p.srcLang, dst_lang: p.dstLang, media_id: p.mediaId,
        link: p.link, num_speakers: p.numSpeakers, src_srt_media_id: p.srcSrtMediaId, dst_srt_media_id: p.dstSrtMediaId,
        glossary_id: p.glossaryId, free_dubbing: p.freeDubbing ?? false, copied_from: p.copiedFrom ?? null, tts_provider: p.ttsProvider,
        status: p.status ?? 'created', progress: p.progress ?? 1, pending_dst_langs: json(p.pendingDstLangs ?? []),
      })
      .returning(COLS),
  ).then(projectOf);
}

export interface ListQuery {
  name?: string | null;
  folderId?: string | null;
  limit: number;
  offset: number;
}

/** The projects of the list: the space's, filtered by name (a substring, any case) and folder when given. */
function listFilter(spaceId: string, o: ListQuery) {
  const name = o.name && o.name.trim() !== '' ? `%${o.name.trim().replace(/[\\%_]/g, (m) => '\\' + m)}%` : null;
  const folder = o.folderId && o.folderId.trim() !== '' ? o.folderId.trim() : null;
  return (eb: ExpressionBuilder<DB, 'projects'>) =>
    eb.and([
      eb('projects.space_id', '=', spaceId),
      ...(name === null ? [] : [eb('projects.name', 'ilike', name)]),
      ...(folder === null ? [] : [eb('projects.folder_id', '=', folder)]),
    ]);
}

/**
 * The version of one page of the project list, without reading the page: the number of matching projects, the
 * page's project ids with the transaction that last wrote each row (xmin), the same for their speakers, and the
 * sum of their transcript revisions (changed-segment counts). Any write to what the page shows changes it, whoever
 * made it, and a write that commits late still shows as a new xmin. Read it before the page. The same query reads
 * what the space guard needs about the space and `userId` (spaces/guard.ts checkSpaceFacts): one round trip.
 */
export async function listVersion(db: Db, spaceId: string, userId: string, o: ListQuery): Promise<{ version: string; space: SpaceFacts | null }> {
  const where = listFilter(spaceId, o);
  const v = await one(
    db,
    q
      .with('page', (w) =>
        w.selectFrom('projects').select(['id', sql<string>`xmin::text`.as('x')]).where(where).orderBy('created_date', 'desc').orderBy('id', 'desc').limit(o.limit).offset(o.offset),
      )
      .selectNoFrom((eb) => [
        eb.selectFrom('projects').select(sql<string>`count(*)::text`.as('n')).where(where).as('total'),
        eb.selectFrom('page').select(sql<string>`string_agg(page.id::text || '.' || page.x, ',' ORDER BY page.id)`.as('a')).as('rows'),
        eb
          .selectFrom('speakers as s')
          .select(sql<string>`string_agg(s.project_id::text || '.' || s.id || '.' || s.xmin::text, ',' ORDER BY s.project_id, s.id)`.as('a'))
          .where('s.project_id', 'in', eb.selectFrom('page').select('page.id'))
          .as('speakers'),
        eb
          .selectFrom('transcript_revs as t')
          .select(sql<string>`coalesce(sum(t.rev), 0)::text`.as('a'))
          .where('t.project_id', 'in', eb.selectFrom('page').select('page.id'))
          .as('revs'),
        ...spaceFactColumns(sql<string>`${spaceId}::uuid`, userId),
      ]),
  );
  return { version: [v.total, v.rows ?? '', v.speakers ?? '', v.revs].join('|'), space: spaceFactsOf(v) };
}

export async function listProjects(db: Db, spaceId: string, o: ListQuery): Promise<{ rows: ProjectRow[]; total: number }> {
  const where = listFilter(spaceId, o);
  const rows = await all(db, projects().where(where).orderBy('created_date', 'desc').orderBy('id', 'desc').limit(o.limit).offset(o.offset));
  const t = await one(db, q.selectFrom('projects').select((eb) => eb.cast<number>(eb.fn.countAll(), 'integer').as('n')).where(where));
  return { rows: rows.map(projectOf), total: Number(t.n) };
}

/** Folders of a space: the distinct folder names its projects are filed under, with their project counts. */
export function listFolders(db: Db, spaceId: string): Promise<{ id: string; count: number }[]> {
  return all(
    db,
    q
      .selectFrom('projects')
      .select(['folder_id as id', (eb) => eb.cast<number>(eb.fn.countAll(), 'integer').as('count')])
      .where('space_id', '=', spaceId)
      .where('folder_id', 'is not', null)
      .where('folder_id', '<>', '')
      .groupBy('folder_id')
      .orderBy(sql`lower(folder_id)`)
      .orderBy('folder_id')
      .$narrowType<{ id: string }>(),
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
  // a key given as undefined is written as null, as ever (the builder would leave it out); media_info is jsonb
  const set = Object.fromEntries(keys.map((k) => [k, k === 'media_info' && patch.media_info ? json(patch.media_info) : (patch[k] ?? null)])) as Omit<typeof patch, 'media_info'>;
  return first(db, q.updateTable('projects').set({ ...set, updated_at: sql`now()` }).where('id', '=', id).returning(COLS)).then(projectOrNull);
}

export async function setPendingLanguages(db: Db, id: string, pending: Array<{ dst_lang: string; glossary_id: string | null }>): Promise<void> {
  await run(db, q.updateTable('projects').set({ pending_dst_langs: json(pending) }).where('id', '=', id));
}

/** Marks the face check as running (the job fills in the result). */
export async function startFaceCheck(db: Db, id: string): Promise<void> {
  await run(
    db,
    q
      .updateTable('projects')
      .set({
        face_check: sql`jsonb_build_object('status', 'processing', 'faces_found', 0, 'face_share', 0, 'multiple_faces', false, 'error', NULL)`,
        updated_at: sql`now()`,
      })
      .where('id', '=', id),
  );
}

/** Records a new lip-sync run (its number is the billing reference of the run). Returns that number. */
export async function startLipsync(db: Db, id: string, o: { engine: string; multipleSpeakers: boolean }): Promise<number> {
  const r = await one(
    db,
    q
      .updateTable('projects')
      .set((eb) => ({
        lipsync_state: 'processing',
        lipsync_progress: 1,
        lipsync_error: null,
        lipsync_error_code: null,
        lipsync_engine: o.engine,
        lipsync_multiple_speakers: o.multipleSpeakers,
        lipsync_runs: eb('lipsync_runs', '+', 1),
        lipsync_started_at: sql`now()`,
        lipsync_finished_at: null,
        updated_at: sql`now()`,
      }))
      .where('id', '=', id)
      .returning('lipsync_runs'),
  );
  return Number(r.lipsync_runs);
}

/** Starts the next generation of the project's dub; returns its number. */
export async function bumpGeneration(db: Db, id: string): Promise<number> {
  const r = await one(db, q.updateTable('projects').set((eb) => ({ generation: eb('generation', '+', 1) })).where('id', '=', id).returning('generation'));
  return Number(r.generation);
}

/** Seconds of speech in segments changed since the last dub (not 'done': edited, failed or left over). */
export async function changedSeconds(db: Db, id: string): Promise<number> {
  const r = await one(
    db,
    q.selectFrom('segments').select(sql<number>`COALESCE(SUM(end_sec - start_sec), 0)::float8`.as('s')).where('project_id', '=', id).where('status', '<>', 'done'),
  );
  return Number(r.s);
}

export async function addBannerDisplayed(db: Db, id: string, videoType: string): Promise<void> {
  await run(
    db,
    q
      .updateTable('projects')
      .set({
        subtitles_banner_displayed: sql`CASE WHEN subtitles_banner_displayed ? ${videoType}::text
          THEN subtitles_banner_displayed ELSE subtitles_banner_displayed || to_jsonb(${videoType}::text) END`,
      })
      .where('id', '=', id),
  );
}

export async function deleteProject(db: Db, id: string): Promise<boolean> {
  const rows = await all(db, q.deleteFrom('projects').where('id', '=', id).returning('id'));
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

const SPEAKER_COLS = ['project_id', 'id', 'name', 'gender', 'pitch_hz', 'voice_id', 'voice_locked', 'position', 'profile'] as const;
/** A speaker as read: its gender as its union, its profile (jsonb) in its domain shape. */
function speakerOf(r: Pick<Selectable<Speakers>, (typeof SPEAKER_COLS)[number]>): SpeakerRow {
  return { ...r, gender: r.gender as SpeakerRow['gender'], profile: r.profile as VoiceProfile | null };
}
/** `column::text` is one of `values` (given as one jsonb array parameter, however many there are). */
function textIn(column: 'id' | 'project_id', values: readonly string[]) {
  return sql<boolean>`${sql.ref(column)}::text IN (SELECT jsonb_array_elements_text(${JSON.stringify(values)}::jsonb))`;
}

export async function speakersOf(db: Db, projectId: string): Promise<SpeakerRow[]> {
  const rows = await all(db, q.selectFrom('speakers').select(SPEAKER_COLS).where('project_id', '=', projectId).orderBy('position').orderBy('id'));
  return rows.map(speakerOf);
}
export async function speakersOfMany(db: Db, ids: string[]): Promise<SpeakerRow[]> {
  if (ids.length === 0) return [];
  const rows = await all(db, q.selectFrom('speakers').select(SPEAKER_COLS).where(textIn('project_id', ids)).orderBy('project_id').orderBy('position').orderBy('id'));
  return rows.map(speakerOf);
}

/** Replaces the project's speakers, keeping the voice of speakers whose voice a person chose. */
export async function replaceSpeakers(
  db: Db,
  projectId: string,
  speakers: Array<{ id: string; name: string; gender: string | null; pitch_hz: number | null; profile?: VoiceProfile | null }>,
): Promise<void> {
  await run(
    db,
    q
      .deleteFrom('speakers')
      .where('project_id', '=', projectId)
      .where('voice_locked', '=', false)
      .where(sql<boolean>`id NOT IN (SELECT jsonb_array_elements_text(${JSON.stringify(speakers.map((s) => s.id))}::jsonb))`),
  );
  let pos = 0;
  for (const s of speakers) {
    await run(
      db,
      q
        .insertInto('speakers')
        .values({ project_id: projectId, id: s.id, name: s.name, gender: s.gender, pitch_hz: s.pitch_hz, position: pos++, profile: s.profile ? json(s.profile) : null })
        .onConflict((c) =>
          c.columns(['project_id', 'id']).doUpdateSet((eb) => ({
            gender: eb.ref('excluded.gender'),
            pitch_hz: eb.ref('excluded.pitch_hz'),
            position: eb.ref('excluded.position'),
            profile: eb.ref('excluded.profile'),
          })),
        ),
    );
  }
}

export async function setSpeakerVoice(db: Db, projectId: string, speakerId: string, voiceId: string, locked: boolean): Promise<boolean> {
  const rows = await all(
    db,
    q.updateTable('speakers').set({ voice_id: voiceId, voice_locked: locked }).where('project_id', '=', projectId).where('id', '=', speakerId).returning('id'),
  );
  return rows.length > 0;
}
export async function setSpeakerName(db: Db, projectId: string, speakerId: string, name: string): Promise<boolean> {
  const rows = await all(db, q.updateTable('speakers').set({ name }).where('project_id', '=', projectId).where('id', '=', speakerId).returning('id'));
  return rows.length > 0;
}
export async function ensureSpeaker(db: Db, projectId: string, speakerId: string): Promise<void> {
  await run(
    db,
    q
      .insertInto('speakers')
      .values({
        project_id: projectId,
        id: speakerId,
        name: speakerId,
        position: q.selectFrom('speakers').select(sql<number>`COALESCE(max(position) + 1, 0)`.as('p')).where('project_id', '=', projectId),
      })
      .onConflict((c) => c.columns(['project_id', 'id']).doNothing()),
  );
}
export async function copySpeakers(db: Db, fromId: string, toId: string): Promise<void> {
  await run(
    db,
    q
      .insertInto('speakers')
      .columns(['project_id', 'id', 'name', 'gender', 'pitch_hz', 'position', 'profile'])
      .expression(
        q
          .selectFrom('speakers')
          .select([sql<string>`${toId}::uuid`.as('project_id'), 'id', 'name', 'gender', 'pitch_hz', 'position', 'profile'])
          .where('project_id', '=', fromId),
      ),
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
export async function findGlossary(db: Db, id: string): Promise<GlossaryRow | null> {
  const r = await first(db, q.selectFrom('glossaries').select(['id', 'space_id', 'src_lang', 'dst_lang', 'terms']).where('id', '=', id));
  return r ? { ...r, terms: r.terms as unknown as TermEntry[] } : null;
}
/** The source terms of a dictionary, in stored order, at most `limit` (an entry without one answers null). */
export async function glossarySourceTerms(db: Db, id: string, limit: number): Promise<Array<string | null>> {
  const rows = await all(
    db,
    q
      .selectFrom(['glossaries as g', sql<{ e: JsonValue }>`jsonb_array_elements(g.terms)`.as('e')])
      .select(sql<string | null>`e->>'source'`.as('term'))
      .where('g.id', '=', id)
      .limit(limit),
  );
  return rows.map((r) => r.term);
}

// ------------------------------------------------------------------ word list for recognition (issue 33)

/** The stored word list of a project (any JSON as stored), null when it has none. */
export async function findAsrWords(db: Db, projectId: string): Promise<JsonValue | null> {
  const r = await first(db, q.selectFrom('project_asr_words').select('words').where('project_id', '=', projectId));
  return r ? r.words : null;
}
/** Stores the project's word list in place of the one it had. */
export async function upsertAsrWords(db: Db, projectId: string, words: readonly string[]): Promise<void> {
  await run(
    db,
    q
      .insertInto('project_asr_words')
      .values({ project_id: projectId, words: json(words), updated_at: sql`now()` })
      .onConflict((c) => c.column('project_id').doUpdateSet((eb) => ({ words: eb.ref('excluded.words'), updated_at: sql`now()` }))),
  );
}

// ------------------------------------------------------------------ feedback

export async function insertFeedback(db: Db, f: { projectId: string; userId: string; comment: string; options: string[] }): Promise<{ id: string }> {
  return one(db, q.insertInto('project_feedback').values({ project_id: f.projectId, user_id: f.userId, comment: f.comment, options: json(f.options) }).returning('id'));
}
