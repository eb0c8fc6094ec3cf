// All SQL of feedback and surveys: the admin lists (filters, keyset pages) and survey answers.
import type { RawBuilder } from 'kysely';
import type { Db } from '../../db/index';
import { all, first, json, q, sql } from '../../db/sql';

export interface RecordsFilter {
  email?: string;
  dateGt?: string;
  dateLt?: string;
  limit: number;
  /** Keyset cursor (created_at DESC, id DESC). */
  after?: { createdKey: string; id: string };
}

export interface FeedbackRow {
  id: string;
  email: string | null;
  project_id: string | null;
  project_name: string | null;
  project_status: string | null;
  comment: string;
  options: string[];
  created_at: Date | string;
  created_key: string;
}

export interface SurveyAnswerRow {
  id: string;
  email: string;
  survey_id: string;
  survey_title: string;
  status: 'answered' | 'rejected';
  answers: string[];
  comment: string;
  created_at: Date | string;
  created_key: string;
}

const likeEscape = (s: string) => s.replace(/[\\%_]/g, (ch) => `\\${ch}`);

/** The filters of the admin lists, on the records' alias (`f` or `r`) and the user's email. */
function whereOf(f: RecordsFilter, alias: 'f' | 'r'): Array<RawBuilder<boolean>> {
  const t = sql.table(alias);
  const where: Array<RawBuilder<boolean>> = [];
  if (f.email) where.push(sql<boolean>`u.email ILIKE ${`%${likeEscape(f.email.toLowerCase())}%`} ESCAPE '\\'`);
  if (f.dateGt) where.push(sql<boolean>`${t}.created_at > ${f.dateGt}::timestamptz`);
  if (f.dateLt) where.push(sql<boolean>`${t}.created_at < ${f.dateLt}::timestamptz`);
  if (f.after) where.push(sql<boolean>`(${t}.created_at, ${t}.id) < (${f.after.createdKey}::timestamptz, ${f.after.id}::uuid)`);
  return where;
}

export function listFeedback(db: Db, f: RecordsFilter): Promise<FeedbackRow[]> {
  return all(
    db,
    q
      .selectFrom('project_feedback as f')
      .leftJoin('users as u', 'u.id', 'f.user_id')
      .leftJoin('projects as p', 'p.id', 'f.project_id')
      .select([
        'f.id',
        'u.email',
        'f.project_id',
        'p.name as project_name',
        'p.status as project_status',
        'f.comment',
        'f.options',
        'f.created_at',
        sql<string>`f.created_at::text`.as('created_key'),
      ])
      .where((e) => e.and(whereOf(f, 'f')))
      .orderBy('f.created_at', 'desc')
      .orderBy('f.id', 'desc')
      .limit(f.limit)
      .$narrowType<{ options: string[] }>(),
  );
}

export function listSurveyAnswers(db: Db, f: RecordsFilter): Promise<SurveyAnswerRow[]> {
  return all(
    db,
    q
      .selectFrom('survey_responses as r')
      .innerJoin('users as u', 'u.id', 'r.user_id')
      .innerJoin('surveys as s', 's.id', 'r.survey_id')
      .select([
        'r.id',
        'u.email',
        'r.survey_id',
        's.title as survey_title',
        'r.status',
        'r.answers',
        'r.comment',
        'r.created_at',
        sql<string>`r.created_at::text`.as('created_key'),
      ])
      .where((e) => e.and(whereOf(f, 'r')))
      .orderBy('r.created_at', 'desc')
      .orderBy('r.id', 'desc')
      .limit(f.limit)
      .$narrowType<{ status: 'answered' | 'rejected'; answers: string[] }>(),
  );
}

export interface SurveyRow {
  id: string;
  title: string;
  questions: string[];
}

/** Active surveys the user has neither answered nor rejected (each is shown once). */
export function pendingSurveys(db: Db, userId: string): Promise<SurveyRow[]> {
  return all(
    db,
    q
      .selectFrom('surveys as s')
      .select(['s.id', 's.title', 's.questions'])
      .where('s.active', '=', true)
      .where((e) => e.not(e.exists(e.selectFrom('survey_responses as r').select(sql`1`.as('one')).whereRef('r.survey_id', '=', 's.id').where('r.user_id', '=', userId))))
      .orderBy('s.created_at')
      .orderBy('s.id')
      .$narrowType<{ questions: string[] }>(),
  );
}

export function findActiveSurvey(db: Db, id: string): Promise<SurveyRow | null> {
  return first(db, q.selectFrom('surveys').select(['id', 'title', 'questions']).where('id', '=', id).where('active', '=', true).$narrowType<{ questions: string[] }>());
}

/** Stores the answer or the reject; false when the user already did one of them. */
export async function insertSurveyResponse(
  db: Db,
  r: { surveyId: string; userId: string; status: 'answered' | 'rejected'; answers: string[]; comment: string },
): Promise<boolean> {
  const rows = await all(
    db,
    q
      .insertInto('survey_responses')
      .values({ survey_id: r.surveyId, user_id: r.userId, status: r.status, answers: json(r.answers), comment: r.comment })
      .onConflict((c) => c.columns(['survey_id', 'user_id']).doNothing())
      .returning('id'),
  );
  return rows.length === 1;
}

export function listSurveys(db: Db): Promise<(SurveyRow & { active: boolean })[]> {
  return all(db, q.selectFrom('surveys').select(['id', 'title', 'questions', 'active']).orderBy('created_at').orderBy('id').$narrowType<{ questions: string[] }>());
}

export async function setSurveyActive(db: Db, id: string, active: boolean): Promise<boolean> {
  return (await all(db, q.updateTable('surveys').set({ active }).where('id', '=', id).returning('id'))).length === 1;
}
