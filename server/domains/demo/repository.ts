// All SQL of the demo project: which project is a user's demo in which language.
import type { Db } from '../../db/index';

export interface DemoRow {
  user_id: string;
  dst_lang: string;
  project_id: string;
}

export function demosOfUser(db: Db, userId: string): Promise<(DemoRow & { status: string })[]> {
  return db.query<DemoRow & { status: string }>(
    `SELECT d.user_id, d.dst_lang, d.project_id, p.status FROM demo_projects d JOIN projects p ON p.id = d.project_id
     WHERE d.user_id = $1`,
    [userId],
  );
}

export function findDemo(db: Db, userId: string, dstLang: string): Promise<DemoRow | null> {
  return db.maybeOne<DemoRow>(`SELECT user_id, dst_lang, project_id FROM demo_projects WHERE user_id = $1 AND dst_lang = $2`, [userId, dstLang]);
}

export async function isDemoProject(db: Db, projectId: string): Promise<boolean> {
  return (await db.maybeOne(`SELECT 1 AS x FROM demo_projects WHERE project_id = $1`, [projectId])) !== null;
}

export async function insertDemo(db: Db, d: DemoRow): Promise<void> {
  await db.query(`INSERT INTO demo_projects (user_id, dst_lang, project_id) VALUES ($1, $2, $3)`, [d.user_id, d.dst_lang, d.project_id]);
}

/** Serialises demo creation of one user (a double click makes one demo): a row lock on the user. */
export async function lockUser(db: Db, userId: string): Promise<void> {
  await db.query(`SELECT id FROM users WHERE id = $1 FOR UPDATE`, [userId]);
}
