// All SQL of the support chat: one thread per user, its messages, read marks.
import type { Db } from '../../db/index';
import { all, first, one, q, run, sql } from '../../db/sql';

export interface ThreadRow {
  id: string;
  user_id: string;
  user_email: string;
  status: 'open' | 'answered';
  last_message_at: Date | string;
  user_read_at: Date | string | null;
  staff_read_at: Date | string | null;
  unread_user: number | string;
  unread_staff: number | string;
  last_message: string | null;
}

export interface MessageRow {
  id: string;
  body: string;
  from_staff: boolean;
  author_email: string | null;
  page: string | null;
  project_id: string | null;
  project_name: string | null;
  created_at: Date | string;
}

/** Threads with their user's e-mail, unread counts on each side and last message. */
const threads = () =>
  q
    .selectFrom('support_threads as t')
    .innerJoin('users as u', 'u.id', 't.user_id')
    .select((e) => [
      't.id',
      't.user_id',
      'u.email as user_email',
      't.status',
      't.last_message_at',
      't.user_read_at',
      't.staff_read_at',
      e
        .cast<number>(
          e
            .selectFrom('support_messages as m')
            .select((c) => c.fn.countAll().as('n'))
            .whereRef('m.thread_id', '=', 't.id')
            .where(sql<boolean>`m.from_staff`)
            .where((w) => w.or([w('t.user_read_at', 'is', null), w('m.created_at', '>', w.ref('t.user_read_at'))])),
          'integer',
        )
        .as('unread_user'),
      e
        .cast<number>(
          e
            .selectFrom('support_messages as m')
            .select((c) => c.fn.countAll().as('n'))
            .whereRef('m.thread_id', '=', 't.id')
            .where(sql<boolean>`NOT m.from_staff`)
            .where((w) => w.or([w('t.staff_read_at', 'is', null), w('m.created_at', '>', w.ref('t.staff_read_at'))])),
          'integer',
        )
        .as('unread_staff'),
      e
        .selectFrom('support_messages as m')
        .select('m.body')
        .whereRef('m.thread_id', '=', 't.id')
        .orderBy('m.created_at', 'desc')
        .orderBy('m.id', 'desc')
        .limit(1)
        .as('last_message'),
    ])
    .$narrowType<{ status: 'open' | 'answered' }>();

export function threadOfUser(db: Db, userId: string): Promise<ThreadRow | null> {
  return first(db, threads().where('t.user_id', '=', userId));
}

export function threadById(db: Db, id: string): Promise<ThreadRow | null> {
  return first(db, threads().where('t.id', '=', id));
}

/** The user's thread, created on the first message. */
export async function ensureThread(db: Db, userId: string): Promise<string> {
  const r = await one(
    db,
    q
      .insertInto('support_threads')
      .values({ user_id: userId })
      .onConflict((c) => c.column('user_id').doUpdateSet({ user_id: (e) => e.ref('excluded.user_id') }))
      .returning('id'),
  );
  return r.id;
}

export async function insertMessage(
  db: Db,
  m: { threadId: string; authorId: string; fromStaff: boolean; body: string; page: string | null; projectId: string | null },
): Promise<{ id: string; created_at: Date | string }> {
  const row = await one(
    db,
    q
      .insertInto('support_messages')
      .values({ thread_id: m.threadId, author_id: m.authorId, from_staff: m.fromStaff, body: m.body, page: m.page, project_id: m.projectId })
      .returning(['id', 'created_at']),
  );
  // The writer has read everything up to their own message.
  await run(
    db,
    q
      .updateTable('support_threads')
      .set({
        last_message_at: row.created_at,
        status: m.fromStaff ? 'answered' : 'open',
        ...(m.fromStaff ? { staff_read_at: row.created_at } : { user_read_at: row.created_at }),
      })
      .where('id', '=', m.threadId),
  );
  return row;
}

export function messagesOf(db: Db, threadId: string): Promise<MessageRow[]> {
  return all(
    db,
    q
      .selectFrom('support_messages as m')
      .leftJoin('users as a', 'a.id', 'm.author_id')
      .leftJoin('projects as p', 'p.id', 'm.project_id')
      .select(['m.id', 'm.body', 'm.from_staff', 'a.email as author_email', 'm.page', 'm.project_id', 'p.name as project_name', 'm.created_at'])
      .where('m.thread_id', '=', threadId)
      .orderBy('m.created_at')
      .orderBy('m.id'),
  );
}

export async function markRead(db: Db, threadId: string, side: 'user' | 'staff'): Promise<void> {
  const at = sql<Date>`clock_timestamp()`;
  await run(db, q.updateTable('support_threads').set(side === 'user' ? { user_read_at: at } : { staff_read_at: at }).where('id', '=', threadId));
}

export function listThreads(db: Db, f: { status?: 'open' | 'answered'; email?: string; limit: number }): Promise<ThreadRow[]> {
  let query = threads();
  if (f.status) query = query.where('t.status', '=', f.status);
  if (f.email) {
    const pattern = `%${f.email.toLowerCase().replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
    query = query.where(sql<boolean>`u.email ILIKE ${pattern} ESCAPE '\\'`);
  }
  return all(db, query.orderBy('t.last_message_at', 'desc').orderBy('t.id').limit(f.limit));
}
