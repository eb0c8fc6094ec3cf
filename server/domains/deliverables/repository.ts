// All SQL of the deliverables domain.
import type { Db } from '../../db/index';
import { all, q } from '../../db/sql';

/** The ids of the copies of a project made in its space, oldest first. */
export function copiesOf(db: Db, project: { id: string; space_id: string }): Promise<Array<{ id: string }>> {
  return all(
    db,
    q.selectFrom('projects').select('id').where('copied_from', '=', project.id).where('space_id', '=', project.space_id).orderBy('created_date').orderBy('id'),
  );
}
