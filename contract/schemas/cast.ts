// The cast of a Teamspace (issue 31, part 5): /api/space/{id}/cast. Shared by the browser and the server.
import * as v from 'valibot';
import { VoiceProfile } from './voice-preset';

const Name = v.pipe(
  v.string('name must be a string'),
  v.trim(),
  v.minLength(1, 'The name cannot be empty'),
  v.maxLength(80, 'The name is at most 80 characters'),
);
const Id = (name: string) => v.pipe(v.string(`${name} must be a string`), v.uuid(`${name} must be an id`));
const Lang = v.pipe(v.string(), v.trim(), v.toLowerCase(), v.regex(/^[a-z]{2,3}([-_][a-z0-9]{2,8})?$/, 'The language must be a code such as "en" or "es"'));

export const CastMember = v.object({
  id: v.string(),
  space_id: v.string(),
  name: v.string(),
  gender: v.nullable(v.string()),
  profile: VoiceProfile,
  /** The voice chosen for this person per target language (language code -> voice id). */
  voices: v.record(v.string(), v.string()),
  created_at: v.string(),
  updated_at: v.string(),
});
export type CastMember = v.InferOutput<typeof CastMember>;

export const CastList = v.object({
  members: v.array(CastMember),
  /** Profile distance under which a new project's speaker is recognised as a member. */
  threshold: v.number(),
});
export type CastList = v.InferOutput<typeof CastList>;

/** "Keep in cast": a project's speaker (its measured voice and its voice in the project's language). */
export const AddCastMemberRequest = v.object({
  project_id: Id('project_id'),
  speaker_id: v.pipe(v.string('speaker_id must be a string'), v.minLength(1, 'speaker_id cannot be empty'), v.maxLength(100)),
  name: v.optional(Name),
});
export type AddCastMemberRequest = v.InferInput<typeof AddCastMemberRequest>;

export const UpdateCastMemberRequest = v.object({
  name: v.optional(Name),
  /** Voices to set (a voice id) or forget (null) per language. */
  voices: v.optional(v.record(Lang, v.nullable(v.pipe(v.string(), v.minLength(1), v.maxLength(200))))),
});
export type UpdateCastMemberRequest = v.InferInput<typeof UpdateCastMemberRequest>;

/** Merge another member (the same person kept twice) into this one: it goes, its recordings' voice stays. */
export const MergeCastMemberRequest = v.object({ member_id: Id('member_id') });
export type MergeCastMemberRequest = v.InferInput<typeof MergeCastMemberRequest>;

export const CastRecognition = v.object({
  project_id: v.string(),
  speaker_id: v.string(),
  member_id: v.nullable(v.string()),
  member_name: v.string(),
  distance: v.number(),
});
export type CastRecognition = v.InferOutput<typeof CastRecognition>;
export const CastRecognitionList = v.array(CastRecognition);

export const CastUndoRequest = v.object({
  project_id: Id('project_id'),
  speaker_id: v.pipe(v.string('speaker_id must be a string'), v.minLength(1), v.maxLength(100)),
});
export type CastUndoRequest = v.InferInput<typeof CastUndoRequest>;

/** The answer of an undone recognition: the speaker's name and voice given back. */
export const CastUndoAnswer = v.object({
  speaker_id: v.string(),
  name: v.string(),
  voice_id: v.nullable(v.string()),
});

