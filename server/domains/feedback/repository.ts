// All SQL of feedback and surveys: the admin lists (filters, keyset pages) and survey answers.
import type { Db, SqlParam } from '../../db/index';

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

function whereOf(f: RecordsFilter, alias: string, params: SqlParam[]): string {
  const p = (x: SqlParam) => {
    params.push(x);
    return `$${params.length}`;
  };
  const where: string[] = [];
  if (f.email) where.push(`u.email ILIKE ${p(`%${likeEscape(f.email.toLowerCase())}%`)} ESCAPE '\\'`);
  if (f.dateGt) where.push(`${alias}.created_at > ${p(f.dateGt)}::timestamptz`);
  if (f.dateLt) where.push(`${alias}.created_at < ${p(f.dateLt)}::timestamptz`);
  if (f.after) where.push(`(${alias}.created_at, ${alias}.id) < (${p(f.after.createdKey)}::timestamptz, ${p(f.after.id)}::uuid)`);
  return where.length ? `WHERE ${where.join(' AND ')}` : '';
}

export function listFeedback(db: Db, f: RecordsFilter): Promise<FeedbackRow[]> {
  const params: SqlParam[] = [];
  const where = whereOf(f, 'f', params);
  params.push(f.limit);
  return db.query<FeedbackRow>(
    `SELECT f.id, u.email, f.project_id, p.name AS project_name, p.status AS project_status, f.comment, f.options,
            f.created_at, f.created_at::text AS created_key
     FROM project_feedback f
     LEFT JOIN users u ON u.id = f.user_id
     LEFT JOIN projects p ON p.id = f.project_id
     ${where}
     ORDER BY f.created_at DESC, f.id DESC
     LIMIT $${params.length}`,
    params,
  );
}

export function listSurveyAnswers(db: Db, f: RecordsFilter): Promise<SurveyAnswerRow[]> {
  const params: SqlParam[] = [];
  const where = whereOf(f, 'r', params);
  params.push(f.limit);
  return db.query<SurveyAnswerRow>(
    `SELECT r.id, u.email, r.survey_id, s.title AS survey_title, r.status, r.answers, r.comment,
            r.created_at, r.created_at::text AS created_key
     FROM survey_responses r
     JOIN users u ON u.id = r.user_id
     JOIN surveys s ON s.id = r.survey_id
     ${where}
     ORDER BY r.created_at DESC, r.id DESC
     LIMIT $${params.length}`,
    params,
  );
}

export interface SurveyRow {
  id: string;
  title: string;
  questions: string[];
}

/** Active surveys the user has neither answered nor rejected (each is shown once). */
export function pendingSurveys(db: Db, userId: string): Promise<SurveyRow[]> {
  return db.query<SurveyRow>(
    `SELECT s.id, s.title, s.questions FROM surveys s
     WHERE s.active AND NOT EXISTS (SELECT 1 FROM survey_responses r WHERE r.survey_id = s.id AND r.user_id = $1)
     ORDER BY s.created_at, s.id`,
    [userId],
  );
}

export function findActiveSurvey(db: Db, id: string): Promise<SurveyRow | null> {
  return db.maybeOne<SurveyRow>('SELECT id, title, questions FROM surveys WHERE id = $1 AND active', [id]);
}

/** Stores the answer or the reject; false when the user already did one of them. */
export async function insertSurveyResponse(
  db: Db,
  r: { surveyId: string; userId: string; status: 'answered' | 'rejected'; answers: string[]; comment: string },
): Promise<boolean> {
  const rows = await db.query(
    `INSERT INTO survey_responses (survey_id, user_id, status, answers, comment) VALUES ($1, $2, $3, $4, $5)
     ON CONFLICT (survey_id, user_id) DO NOTHING RETURNING id`,
    [r.surveyId, r.userId, r.status, r.answers, r.comment],
  );
  return rows.length === 1;
}

export function listSurveys(db: Db): Promise<(SurveyRow & { active: boolean })[]> {
  return db.query('SELECT id, title, questions, active FROM surveys ORDER BY created_at, id');
}

export async function setSurveyActive(db: Db, id: string, active: boolean): Promise<boolean> {
  return (await db.query('UPDATE surveys SET active = $2 WHERE id = $1 RETURNING id', [id, active])).length === 1;
}
