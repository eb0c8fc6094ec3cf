// All SQL of the cast of a Teamspace (cast_members, cast_voices, cast_recognitions; migration 032).
import type { VoiceProfile } from '../../../contract/schemas/voice-preset';
import type { Db } from '../../db/index';
import { all, first, json, one, q, run, sql } from '../../db/sql';

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

/** The members with their voices (lang -> voice id) gathered from cast_voices. */
function members() {
  return q
    .selectFrom('cast_members as m')
    .select([
      'm.id',
      'm.space_id',
      'm.name',
      'm.profile',
      'm.gender',
      'm.created_at',
      'm.updated_at',
      sql<Record<string, string>>`COALESCE((SELECT jsonb_object_agg(v.lang, v.voice_id) FROM cast_voices v WHERE v.member_id = m.id), '{}'::jsonb)`.as('voices'),
    ])
    .$narrowType<{ profile: VoiceProfile }>();
}

export function listMembers(db: Db, spaceId: string): Promise<MemberRow[]> {
  return all(db, members().where('m.space_id', '=', spaceId).orderBy('m.created_at').orderBy('m.id'));
}

export function findMember(db: Db, spaceId: string, id: string, o: { forUpdate?: boolean } = {}): Promise<MemberRow | null> {
  const query = members().where('m.space_id', '=', spaceId).where('m.id', '=', id);
  return first(db, o.forUpdate ? query.forUpdate() : query);
}

export async function insertMember(db: Db, m: { spaceId: string; name: string; profile: VoiceProfile; gender: string | null; userId: string }): Promise<string> {
  const r = await one(
    db,
    q
      .insertInto('cast_members')
      .values({ space_id: m.spaceId, name: m.name, profile: json(m.profile), gender: m.gender, created_by: m.userId })
      .returning('id'),
  );
  return r.id;
}

export async function updateMember(db: Db, id: string, f: { name?: string; profile?: VoiceProfile }): Promise<void> {
  await run(
    db,
    q
      .updateTable('cast_members')
      .set({
        ...(f.name !== undefined ? { name: f.name } : {}),
        ...(f.profile ? { profile: json(f.profile) } : {}),
        updated_at: sql<Date>`now()`,
      })
      .where('id', '=', id),
  );
}

export async function setVoice(db: Db, memberId: string, lang: string, voiceId: string | null): Promise<void> {
  if (voiceId === null) {
    await run(db, q.deleteFrom('cast_voices').where('member_id', '=', memberId).where('lang', '=', lang));
    return;
  }
  await run(
    db,
    q
      .insertInto('cast_voices')
      .values({ member_id: memberId, lang, voice_id: voiceId })
      .onConflict((c) => c.columns(['member_id', 'lang']).doUpdateSet({ voice_id: (e) => e.ref('excluded.voice_id') })),
  );
}

export async function deleteMember(db: Db, id: string): Promise<void> {
  await run(db, q.deleteFrom('cast_members').where('id', '=', id));
}

/** The other member's voices fill the languages `into` has none for; its recognitions now name `into`. */
export async function moveMember(db: Db, from: string, into: string, intoName: string): Promise<void> {
  await run(
    db,
    q
      .insertInto('cast_voices')
      .columns(['member_id', 'lang', 'voice_id'])
      .expression(q.selectFrom('cast_voices').select([sql<string>`${into}::uuid`.as('member_id'), 'lang', 'voice_id']).where('member_id', '=', from))
      .onConflict((c) => c.columns(['member_id', 'lang']).doNothing()),
  );
  await run(db, q.updateTable('cast_recognitions').set({ member_id: into, member_name: intoName }).where('member_id', '=', from));
}

const RECOGNITION = ['project_id', 'speaker_id', 'member_id', 'member_name', 'distance', 'previous_name', 'previous_voice_id', 'undone_at'] as const;

export function recognitionsOf(db: Db, projectId: string): Promise<RecognitionRow[]> {
  return all(db, q.selectFrom('cast_recognitions').select(RECOGNITION).where('project_id', '=', projectId).orderBy('speaker_id'));
}

export async function insertRecognition(
  db: Db,
  r: { projectId: string; speakerId: string; memberId: string; memberName: string; distance: number; previousName: string; previousVoiceId: string | null },
): Promise<void> {
  await run(
    db,
    q
      .insertInto('cast_recognitions')
      .values({
        project_id: r.projectId,
        speaker_id: r.speakerId,
        member_id: r.memberId,
        member_name: r.memberName,
        distance: r.distance,
        previous_name: r.previousName,
        previous_voice_id: r.previousVoiceId,
      })
      .onConflict((c) =>
        c.columns(['project_id', 'speaker_id']).doUpdateSet((e) => ({
          member_id: e.ref('excluded.member_id'),
          member_name: e.ref('excluded.member_name'),
          distance: e.ref('excluded.distance'),
          previous_name: e.ref('excluded.previous_name'),
          previous_voice_id: e.ref('excluded.previous_voice_id'),
          undone_at: null,
        })),
      ),
  );
}

/** The cast member a project's speaker was recognised as (not undone), or null. */
export async function recognisedMember(db: Db, projectId: string, speakerId: string): Promise<string | null> {
  const r = await first(
    db,
    q
      .selectFrom('cast_recognitions')
      .select('member_id')
      .where('project_id', '=', projectId)
      .where('speaker_id', '=', speakerId)
      .where('undone_at', 'is', null),
  );
  return r?.member_id ?? null;
}

export function markUndone(db: Db, projectId: string, speakerId: string): Promise<RecognitionRow | null> {
  return first(
    db,
    q
      .updateTable('cast_recognitions')
      .set({ undone_at: sql<Date>`now()` })
      .where('project_id', '=', projectId)
      .where('speaker_id', '=', speakerId)
      .where('undone_at', 'is', null)
      .returning(RECOGNITION),
  );
}

/** Restores a speaker's name and voice (the undo); its segments are re-voiced on the next generate. */
export async function restoreSpeaker(db: Db, projectId: string, speakerId: string, name: string, voiceId: string | null): Promise<void> {
  await run(db, q.updateTable('speakers').set({ name, voice_id: voiceId, voice_locked: false }).where('project_id', '=', projectId).where('id', '=', speakerId));
  await run(
    db,
    q.updateTable('segments').set({ status: 'updated' }).where('project_id', '=', projectId).where('speaker', '=', speakerId).where('status', '=', 'done'),
  );
}

export async function nameAndVoiceSpeaker(db: Db, projectId: string, speakerId: string, name: string, voiceId: string | null): Promise<void> {
  await run(
    db,
    q
      .updateTable('speakers')
      .set((e) => ({ name, voice_id: voiceId === null ? e.ref('voice_id') : voiceId }))
      .where('project_id', '=', projectId)
      .where('id', '=', speakerId),
  );
}

/** Whether the space's owner is one of the install's staff (superuser). */
export async function spaceOwnerIsStaff(db: Db, spaceId: string): Promise<boolean> {
  const r = await first(db, q.selectFrom('spaces as s').innerJoin('users as u', 'u.id', 's.owner_id').select('u.is_superuser').where('s.id', '=', spaceId));
  return r?.is_superuser === true;
}
