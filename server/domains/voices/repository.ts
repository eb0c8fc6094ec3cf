// All SQL of the voice presets (voice_presets table) and of the users' voice tutorial flags.
import type { VoicePresetStatus, VoiceProfile } from '../../../contract/schemas/voice-preset';
import type { Db } from '../../db/index';
import { storableError } from '../../db/text';

export interface PresetRow {
  id: string;
  space_id: string;
  created_by: string | null;
  label: string;
  similarity_boost: number;
  stability: number;
  is_temporary: boolean;
  project_id: string | null;
  speaker_id: string | null;
  status: VoicePresetStatus;
  error: string | null;
  engine: string;
  engine_voice_id: string | null;
  profile: VoiceProfile | null;
  gender: string | null;
  sample_key: string | null;
  sample_duration: number | null;
  created_at: Date | string;
  updated_at: Date | string;
}

const COLS = `id, space_id, created_by, label, similarity_boost, stability, is_temporary, project_id, speaker_id, status, error,
  engine, engine_voice_id, profile, gender, sample_key, sample_duration, created_at, updated_at`;

export function findPreset(db: Db, id: string, o: { forUpdate?: boolean } = {}): Promise<PresetRow | null> {
  return db.maybeOne<PresetRow>(`SELECT ${COLS} FROM voice_presets WHERE id = $1${o.forUpdate ? ' FOR UPDATE' : ''}`, [id]);
}

export function findPresets(db: Db, ids: readonly string[]): Promise<PresetRow[]> {
  if (ids.length === 0) return Promise.resolve([]);
  return db.query<PresetRow>(`SELECT ${COLS} FROM voice_presets WHERE id::text IN (SELECT jsonb_array_elements_text($1::jsonb))`, [ids]);
}

/** The library of a space (newest first); instant presets only when asked. */
export function listPresets(db: Db, spaceId: string, o: { temporary?: boolean } = {}): Promise<PresetRow[]> {
  return db.query<PresetRow>(
    `SELECT ${COLS} FROM voice_presets WHERE space_id = $1 AND ($2::boolean OR NOT is_temporary) ORDER BY created_at DESC, id DESC`,
    [spaceId, !!o.temporary],
  );
}

/** The instant presets of a project's speakers. */
export function projectInstantPresets(db: Db, projectId: string): Promise<PresetRow[]> {
  return db.query<PresetRow>(`SELECT ${COLS} FROM voice_presets WHERE project_id = $1 AND is_temporary ORDER BY created_at`, [projectId]);
}

/** Library clones of a space (what the plan's limit counts), locked while counted. */
export async function countClones(db: Db, spaceId: string): Promise<number> {
  const r = await db.one<{ n: number }>(`SELECT count(*)::int AS n FROM voice_presets WHERE space_id = $1 AND NOT is_temporary`, [spaceId]);
  return r.n;
}

/** Serialises clone creation of one space (the limit check and the insert happen under it). */
export async function lockSpaceForClones(db: Db, spaceId: string): Promise<void> {
  await db.query(`SELECT id FROM spaces WHERE id = $1 FOR UPDATE`, [spaceId]);
}

export function insertPreset(
  db: Db,
  p: {
    id: string; spaceId: string; userId: string; label: string; similarityBoost: number; stability: number; isTemporary: boolean;
    projectId: string | null; speakerId: string | null; engine: string; profile: VoiceProfile; sampleKey: string; sampleDuration: number;
  },
): Promise<PresetRow> {
  return db.one<PresetRow>(
    `INSERT INTO voice_presets (id, space_id, created_by, label, similarity_boost, stability, is_temporary, project_id, speaker_id,
       engine, profile, gender, sample_key, sample_duration)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11::jsonb, $12, $13, $14) RETURNING ${COLS}`,
    [p.id, p.spaceId, p.userId, p.label, p.similarityBoost, p.stability, p.isTemporary, p.projectId, p.speakerId, p.engine,
      JSON.stringify(p.profile), p.profile.gender, p.sampleKey, p.sampleDuration],
  );
}

export function updatePreset(
  db: Db,
  id: string,
  f: { label?: string; similarityBoost?: number; stability?: number },
): Promise<PresetRow> {
  return db.one<PresetRow>(
    `UPDATE voice_presets SET label = COALESCE($2, label), similarity_boost = COALESCE($3, similarity_boost),
       stability = COALESCE($4, stability), updated_at = now() WHERE id = $1 RETURNING ${COLS}`,
    [id, f.label ?? null, f.similarityBoost ?? null, f.stability ?? null],
  );
}

export async function finishPreset(db: Db, id: string, r: { status: 'done' | 'error'; error?: string | null; engineVoiceId?: string | null }): Promise<void> {
  await db.query(
    `UPDATE voice_presets SET status = $2, error = $3, engine_voice_id = COALESCE($4, engine_voice_id), updated_at = now()
      WHERE id = $1 AND status = 'processing'`,
    [id, r.status, storableError(r.error), r.engineVoiceId ?? null],
  );
}

/** Presets left processing by a process that stopped (older than `seconds`) are failed. */
export async function failStalePresets(db: Db, seconds: number, message: string): Promise<void> {
  await db.query(
    `UPDATE voice_presets SET status = 'error', error = $2, updated_at = now()
      WHERE status = 'processing' AND updated_at < now() - ($1::text || ' seconds')::interval`,
    [String(seconds), message],
  );
}

export async function deletePreset(db: Db, id: string): Promise<void> {
  await db.query(`DELETE FROM voice_presets WHERE id = $1`, [id]);
}

/** Speakers of every project that use this preset as their voice. */
export async function speakersUsing(db: Db, voiceId: string, projectId?: string): Promise<Array<{ project_id: string; id: string }>> {
  return db.query<{ project_id: string; id: string }>(
    `SELECT project_id, id FROM speakers WHERE voice_id = $1 AND ($2::uuid IS NULL OR project_id = $2::uuid)`,
    [voiceId, projectId ?? null],
  );
}

// ------------------------------------------------------------------ tutorial flags

export type TutorialFlag = 'voice_preset_tutorial_displayed' | 'instant_voice_clone_tooltip_displayed';

export function setTutorialFlag(db: Db, userId: string, flag: TutorialFlag): Promise<{ voice_preset_tutorial_displayed: boolean; instant_voice_clone_tooltip_displayed: boolean }> {
  return db.one(
    `UPDATE users SET ${flag === 'voice_preset_tutorial_displayed' ? 'voice_preset_tutorial_displayed' : 'instant_voice_clone_tooltip_displayed'} = true
      WHERE id = $1 RETURNING voice_preset_tutorial_displayed, instant_voice_clone_tooltip_displayed`,
    [userId],
  );
}

export function tutorialFlags(db: Db, userId: string): Promise<{ voice_preset_tutorial_displayed: boolean; instant_voice_clone_tooltip_displayed: boolean }> {
  return db.one(`SELECT voice_preset_tutorial_displayed, instant_voice_clone_tooltip_displayed FROM users WHERE id = $1`, [userId]);
}
