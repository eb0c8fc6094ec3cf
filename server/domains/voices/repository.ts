// All SQL of the voice presets (voice_presets table) and of the users' voice tutorial flags.
import type { VoicePresetStatus, VoiceProfile } from '../../../contract/schemas/voice-preset';
import type { Db } from '../../db/index';
import { all, first, json, one, q, run, sql } from '../../db/sql';
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

const COLS = [
  'id', 'space_id', 'created_by', 'label', 'similarity_boost', 'stability', 'is_temporary', 'project_id', 'speaker_id', 'status', 'error',
  'engine', 'engine_voice_id', 'profile', 'gender', 'sample_key', 'sample_duration', 'created_at', 'updated_at',
] as const;

function presets() {
  return q.selectFrom('voice_presets').select(COLS).$narrowType<{ status: VoicePresetStatus; profile: VoiceProfile | null }>();
}

export function findPreset(db: Db, id: string, o: { forUpdate?: boolean } = {}): Promise<PresetRow | null> {
  const query = presets().where('id', '=', id);
  return first(db, o.forUpdate ? query.forUpdate() : query);
}

export function findPresets(db: Db, ids: readonly string[]): Promise<PresetRow[]> {
  if (ids.length === 0) return Promise.resolve([]);
  return all(db, presets().where(sql<boolean>`id::text IN (SELECT jsonb_array_elements_text(${json(ids)}))`));
}

/** The library of a space (newest first); instant presets only when asked. */
export function listPresets(db: Db, spaceId: string, o: { temporary?: boolean } = {}): Promise<PresetRow[]> {
  const query = presets().where('space_id', '=', spaceId);
  return all(db, (o.temporary ? query : query.where(sql<boolean>`NOT is_temporary`)).orderBy('created_at', 'desc').orderBy('id', 'desc'));
}

/** The instant presets of a project's speakers. */
export function projectInstantPresets(db: Db, projectId: string): Promise<PresetRow[]> {
  return all(db, presets().where('project_id', '=', projectId).where('is_temporary', '=', true).orderBy('created_at'));
}

/** Library clones of a space (what the plan's limit counts), locked while counted. */
export async function countClones(db: Db, spaceId: string): Promise<number> {
  const r = await one(
    db,
    q.selectFrom('voice_presets').select(sql<number>`count(*)::int`.as('n')).where('space_id', '=', spaceId).where(sql<boolean>`NOT is_temporary`),
  );
  return r.n;
}

/** Serialises clone creation of one space (the limit check and the insert happen under it). */
export async function lockSpaceForClones(db: Db, spaceId: string): Promise<void> {
  await run(db, q.selectFrom('spaces').select('id').where('id', '=', spaceId).forUpdate());
}

export function insertPreset(
  db: Db,
  p: {
    id: string; spaceId: string; userId: string; label: string; similarityBoost: number; stability: number; isTemporary: boolean;
    projectId: string | null; speakerId: string | null; engine: string; profile: VoiceProfile; sampleKey: string; sampleDuration: number;
  },
): Promise<PresetRow> {
  return one(
    db,
    q
      .insertInto('voice_presets')
      .values({
        id: p.id,
        space_id: p.spaceId,
        created_by: p.userId,
        label: p.label,
        similarity_boost: p.similarityBoost,
        stability: p.stability,
        is_temporary: p.isTemporary,
        project_id: p.projectId,
        speaker_id: p.speakerId,
        engine: p.engine,
        profile: json(p.profile),
        gender: p.profile.gender,
        sample_key: p.sampleKey,
        sample_duration: p.sampleDuration,
      })
      .returning(COLS)
      .$narrowType<{ status: VoicePresetStatus; profile: VoiceProfile | null }>(),
  );
}

/** Fields left undefined stay as they are. */
export function updatePreset(
  db: Db,
  id: string,
  f: { label?: string; similarityBoost?: number; stability?: number },
): Promise<PresetRow> {
  return one(
    db,
    q
      .updateTable('voice_presets')
      .set({
        ...(f.label !== undefined ? { label: f.label } : {}),
        ...(f.similarityBoost !== undefined ? { similarity_boost: f.similarityBoost } : {}),
        ...(f.stability !== undefined ? { stability: f.stability } : {}),
        updated_at: sql<Date>`now()`,
      })
      .where('id', '=', id)
      .returning(COLS)
      .$narrowType<{ status: VoicePresetStatus; profile: VoiceProfile | null }>(),
  );
}

export async function finishPreset(db: Db, id: string, r: { status: 'done' | 'error'; error?: string | null; engineVoiceId?: string | null }): Promise<void> {
  await run(
    db,
    q
      .updateTable('voice_presets')
      .set({
        status: r.status,
        error: storableError(r.error),
        ...(r.engineVoiceId != null ? { engine_voice_id: r.engineVoiceId } : {}),
        updated_at: sql<Date>`now()`,
      })
      .where('id', '=', id)
      .where('status', '=', 'processing'),
  );
}

/** Presets left processing by a process that stopped (older than `seconds`) are failed. */
export async function failStalePresets(db: Db, seconds: number, message: string): Promise<void> {
  await run(
    db,
    q
      .updateTable('voice_presets')
      .set({ status: 'error', error: message, updated_at: sql<Date>`now()` })
      .where('status', '=', 'processing')
      .where('updated_at', '<', sql<Date>`now() - (${String(seconds)}::text || ' seconds')::interval`),
  );
}

export async function deletePreset(db: Db, id: string): Promise<void> {
  await run(db, q.deleteFrom('voice_presets').where('id', '=', id));
}

/** Speakers of every project that use this preset as their voice. */
export function speakersUsing(db: Db, voiceId: string, projectId?: string): Promise<Array<{ project_id: string; id: string }>> {
  const query = q.selectFrom('speakers').select(['project_id', 'id']).where('voice_id', '=', voiceId);
  return all(db, projectId === undefined ? query : query.where('project_id', '=', projectId));
}

/** The speaker's voiced segments are marked changed (the next generate re-voices them). */
export async function markSpeakerSegmentsUpdated(db: Db, projectId: string, speakerId: string): Promise<void> {
  await run(
    db,
    q.updateTable('segments').set({ status: 'updated' }).where('project_id', '=', projectId).where('speaker', '=', speakerId).where('status', '=', 'done'),
  );
}

/** Engine voice ids that belong to presets (cloned voices). */
export async function clonedEngineVoiceIds(db: Db): Promise<string[]> {
  const rows = await all(
    db,
    q.selectFrom('voice_presets').select('engine_voice_id').where('engine_voice_id', 'is not', null).$narrowType<{ engine_voice_id: string }>(),
  );
  return rows.map((r) => r.engine_voice_id);
}

// ------------------------------------------------------------------ tutorial flags

export type TutorialFlag = 'voice_preset_tutorial_displayed' | 'instant_voice_clone_tooltip_displayed';

export function setTutorialFlag(db: Db, userId: string, flag: TutorialFlag): Promise<{ voice_preset_tutorial_displayed: boolean; instant_voice_clone_tooltip_displayed: boolean }> {
  return one(
    db,
    q
      .updateTable('users')
      .set(flag === 'voice_preset_tutorial_displayed' ? { voice_preset_tutorial_displayed: true } : { instant_voice_clone_tooltip_displayed: true })
      .where('id', '=', userId)
      .returning(['voice_preset_tutorial_displayed', 'instant_voice_clone_tooltip_displayed']),
  );
}

export function tutorialFlags(db: Db, userId: string): Promise<{ voice_preset_tutorial_displayed: boolean; instant_voice_clone_tooltip_displayed: boolean }> {
  return one(db, q.selectFrom('users').select(['voice_preset_tutorial_displayed', 'instant_voice_clone_tooltip_displayed']).where('id', '=', userId));
}
