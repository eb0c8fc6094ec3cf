import * as v from 'valibot';
import { SPACE_COLORS, SPACE_NAME_MAX, type SpaceColor } from '../constants';
import { PLAN_TIERS } from '../features';
import { TEXT } from '../errors';
import { Email } from './common';

export const Credits = v.object({
  minutes: v.object({ total: v.number(), used: v.number() }),
  video: v.object({ total: v.number(), used: v.number() }),
  lipsync_free_minutes: v.number(),
});
export type Credits = v.InferOutput<typeof Credits>;
export const SpaceMember = v.object({ user_id: v.string(), email: v.string(), role: v.picklist(['owner', 'editor']) });
export const SpaceInvite = v.object({ id: v.string(), email: v.string() });
/**
 * Loudness of a Teamspace's dubs: the source's own (integrated loudness and range kept), or a fixed target with the
 * source's range kept: web -14 or -16 LUFS, broadcast -23 LUFS (EBU R128). True peak at most -1 dBTP always.
 */
export const LOUDNESS_TARGETS = ['source', 'web_-14', 'web_-16', 'broadcast_-23'] as const;
export type LoudnessTargetKey = (typeof LOUDNESS_TARGETS)[number];

/**
 * Limits of a Teamspace's subtitles (SRT, VTT, burned; issue 29). Defaults: common subtitle guidelines.
 * Characters per second count spaces, not line breaks.
 */
export const SUBTITLE_LIMITS_DEFAULT = {
  max_line_chars: 42,
  max_lines: 2,
  target_cps: 17,
  max_cps: 20,
  min_duration_sec: 0.83,
  max_duration_sec: 7,
} as const;
const bounded = (min: number, max: number, int = false) =>
  int ? v.pipe(v.number(), v.integer(), v.minValue(min), v.maxValue(max)) : v.pipe(v.number(), v.minValue(min), v.maxValue(max));
export const SubtitleLimits = v.object({
  max_line_chars: v.number(),
  max_lines: v.number(),
  target_cps: v.number(),
  max_cps: v.number(),
  min_duration_sec: v.number(),
  max_duration_sec: v.number(),
});
export type SubtitleLimits = v.InferOutput<typeof SubtitleLimits>;
/** A change of some limits (the others are kept); null: back to the defaults. */
export const SubtitleLimitsPatch = v.nullable(
  v.pipe(
    v.strictObject({
      max_line_chars: v.optional(bounded(16, 80, true)),
      max_lines: v.optional(bounded(1, 3, true)),
      target_cps: v.optional(bounded(5, 40)),
      max_cps: v.optional(bounded(5, 40)),
      min_duration_sec: v.optional(bounded(0.2, 5)),
      max_duration_sec: v.optional(bounded(1, 20)),
    }),
    v.check((o) => Object.keys(o).length > 0, 'Nothing to update'),
  ),
);

export const Space = v.object({
  id: v.string(),
  name: v.string(),
  color: v.picklist(SPACE_COLORS),
  owner_id: v.string(),
  is_active: v.boolean(),
  is_default: v.boolean(),
  members: v.array(SpaceMember),
  invites: v.array(SpaceInvite),
  credits: Credits,
  loudness_target: v.picklist(LOUDNESS_TARGETS),
  subtitle_limits: SubtitleLimits,
  /** The shop whose Teamspace this is (the embedded app, issue 32); null for any other Teamspace. */
  shop_domain: v.optional(v.nullable(v.string())),
});
export type Space = v.InferOutput<typeof Space>;
/** After deleting or leaving a Teamspace: where the user goes. */
export const DefaultSpaceAnswer = v.object({ default_space_id: v.string() });
// A missing key reads like an empty field: 'Field is required' (spec section 5), not a schema message.
export const SpaceName = v.pipe(v.optional(v.string(TEXT.fieldRequired), ''), v.trim(), v.nonEmpty(TEXT.fieldRequired), v.maxLength(SPACE_NAME_MAX, `Name must be at most ${SPACE_NAME_MAX} characters`));
export const SpaceColorSchema = v.pipe(
  v.optional(v.string(TEXT.fieldRequired), ''),
  v.check((c) => (SPACE_COLORS as readonly string[]).includes(c), TEXT.fieldRequired),
  v.transform((c) => c as SpaceColor),
);
export const CreateSpaceRequest = v.object({
  data: v.object({ name: SpaceName, color: SpaceColorSchema }),
  emails: v.optional(v.pipe(v.array(Email), v.maxLength(100)), []),
});
export const UpdateSpaceRequest = v.pipe(
  v.object({
    name: v.optional(SpaceName),
    color: v.optional(SpaceColorSchema),
    loudness_target: v.optional(v.picklist(LOUDNESS_TARGETS)),
    subtitle_limits: v.optional(SubtitleLimitsPatch),
  }),
  v.check((o) => o.name !== undefined || o.color !== undefined || o.loudness_target !== undefined || o.subtitle_limits !== undefined, 'Nothing to update'),
);
export const InviteRequest = v.object({ emails: v.pipe(v.array(Email), v.minLength(1), v.maxLength(100)) });
/** POST /api/space/{id}/invite_link: a link for one pending invite. */
export const InviteLinkRequest = v.object({ invite_id: v.string() });
/**
 * DELETE /api/space/{id}/invite/remove and /members/remove: the id in a JSON body (as the spec's client sends it),
 * when it is not given as the ?invite_id= / ?member_id= query.
 */
export const RemoveInviteRequest = v.object({ invite_id: v.string() });
export const RemoveMemberRequest = v.object({ member_id: v.string() });
/** The link's token (shown this once) and when it stops working. */
export const InviteLink = v.object({ token: v.string(), expires_at: v.string() });
/** POST /api/space/join: the token of an invite link. */
export const JoinRequest = v.object({ token: v.string() });
export const JoinAnswer = v.object({ space_id: v.string() });

/** What the caller may do with Teamspaces under their plan: GET /api/space/limits (the client mirrors the server's rules with it). */
export const SpaceLimits = v.object({
  plan: v.picklist(PLAN_TIERS),
  subscription_active: v.boolean(),
  spaces_enabled: v.boolean(),
  spaces_limit: v.nullable(v.number()),
  user_limit: v.nullable(v.number()),
  owned_spaces: v.number(),
  can_create: v.boolean(),
});
export type SpaceLimits = v.InferOutput<typeof SpaceLimits>;

/** GET /api/space/{id}/usage?page=: the space's minute history (the ledger), newest first, a page at a time. */
export const UsageEntry = v.object({
  id: v.string(),
  /** grant (trial, plan), purchase, refill, debit (a dub), refund, expire. */
  kind: v.picklist(['grant', 'purchase', 'refill', 'debit', 'refund', 'expire']),
  /** Signed: spent minutes are negative. */
  minutes: v.number(),
  project_id: v.nullable(v.string()),
  project_name: v.nullable(v.string()),
  note: v.nullable(v.string()),
  created_at: v.string(),
});
export const UsagePage = v.object({
  entries: v.array(UsageEntry),
  page: v.number(),
  pages: v.number(),
  total: v.number(),
});
export type UsagePage = v.InferOutput<typeof UsagePage>;
