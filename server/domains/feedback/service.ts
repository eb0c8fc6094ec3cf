// Surveys (each shown once: answered or rejected, never again) and the staff lists of feedback and survey
// answers with their streamed CSV exports.
import type { Settings } from '../../../contract/schemas/settings';
import type { AdminFeedback, AdminSurveyAnswer } from '../../../contract/schemas/onboarding';
import type { Db } from '../../db/index';
import { DomainError, conflict, notFound } from '../../errors';
import * as repo from './repository';

export const TEXTS = {
  surveyNotFound: 'Survey not found',
  surveyDone: 'This survey was already answered or dismissed',
  answerNotOffered: 'Answer not offered by this survey',
} as const;

export interface RecordsQuery {
  email?: string;
  date_gt?: string;
  date_lt?: string;
  limit?: number;
}

const iso = (d: Date | string) => new Date(d).toISOString();
const filterOf = (q: RecordsQuery, limit: number, after?: repo.RecordsFilter['after']): repo.RecordsFilter => ({
  email: q.email || undefined,
  dateGt: q.date_gt,
  dateLt: q.date_lt,
  limit,
  after,
});

export function pendingSurveys(db: Db, userId: string): Promise<Settings['surveys']> {
  return repo.pendingSurveys(db, userId);
}

export async function answerSurvey(db: Db, userId: string, p: { survey_id: string; answers: string[]; comment?: string }): Promise<{ ok: true }> {
  const s = await repo.findActiveSurvey(db, p.survey_id);
  if (!s) throw notFound(TEXTS.surveyNotFound);
  if (s.questions.length > 0 && p.answers.some((a) => !s.questions.includes(a))) throw new DomainError('bad_request', TEXTS.answerNotOffered);
  const stored = await repo.insertSurveyResponse(db, { surveyId: s.id, userId, status: 'answered', answers: [...new Set(p.answers)], comment: p.comment?.trim() ?? '' });
  if (!stored) throw conflict(TEXTS.surveyDone);
  return { ok: true };
}

export function listSurveys(db: Db) {
  return repo.listSurveys(db);
}

/** Staff switch a survey on (users who have not answered or dismissed it see it once) or off. */
export async function setSurveyActive(db: Db, id: string, active: boolean) {
  if (!(await repo.setSurveyActive(db, id, active))) throw notFound(TEXTS.surveyNotFound);
  return (await repo.listSurveys(db)).find((s) => s.id === id);
}

export async function rejectSurvey(db: Db, userId: string, surveyId: string): Promise<{ ok: true }> {
  const s = await repo.findActiveSurvey(db, surveyId);
  if (!s) throw notFound(TEXTS.surveyNotFound);
  // Rejecting twice (two tabs) is harmless; rejecting after answering keeps the answer.
  await repo.insertSurveyResponse(db, { surveyId: s.id, userId, status: 'rejected', answers: [], comment: '' });
  return { ok: true };
}

function feedbackView(r: repo.FeedbackRow): AdminFeedback {
  return {
    id: r.id,
    email: r.email,
    project_id: r.project_id,
    project_name: r.project_name,
    project_status: r.project_status,
    comment: r.comment,
    options: r.options ?? [],
    created_at: iso(r.created_at),
  };
}

function answerView(r: repo.SurveyAnswerRow): AdminSurveyAnswer {
  return {
    id: r.id,
    email: r.email,
    survey_id: r.survey_id,
    survey_title: r.survey_title,
    status: r.status,
    answers: r.answers ?? [],
    comment: r.comment,
    created_at: iso(r.created_at),
  };
}

export async function listFeedback(db: Db, q: RecordsQuery, defaultLimit: number): Promise<AdminFeedback[]> {
  return (await repo.listFeedback(db, filterOf(q, q.limit ?? defaultLimit))).map(feedbackView);
}

export async function listSurveyAnswers(db: Db, q: RecordsQuery, defaultLimit: number): Promise<AdminSurveyAnswer[]> {
  return (await repo.listSurveyAnswers(db, filterOf(q, q.limit ?? defaultLimit))).map(answerView);
}

export const FEEDBACK_CSV_COLUMNS = ['id', 'created_at', 'email', 'project_id', 'project_name', 'project_status', 'options', 'comment'] as const;
export const SURVEY_CSV_COLUMNS = ['id', 'created_at', 'email', 'survey_id', 'survey_title', 'status', 'answers', 'comment'] as const;

export type Cursor = { createdKey: string; id: string; left: number | null };

/** One page of an export (every match unless a limit is given); `next` null after the last. */
async function exportPage<R extends { id: string; created_key: string }>(
  fetch: (f: repo.RecordsFilter) => Promise<R[]>,
  toRow: (r: R) => unknown[],
  q: RecordsQuery,
  cursor: Cursor | null,
  pageRows: number,
): Promise<{ rows: unknown[][]; next: Cursor | null }> {
  const left = cursor ? cursor.left : (q.limit ?? null);
  const take = left === null ? pageRows : Math.min(pageRows, left);
  if (take <= 0) return { rows: [], next: null };
  const raw = await fetch(filterOf(q, take, cursor ? { createdKey: cursor.createdKey, id: cursor.id } : undefined));
  const last = raw[raw.length - 1];
  const remaining = left === null ? null : left - raw.length;
  return {
    rows: raw.map(toRow),
    next: raw.length < take || !last || remaining === 0 ? null : { createdKey: last.created_key, id: last.id, left: remaining },
  };
}

export function feedbackCsvPage(db: Db, q: RecordsQuery, cursor: Cursor | null, pageRows: number) {
  return exportPage((f) => repo.listFeedback(db, f), (r) => {
    const v = feedbackView(r);
    return [v.id, v.created_at, v.email ?? '', v.project_id ?? '', v.project_name ?? '', v.project_status ?? '', v.options.join('; '), v.comment];
  }, q, cursor, pageRows);
}

export function surveyCsvPage(db: Db, q: RecordsQuery, cursor: Cursor | null, pageRows: number) {
  return exportPage((f) => repo.listSurveyAnswers(db, f), (r) => {
    const v = answerView(r);
    return [v.id, v.created_at, v.email, v.survey_id, v.survey_title, v.status, v.answers.join('; '), v.comment];
  }, q, cursor, pageRows);
}
