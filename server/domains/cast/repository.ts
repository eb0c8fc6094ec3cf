// All SQL of the cast of a Teamspace (cast_members, cast_voices, cast_recognitions; migration 032).
import type { VoiceProfile } from '../../../contract/schemas/voice-preset';
import type { Db } from '../../db/index';

export interface MemberRow {
  id: string;
  space_id: string;
  name: string;
  profile: VoiceProfile;
  gender: string | null;
  created_at: Date | string;
  updated_at: Date | string;
  /** lang -> voice id */
  voices: Record<string, string>;
}

export interface RecognitionRow {
  project_id: string;
  speaker_id: string;
  member_id: string | null;
  member_name: string;
  distance: number;
  previous_name: string;
  previous_voice_id: string | null;
  undone_at: Date | string | null;
}

const MEMBER = `m.id, m.space_id, m.name, m.profile, m.gender, m.created_at, m.updated_at,
  COALESCE((SELECT jsonb_object_agg(v.lang, v.voice_id) FROM cast_voices v WHERE v.member_id = m.id), '{}'::jsonb) AS voices`;

export function listMembers(db: Db, spaceId: string): Promise<MemberRow[]> {
  return db.query<MemberRow>(`SELECT ${MEMBER} FROM cast_members m WHERE m.space_id = $1 ORDER BY m.created_at, m.id`, [spaceId]);
}

export async function findMember(db: Db, spaceId: string, id: string, o: { forUpdate?: boolean } = {}): Promise<MemberRow | null> {
  const rows = await db.query<MemberRow>(
    `SELECT ${MEMBER} FROM cast_members m WHERE m.space_id = $1 AND m.id = $2${o.forUpdate ? ' FOR UPDATE' : ''}`,
    [spaceId, id],
  );
  return rows[0] ?? null;
}

export async function insertMember(db: Db, m: { spaceId: string; name: string; profile: VoiceProfile; gender: string | null; userId: string }): Promise<string> {
  const rows = await db.query<{ id: string }>(
    `INSERT INTO cast_members (space_id, name, profile, gender, created_by) VALUES ($1, $2, $3, $4, $5) RETURNING id`,
    [m.spaceId, m.name, JSON.stringify(m.profile), m.gender, m.userId],
  );
  return rows[0]!.id;
}

export async function updateMember(db: Db, id: string, f: { name?: string; profile?: VoiceProfile }): Promise<void> {
  await db.query(
    `UPDATE cast_members SET name = COALESCE($2, name), profile = COALESCE($3::jsonb, profile), updated_at = now() WHERE id = $1`,
    [id, f.name ?? null, f.profile ? JSON.stringify(f.profile) : null],
  );
}

export async function setVoice(db: Db, memberId: string, lang: string, voiceId: string | null): Promise<void> {
  if (voiceId === null) {
    await db.query(`DELETE FROM cast_voices WHERE member_id = $1 AND lang = $2`, [memberId, lang]);
    return;
  }
  await db.query(
    `INSERT INTO cast_voices (member_id, lang, voice_id) VALUES ($1, $2, $3) ON CONFLICT (member_id, lang) DO UPDATE SET voice_id = EXCLUDED.voice_id`,
    [memberId, lang, voiceId],
  );
}

export async function deleteMember(db: Db, id: string): Promise<void> {
  await db.query(`DELETE FROM cast_members WHERE id = $1`, [id]);
}

/** The other member's voices fill the languages `into` has none for; its recognitions now name `into`. */
export async function moveMember(db: Db, from: string, into: string, intoName: string): Promise<void> {
  await db.query(
    `INSERT INTO cast_voices (member_id, lang, voice_id) SELECT $2, lang, voice_id FROM cast_voices WHERE member_id = $1
     ON CONFLICT (member_id, lang) DO NOTHING`,
    [from, into],
  );
  await db.query(`UPDATE cast_recognitions SET member_id = $2, member_name = $3 WHERE member_id = $1`, [from, into, intoName]);
}

export function recognitionsOf(db: Db, projectId: string): Promise<RecognitionRow[]> {
  return db.query<RecognitionRow>(
    `SELECT project_id, speaker_id, member_id, member_name, distance, previous_name, previous_voice_id, undone_at
     FROM cast_recognitions WHERE project_id = $1 ORDER BY speaker_id`,
    [projectId],
  );
}

export async function insertRecognition(
  db: Db,
  r: { projectId: string; speakerId: string; memberId: string; memberName: string; distance: number; previousName: string; previousVoiceId: string | null },
): Promise<void> {
  await db.query(
    `INSERT INTO cast_recognitions (project_id, speaker_id, member_id, member_name, distance, previous_name, previous_voice_id)
     VALUES ($1, $2, $3, $4, $5, $6, $7)
     ON CONFLICT (project_id, speaker_id) DO UPDATE SET member_id = EXCLUDED.member_id, member_name = EXCLUDED.member_name,
       distance = EXCLUDED.distance, previous_name = EXCLUDED.previous_name, previous_voice_id = EXCLUDED.previous_voice_id, undone_at = NULL`,
    [r.projectId, r.speakerId, r.memberId, r.memberName, r.distance, r.previousName, r.previousVoiceId],
  );
}

/** The cast member a project's speaker was recognised as (not undone), or null. */
export async function recognisedMember(db: Db, projectId: string, speakerId: string): Promise<string | null> {
  const r = await db.maybeOne<{ member_id: string | null }>(
    `SELECT member_id FROM cast_recognitions WHERE project_id = $1 AND speaker_id = $2 AND undone_at IS NULL`,
    [projectId, speakerId],
  );
  return r?.member_id ?? null;
}

export async function markUndone(db: Db, projectId: string, speakerId: string): Promise<RecognitionRow | null> {
  const rows = await db.query<RecognitionRow>(
    `UPDATE cast_recognitions SET undone_at = now() WHERE project_id = $1 AND speaker_id = $2 AND undone_at IS NULL
     RETURNING project_id, speaker_id, member_id, member_name, distance, previous_name, previous_voice_id, undone_at`,
    [projectId, speakerId],
  );
  return rows[0] ?? null;
}

/** Restores a speaker's name and voice (the undo); its segments are re-voiced on the next generate. */
export async function restoreSpeaker(db: Db, projectId: string, speakerId: string, name: string, voiceId: string | null): Promise<void> {
  await db.query(`UPDATE speakers SET name = $3, voice_id = $4, voice_locked = false WHERE project_id = $1 AND id = $2`, [projectId, speakerId, name, voiceId]);
  await db.query(`UPDATE segments SET status = 'updated' WHERE project_id = $1 AND speaker = $2 AND status = 'done'`, [projectId, speakerId]);
}

export async function nameAndVoiceSpeaker(db: Db, projectId: string, speakerId: string, name: string, voiceId: string | null): Promise<void> {
  await db.query(
    `UPDATE speakers SET name = $3, voice_id = COALESCE($4, voice_id) WHERE project_id = $1 AND id = $2`,
    [projectId, speakerId, name, voiceId],
  );
}

/** Whether the space's owner is one of the install's staff (superuser). */
export async function spaceOwnerIsStaff(db: Db, spaceId: string): Promise<boolean> {
  const r = await db.maybeOne<{ is_superuser: boolean }>(
    `SELECT u.is_superuser FROM spaces s JOIN users u ON u.id = s.owner_id WHERE s.id = $1`,
    [spaceId],
  );
  return r?.is_superuser === true;
}
