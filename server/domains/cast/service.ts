// The cast of a Teamspace (issue 31, part 5): the rules. A member is a person kept from a project's speaker ("Keep
// in cast": the speaker's measured voice profile and the voice chosen for them in the project's language). The
// voice_suggest stage recognises a new project's speakers among the members (./match.ts) and names and voices them
// as the cast says; the editor can undo that. Plan: the Voice Clone Library's feature (voice_presets), the space
// owner's plan, asked here like the voice presets' own calls (server/domains/voices/service.ts); the routes sit
// under /api/space/{id}, so no query-scoped gate of server/app/gates.ts applies.
import type * as v from 'valibot';
import type { AddCastMemberRequest, CastList, CastMember, CastRecognition, CastUndoRequest, UpdateCastMemberRequest } from '../../../contract/schemas/cast';
import type { AppDeps } from '../../deps';
import type { Db } from '../../db/index';
import { decide, entitlementsFor, featureRefused, staffEntitlements } from '../billing/entitlements';
import { conflict, notFound, DomainError } from '../../errors';
import { findProject, speakersOf, type SpeakerRow } from '../projects/repository';
import { isUuid, spaceAccess } from '../spaces/guard';
import type { UserRow } from '../../caller';
import { CAST_MATCH_THRESHOLD, matchCast, mergeProfiles } from './match';
import * as repo from './repository';

type Deps = Pick<AppDeps, 'db'>;
const MEMBER_NOT_FOUND = 'Cast member not found';

const iso = (d: Date | string) => new Date(d).toISOString();
function memberJson(m: repo.MemberRow): CastMember {
  return { id: m.id, space_id: m.space_id, name: m.name, gender: m.gender, profile: m.profile, voices: m.voices ?? {}, created_at: iso(m.created_at), updated_at: iso(m.updated_at) };
}

/** The space the caller may use the cast of (member of it, its owner's plan includes the feature). Routes call it
 *  before reading the body, so a stranger is refused (403/404) before any validation answer. */
export async function castSpace(deps: Deps, user: UserRow, spaceId: string): Promise<string> {
  const space = await spaceAccess(deps.db, user, spaceId);
  let e = await entitlementsFor(deps.db, { spaceId: space.id });
  if (user.is_superuser) e = staffEntitlements(e);
  const d = decide(e, 'voice_presets');
  if (!d.allowed) throw featureRefused(d.refusal!);
  return space.id;
}

async function member(db: Db, spaceId: string, id: string, o: { forUpdate?: boolean } = {}): Promise<repo.MemberRow> {
  const m = isUuid(id) ? await repo.findMember(db, spaceId, id, o) : null;
  if (!m) throw notFound(MEMBER_NOT_FOUND);
  return m;
}

/** A project of the space and one of its speakers. */
async function projectSpeaker(db: Db, spaceId: string, projectId: string, speakerId: string) {
  const project = await findProject(db, projectId);
  if (!project || project.space_id !== spaceId) throw notFound('Project not found');
  const speaker = (await speakersOf(db, project.id)).find((s) => s.id === speakerId);
  if (!speaker) throw notFound(`Speaker not found: ${speakerId}`);
  return { project, speaker };
}

export async function listCast(deps: Deps, user: UserRow, spaceId: string): Promise<CastList> {
  const id = await castSpace(deps, user, spaceId);
  return { members: (await repo.listMembers(deps.db, id)).map(memberJson), threshold: CAST_MATCH_THRESHOLD };
}

export async function addMember(deps: Deps, user: UserRow, spaceId: string, body: v.InferOutput<typeof AddCastMemberRequest>): Promise<CastMember> {
  const sid = await castSpace(deps, user, spaceId);
  const { project, speaker } = await projectSpeaker(deps.db, sid, body.project_id, body.speaker_id);
  if (!speaker.profile) throw conflict('This speaker\'s voice is not measured yet: wait until the speakers are known');
  return deps.db.tx(async (t) => {
    const id = await repo.insertMember(t, {
      spaceId: sid, name: body.name ?? speaker.name, profile: speaker.profile!, gender: speaker.gender ?? speaker.profile!.gender, userId: user.id,
    });
    if (speaker.voice_id) await repo.setVoice(t, id, project.dst_lang.toLowerCase(), speaker.voice_id);
    return memberJson((await repo.findMember(t, sid, id))!);
  });
}

export async function updateMember(deps: Deps, user: UserRow, spaceId: string, id: string, body: v.InferOutput<typeof UpdateCastMemberRequest>): Promise<CastMember> {
  const sid = await castSpace(deps, user, spaceId);
  return deps.db.tx(async (t) => {
    const m = await member(t, sid, id, { forUpdate: true });
    if (body.name !== undefined) await repo.updateMember(t, m.id, { name: body.name });
    for (const [lang, voice] of Object.entries(body.voices ?? {})) await repo.setVoice(t, m.id, lang, voice);
    return memberJson((await repo.findMember(t, sid, m.id))!);
  });
}

export async function removeMember(deps: Deps, user: UserRow, spaceId: string, id: string): Promise<{ id: string; status: 'deleted' }> {
  const sid = await castSpace(deps, user, spaceId);
  const m = await member(deps.db, sid, id);
  await repo.deleteMember(deps.db, m.id);
  return { id: m.id, status: 'deleted' };
}

/** The same person kept twice: `otherId` goes into `id` (profiles joined by their seconds, `id`'s voices win). */
export async function mergeMembers(deps: Deps, user: UserRow, spaceId: string, id: string, otherId: string): Promise<CastMember> {
  const sid = await castSpace(deps, user, spaceId);
  if (id === otherId) throw new DomainError('invalid', [{ loc: ['body', 'member_id'], msg: 'A member cannot be merged into itself', type: 'value_error' }]);
  return deps.db.tx(async (t) => {
    const into = await member(t, sid, id, { forUpdate: true });
    const other = await member(t, sid, otherId, { forUpdate: true });
    await repo.updateMember(t, into.id, { profile: mergeProfiles(into.profile, other.profile) });
    await repo.moveMember(t, other.id, into.id, into.name);
    await repo.deleteMember(t, other.id);
    return memberJson((await repo.findMember(t, sid, into.id))!);
  });
}

/**
 * A voice a person chose in the editor for a speaker recognised as a cast member becomes that member's voice for
 * the project's language: the next project they are recognised in is voiced the same way ("set the voice once per
 * speaker"). Runs in the transaction of the change. Returns the member's id when the cast followed.
 */
export async function castVoiceFollows(db: Db, project: { id: string; dst_lang: string }, speakerId: string, voiceId: string): Promise<string | null> {
  const memberId = await repo.recognisedMember(db, project.id, speakerId);
  if (memberId) await repo.setVoice(db, memberId, project.dst_lang.toLowerCase(), voiceId);
  return memberId;
}

// ------------------------------------------------------------------ recognition (the voice_suggest stage)

export interface CastPick {
  speakerId: string;
  memberId: string;
  name: string;
  voiceId: string | null;
  distance: number;
}

/**
 * The project's speakers recognised among its space's cast (when the plan includes it): the member's name and
 * the member's voice for the project's language when `usable` says the project may use it. Speakers a person
 * locked to a voice, and recognitions undone in the editor, are left alone.
 */
export async function recogniseCast(
  deps: Deps,
  project: { id: string; space_id: string; dst_lang: string },
  speakers: readonly SpeakerRow[],
  usable: (voiceId: string) => Promise<boolean>,
): Promise<CastPick[]> {
  let e = await entitlementsFor(deps.db, { spaceId: project.space_id });
  // The install's staff use every feature in their own spaces, as on the cast's own page (castSpace).
  if (await repo.spaceOwnerIsStaff(deps.db, project.space_id)) e = staffEntitlements(e);
  const d = decide(e, 'voice_presets');
  if (!d.allowed) return [];
  const members = await repo.listMembers(deps.db, project.space_id);
  if (members.length === 0) return [];
  const undone = new Set((await repo.recognitionsOf(deps.db, project.id)).filter((r) => r.undone_at).map((r) => r.speaker_id));
  const candidates = speakers.filter((s) => !s.voice_locked && !undone.has(s.id));
  const matches = matchCast(candidates, members);
  const out: CastPick[] = [];
  for (const [speakerId, m] of matches) {
    const mem = members.find((x) => x.id === m.memberId)!;
    const voice = mem.voices?.[project.dst_lang.toLowerCase()] ?? null;
    out.push({ speakerId, memberId: mem.id, name: mem.name, voiceId: voice && (await usable(voice)) ? voice : null, distance: m.distance });
  }
  return out;
}

/** Writes the picks (in the stage's transaction): name and voice, and what the speaker had, for the undo. */
export async function applyCast(db: Db, projectId: string, picks: readonly CastPick[], fallback: ReadonlyMap<string, string>): Promise<void> {
  if (picks.length === 0) return;
  const before = new Map((await speakersOf(db, projectId)).map((s) => [s.id, s]));
  const previous = new Map((await repo.recognitionsOf(db, projectId)).map((r) => [r.speaker_id, r]));
  for (const p of picks) {
    const s = before.get(p.speakerId);
    if (!s) continue;
    const prior = previous.get(p.speakerId);
    // a second run keeps what the speaker had before the first recognition
    const previousName = prior && !prior.undone_at ? prior.previous_name : s.name;
    const previousVoice = prior && !prior.undone_at ? prior.previous_voice_id : (fallback.get(s.id) ?? s.voice_id);
    await repo.insertRecognition(db, {
      projectId, speakerId: s.id, memberId: p.memberId, memberName: p.name, distance: p.distance, previousName, previousVoiceId: previousVoice,
    });
    await repo.nameAndVoiceSpeaker(db, projectId, s.id, p.name, p.voiceId);
  }
}

// ------------------------------------------------------------------ the editor

async function projectOfSpace(deps: Deps, user: UserRow, spaceId: string, projectId: string) {
  const sid = await castSpace(deps, user, spaceId);
  const project = await findProject(deps.db, projectId);
  if (!project || project.space_id !== sid) throw notFound('Project not found');
  return project;
}

export async function recognitions(deps: Deps, user: UserRow, spaceId: string, projectId: string): Promise<CastRecognition[]> {
  const project = await projectOfSpace(deps, user, spaceId, projectId);
  return (await repo.recognitionsOf(deps.db, project.id))
    .filter((r) => !r.undone_at)
    .map((r) => ({ project_id: r.project_id, speaker_id: r.speaker_id, member_id: r.member_id, member_name: r.member_name, distance: r.distance }));
}

/** "Recognised as X from your cast — Undo": the speaker gets back the name and voice it had. */
export async function undoRecognition(deps: Deps, user: UserRow, spaceId: string, body: v.InferOutput<typeof CastUndoRequest>): Promise<{ speaker_id: string; name: string; voice_id: string | null }> {
  const project = await projectOfSpace(deps, user, spaceId, body.project_id);
  return deps.db.tx(async (t) => {
    const r = await repo.markUndone(t, project.id, body.speaker_id);
    if (!r) throw notFound('This speaker was not recognised from the cast');
    await repo.restoreSpeaker(t, project.id, r.speaker_id, r.previous_name, r.previous_voice_id);
    return { speaker_id: r.speaker_id, name: r.previous_name, voice_id: r.previous_voice_id };
  });
}
