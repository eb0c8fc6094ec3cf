// Support chat, surveys, feedback lists, feature groups, e-mail change and single sign-on (issue 13).
import * as v from 'valibot';
import { TEXT } from '../errors';
import { Email } from './common';

const Text = (max: number) => v.pipe(v.string(), v.trim(), v.minLength(1, 'Field is required'), v.maxLength(max));
const Uuid = v.pipe(v.string(), v.uuid('Invalid id'));

// ------------------------------------------------------------------ support chat
export const SupportMessageRequest = v.object({
  body: Text(5000),
  /** The in-app path the user was on. */
  page: v.optional(v.nullable(v.pipe(v.string(), v.maxLength(500)))),
  /** The project open at the time (must be one the user may see). */
  project_id: v.optional(v.nullable(Uuid)),
});
export const SupportReplyRequest = v.object({ body: Text(5000) });
export const SupportMessage = v.object({
  id: v.string(),
  body: v.string(),
  from_staff: v.boolean(),
  author_email: v.nullable(v.string()),
  page: v.nullable(v.string()),
  project_id: v.nullable(v.string()),
  project_name: v.nullable(v.string()),
  created_at: v.string(),
});
export type SupportMessage = v.InferOutput<typeof SupportMessage>;
export const SupportThread = v.object({
  id: v.string(),
  user_id: v.string(),
  user_email: v.string(),
  status: v.picklist(['open', 'answered']),
  last_message_at: v.string(),
  /** Staff answers the user has not seen (user side) / user messages staff have not seen (inbox). */
  unread: v.number(),
  last_message: v.nullable(v.string()),
});
export type SupportThread = v.InferOutput<typeof SupportThread>;
export const SupportConversation = v.object({ thread: v.nullable(SupportThread), messages: v.array(SupportMessage) });
export type SupportConversation = v.InferOutput<typeof SupportConversation>;

// ------------------------------------------------------------------ surveys
export const SurveyAddRequest = v.object({
  survey_id: Text(100),
  answers: v.pipe(v.array(v.pipe(v.string(), v.maxLength(500))), v.minLength(1, 'Choose at least one answer'), v.maxLength(50)),
  comment: v.optional(v.pipe(v.string(), v.maxLength(2000))),
});
export const SurveyRejectRequest = v.object({ survey_id: Text(100) });
export const SurveyActiveRequest = v.object({ active: v.boolean() });
/** POST /api/survey/add and /api/survey/reject: the answer (or the dismissal) is stored. */
export const SurveyRecorded = v.object({ ok: v.literal(true) });

// ------------------------------------------------------------------ admin lists
const AdminDate = v.pipe(v.string(), v.check((s) => !Number.isNaN(Date.parse(s)), 'Invalid date'));
export const AdminRecordsQuery = v.object({
  email: v.optional(v.pipe(v.string(), v.trim(), v.maxLength(254))),
  date_gt: v.optional(AdminDate),
  date_lt: v.optional(AdminDate),
  limit: v.optional(v.pipe(v.string(), v.regex(/^\d{1,6}$/, 'Invalid limit'), v.transform(Number), v.minValue(1), v.maxValue(1000))),
});
export const AdminFeedback = v.object({
  id: v.string(),
  email: v.nullable(v.string()),
  project_id: v.nullable(v.string()),
  project_name: v.nullable(v.string()),
  project_status: v.nullable(v.string()),
  comment: v.string(),
  options: v.array(v.string()),
  created_at: v.string(),
});
export type AdminFeedback = v.InferOutput<typeof AdminFeedback>;
export const AdminSurveyAnswer = v.object({
  id: v.string(),
  email: v.string(),
  survey_id: v.string(),
  survey_title: v.string(),
  status: v.picklist(['answered', 'rejected']),
  answers: v.array(v.string()),
  comment: v.string(),
  created_at: v.string(),
});
export type AdminSurveyAnswer = v.InferOutput<typeof AdminSurveyAnswer>;
/** A survey as staff switch it on or off (GET /api/admin/survey/surveys). */
export const AdminSurvey = v.object({
  id: v.string(),
  title: v.string(),
  questions: v.array(v.string()),
  active: v.boolean(),
});


// ------------------------------------------------------------------ feature groups (A/B)
export const FeatureGroupRequest = v.object({
  name: v.pipe(v.string(), v.regex(/^[a-z0-9_]{1,60}$/, 'Invalid group name')),
  option: v.object({ id: v.pipe(v.string(), v.regex(/^[A-Za-z0-9_-]{1,60}$/, 'Invalid option id')) }),
});

// ------------------------------------------------------------------ e-mail change
/** A new sign-in e-mail, typed twice (equal ignoring case); the change waits for the link sent to it. */
export const EmailChangeRequest = v.pipe(
  v.object({ email: Email, confirm_email: v.pipe(v.string(), v.maxLength(254)) }),
  v.forward(
    v.check((o) => o.email.toLowerCase() === o.confirm_email.trim().toLowerCase(), TEXT.emailsDontMatch),
    ['confirm_email'],
  ),
);
export const EmailChangeConfirmRequest = v.object({ token: v.pipe(v.string(), v.minLength(1, 'Field is required'), v.maxLength(200)) });
/** The e-mail change waiting for its confirmation (null fields: none). `sent`: the link went out by e-mail. */
export const EmailChange = v.object({
  pending_email: v.nullable(v.string()),
  expires_at: v.nullable(v.string()),
  sent: v.boolean(),
});
export type EmailChange = v.InferOutput<typeof EmailChange>;

// ------------------------------------------------------------------ demo project
export const DemoRequest = v.object({ dst_lang: v.pipe(v.string(), v.trim(), v.minLength(1, 'Field is required'), v.maxLength(20)) });
/** One language the demo can be opened in, with the user's demo project in it once made. */
export const DemoCover = v.object({
  dst_lang: v.string(),
  label: v.string(),
  country_code: v.string(),
  cover_url: v.string(),
  project_id: v.nullable(v.string()),
  status: v.nullable(v.string()),
});
export type DemoCover = v.InferOutput<typeof DemoCover>;
export const DemoCovers = v.object({
  title: v.string(),
  src_lang: v.string(),
  duration: v.number(),
  cover_url: v.string(),
  languages: v.array(DemoCover),
});
export type DemoCovers = v.InferOutput<typeof DemoCovers>;

/** POST /api/admin/support/threads/{id}/messages: the conversation with the answer, and whether it was e-mailed. */
export const SupportReplyAnswer = v.object({ ...SupportConversation.entries, emailed: v.boolean() });
