// All SQL of the support chat: one thread per user, its messages, read marks.
import type { Db } from '../../db/index';

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

const THREAD_COLS = `t.id, t.user_id, u.email AS user_email, t.status, t.last_message_at, t.user_read_at, t.staff_read_at,
  (SELECT count(*) FROM support_messages m WHERE m.thread_id = t.id AND m.from_staff
     AND (t.user_read_at IS NULL OR m.created_at > t.user_read_at))::int AS unread_user,
  (SELECT count(*) FROM support_messages m WHERE m.thread_id = t.id AND NOT m.from_staff
     AND (t.staff_read_at IS NULL OR m.created_at > t.staff_read_at))::int AS unread_staff,
  (SELECT m.body FROM support_messages m WHERE m.thread_id = t.id ORDER BY m.created_at DESC, m.id DESC LIMIT 1) AS last_message`;

export function threadOfUser(db: Db, userId: string): Promise<ThreadRow | null> {
  return db.maybeOne<ThreadRow>(`SELECT ${THREAD_COLS} FROM support_threads t JOIN users u ON u.id = t.user_id WHERE t.user_id = $1`, [userId]);
}

export function threadById(db: Db, id: string): Promise<ThreadRow | null> {
  return db.maybeOne<ThreadRow>(`SELECT ${THREAD_COLS} FROM support_threads t JOIN users u ON u.id = t.user_id WHERE t.id = $1`, [id]);
}

/** The user's thread, created on the first message. */
export async function ensureThread(db: Db, userId: string): Promise<string> {
  const r = await db.one<{ id: string }>(
    `INSERT INTO support_threads (user_id) VALUES ($1)
     ON CONFLICT (user_id) DO UPDATE SET user_id = EXCLUDED.user_id
     RETURNING id`,
    [userId],
  );
  return r.id;
}

export async function insertMessage(
  db: Db,
  m: { threadId: string; authorId: string; fromStaff: boolean; body: string; page: string | null; projectId: string | null },
): Promise<{ id: string; created_at: Date | string }> {
  const row = await db.one<{ id: string; created_at: Date | string }>(
    `INSERT INTO support_messages (thread_id, author_id, from_staff, body, page, project_id)
     VALUES ($1, $2, $3, $4, $5, $6) RETURNING id, created_at`,
    [m.threadId, m.authorId, m.fromStaff, m.body, m.page, m.projectId],
  );
  // The writer has read everything up to their own message.
  await db.query(
    `UPDATE support_threads SET last_message_at = $2, status = $3,
       ${m.fromStaff ? 'staff_read_at' : 'user_read_at'} = $2
     WHERE id = $1`,
    [m.threadId, row.created_at, m.fromStaff ? 'answered' : 'open'],
  );
  return row;
}

export function messagesOf(db: Db, threadId: string): Promise<MessageRow[]> {
  return db.query<MessageRow>(
    `SELECT m.id, m.body, m.from_staff, a.email AS author_email, m.page, m.project_id, p.name AS project_name, m.created_at
     FROM support_messages m
     LEFT JOIN users a ON a.id = m.author_id
     LEFT JOIN projects p ON p.id = m.project_id
     WHERE m.thread_id = $1
     ORDER BY m.created_at, m.id`,
    [threadId],
  );
}

export async function markRead(db: Db, threadId: string, side: 'user' | 'staff'): Promise<void> {
  await db.query(`UPDATE support_threads SET ${side === 'user' ? 'user_read_at' : 'staff_read_at'} = clock_timestamp() WHERE id = $1`, [threadId]);
}

export function listThreads(db: Db, f: { status?: 'open' | 'answered'; email?: string; limit: number }): Promise<ThreadRow[]> {
  const params: unknown[] = [];
  const where: string[] = [];
  if (f.status) {
    params.push(f.status);
    where.push(`t.status = $${params.length}`);
  }
  if (f.email) {
    params.push(`%${f.email.toLowerCase().replace(/[\\%_]/g, (c) => `\\${c}`)}%`);
    where.push(`u.email ILIKE $${params.length} ESCAPE '\\'`);
  }
  params.push(f.limit);
  return db.query<ThreadRow>(
    `SELECT ${THREAD_COLS} FROM support_threads t JOIN users u ON u.id = t.user_id
     ${where.length ? `WHERE ${where.join(' AND ')}` : ''}
     ORDER BY t.last_message_at DESC, t.id
     LIMIT $${params.length}`,
    params as never[],
  );
}
