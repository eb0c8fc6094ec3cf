// All SQL of the demo project: which project is a user's demo in which language.
import type { Selectable } from 'kysely';
import type { Db } from '../../db/index';
import type { DemoProjects } from '../../db/schema';
import { all, first, q, run } from '../../db/sql';

export type DemoRow = Pick<Selectable<DemoProjects>, 'user_id' | 'dst_lang' | 'project_id'>;

export function demosOfUser(db: Db, userId: string): Promise<(DemoRow & { status: string })[]> {
  return all(
    db,
    q
      .selectFrom('demo_projects as d')
      .innerJoin('projects as p', 'p.id', 'd.project_id')
      .select(['d.user_id', 'd.dst_lang', 'd.project_id', 'p.status'])
      .where('d.user_id', '=', userId),
  );
}

export function findDemo(db: Db, userId: string, dstLang: string): Promise<DemoRow | null> {
  return first(db, q.selectFrom('demo_projects').select(['user_id', 'dst_lang', 'project_id']).where('user_id', '=', userId).where('dst_lang', '=', dstLang));
}

export async function isDemoProject(db: Db, projectId: string): Promise<boolean> {
  return (await first(db, q.selectFrom('demo_projects').select('project_id').where('project_id', '=', projectId))) !== null;
}

export async function insertDemo(db: Db, d: DemoRow): Promise<void> {
  await run(db, q.insertInto('demo_projects').values({ user_id: d.user_id, dst_lang: d.dst_lang, project_id: d.project_id }));
}

/** Serialises demo creation of one user (a double click makes one demo): a row lock on the user. */
export async function lockUser(db: Db, userId: string): Promise<void> {
  await run(db, q.selectFrom('users').select('id').where('id', '=', userId).forUpdate());
}
