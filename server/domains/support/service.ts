// Support chat rules: a user writes to support from inside the app (the page and the project attached, the
// project only when the user may see it); staff (superusers) read every thread in the admin inbox and answer;
// the user reads only their own thread. Answers are e-mailed to the user when SMTP is configured, and new
// user messages to the support address.
import type { SupportConversation, SupportMessage, SupportThread } from '../../../contract/schemas/onboarding';
import type { AppDeps } from '../../deps';
import { mailEnabled, sendMail } from '../../mailer';
import { notFound } from '../../errors';
import { findProject } from '../projects/repository';
import { isUuid, spaceAccess } from '../spaces/guard';
import type { UserRow } from '../../caller';
import * as repo from './repository';

export const TEXTS = {
  threadNotFound: 'Conversation not found',
  projectNotFound: 'Project not found',
} as const;

const iso = (d: Date | string) => new Date(d).toISOString();

function threadView(t: repo.ThreadRow, side: 'user' | 'staff'): SupportThread {
  return {
    id: t.id,
    user_id: t.user_id,
    user_email: t.user_email,
    status: t.status,
    last_message_at: iso(t.last_message_at),
    unread: Number(side === 'user' ? t.unread_user : t.unread_staff),
    last_message: t.last_message,
  };
}

function messageView(m: repo.MessageRow): SupportMessage {
  return {
    id: m.id,
    body: m.body,
    from_staff: m.from_staff,
    author_email: m.author_email,
    page: m.page,
    project_id: m.project_id,
    project_name: m.project_name,
    created_at: iso(m.created_at),
  };
}

/** The caller's own conversation (empty before the first message); `read` marks staff answers as seen. */
export async function ownConversation(deps: AppDeps, user: UserRow, read: boolean): Promise<SupportConversation> {
  const t = await repo.threadOfUser(deps.db, user.id);
  if (!t) return { thread: null, messages: [] };
  const messages = (await repo.messagesOf(deps.db, t.id)).map(messageView);
  if (read && Number(t.unread_user) > 0) await repo.markRead(deps.db, t.id, 'user');
  return { thread: threadView(t, 'user'), messages };
}

function appLink(deps: AppDeps, path: string): string {
  return `${(deps.config.publicUrl ?? '').replace(/\/+$/, '')}${path}`;
}

/** A message from the user; the project must be one they may open (else 404, nothing stored). */
export async function writeToSupport(
  deps: AppDeps,
  user: UserRow,
  p: { body: string; page?: string | null; project_id?: string | null },
): Promise<SupportConversation> {
  let projectName: string | null = null;
  if (p.project_id) {
    const project = isUuid(p.project_id) ? await findProject(deps.db, p.project_id) : null;
    if (!project) throw notFound(TEXTS.projectNotFound);
    try {
      await spaceAccess(deps.db, user, project.space_id);
    } catch {
      throw notFound(TEXTS.projectNotFound);
    }
    projectName = project.name;
  }
  const page = p.page?.trim() ? p.page.trim() : null;
  await deps.db.tx(async (t) => {
    const threadId = await repo.ensureThread(t, user.id);
    await repo.insertMessage(t, { threadId, authorId: user.id, fromStaff: false, body: p.body, page, projectId: p.project_id ?? null });
  });
  if (mailEnabled(deps.config)) {
    const lines = [`${user.email} wrote to support:`, '', p.body, ''];
    if (page) lines.push(`Page: ${page}`);
    if (projectName) lines.push(`Project: ${projectName} (${p.project_id})`);
    lines.push('', `Answer in the inbox: ${appLink(deps, '/admin/support')}`);
    try {
      await sendMail(deps, { to: deps.config.support.email, subject: `Support: ${user.email}`, text: lines.join('\n'), replyTo: user.email });
    } catch (e) {
      deps.logger.warn({ err: e instanceof Error ? e.message : String(e) }, 'support notification e-mail not sent');
    }
  }
  return ownConversation(deps, user, false);
}

// ------------------------------------------------------------------ staff side (superusers; see routes)

export async function inbox(deps: AppDeps, f: { status?: 'open' | 'answered'; email?: string; limit: number }): Promise<SupportThread[]> {
  return (await repo.listThreads(deps.db, f)).map((t) => threadView(t, 'staff'));
}

/** One thread as staff see it; opening it marks the user's messages as read by staff. */
export async function staffConversation(deps: AppDeps, threadId: string): Promise<SupportConversation> {
  const t = isUuid(threadId) ? await repo.threadById(deps.db, threadId) : null;
  if (!t) throw notFound(TEXTS.threadNotFound);
  const messages = (await repo.messagesOf(deps.db, t.id)).map(messageView);
  if (Number(t.unread_staff) > 0) await repo.markRead(deps.db, t.id, 'staff');
  return { thread: threadView(t, 'staff'), messages };
}

/** A staff answer; the user is e-mailed when SMTP is configured (a failed e-mail is logged, the answer kept). */
export async function answer(
  deps: AppDeps,
  staff: UserRow,
  threadId: string,
  body: string,
): Promise<SupportConversation & { emailed: boolean }> {
  const t = isUuid(threadId) ? await repo.threadById(deps.db, threadId) : null;
  if (!t) throw notFound(TEXTS.threadNotFound);
  await repo.insertMessage(deps.db, { threadId: t.id, authorId: staff.id, fromStaff: true, body, page: null, projectId: null });
  let emailed = false;
  if (mailEnabled(deps.config)) {
    try {
      emailed = await sendMail(deps, {
        to: t.user_email,
        subject: 'Support answered your message',
        text: ['Hello,', '', 'Support answered your message:', '', body, '', `Open the app to reply: ${appLink(deps, '/')}`].join('\n'),
        replyTo: deps.config.support.email,
      });
    } catch (e) {
      deps.logger.warn({ err: e instanceof Error ? e.message : String(e), thread: t.id }, 'support answer e-mail not sent');
    }
  }
  return { ...(await staffConversation(deps, t.id)), emailed };
}
