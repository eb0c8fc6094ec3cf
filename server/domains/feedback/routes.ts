// /api/survey (add, reject: the signed-in user) and the staff lists /api/admin/feedback and /api/admin/survey
// with their CSV exports (superusers).
import { Hono } from 'hono';
import { ADMIN_LIST_LIMIT } from '../../../contract/constants';
import { AdminRecordsQuery, SurveyActiveRequest, SurveyAddRequest, SurveyRejectRequest } from '../../../contract/schemas/onboarding';
import { requireSuperuser } from '../../http/auth';
import type { AppEnv } from '../../http/env';
import { jsonBody, queryWith } from '../../http/validate';
import { CSV_PAGE_ROWS, csvHeaders, csvStream } from '../../csv';
import {
  FEEDBACK_CSV_COLUMNS, SURVEY_CSV_COLUMNS, answerSurvey, feedbackCsvPage, listFeedback, listSurveyAnswers, rejectSurvey,
  surveyCsvPage, listSurveys, setSurveyActive, type Cursor,
} from './service';
import { routeFacts, type QueryFact } from '../../http/route-facts';

const ADMIN_RECORDS_Q: QueryFact[] = [
  { name: 'email', description: 'E-mail contains' }, { name: 'date_gt', description: 'Written after (ISO date-time)' }, { name: 'date_lt', description: 'Written before (ISO date-time)' },
];
const ADMIN_LIST_Q: QueryFact[] = [...ADMIN_RECORDS_Q, { name: 'limit', description: `Rows (1-1000, default ${ADMIN_LIST_LIMIT})` }];

export const surveyRoutes = new Hono<AppEnv>()
  .post('/add', routeFacts({ summary: 'Answer a survey', body: 'SurveyAddRequest', response: 'SurveyRecorded', status: 201, errors: { 400: 'An answer the survey does not offer' } }), async (c) => {
    const body = await jsonBody(c, SurveyAddRequest);
    return c.json(await answerSurvey(c.get('deps').db, c.get('user').id, body), 201);
  })
  .post('/reject', routeFacts({ summary: 'Decline a survey', body: 'SurveyRejectRequest', response: 'SurveyRecorded' }), async (c) => {
    const body = await jsonBody(c, SurveyRejectRequest);
    return c.json(await rejectSurvey(c.get('deps').db, c.get('user').id, body.survey_id));
  });

export const feedbackAdminRoutes = new Hono<AppEnv>()
  .use('*', requireSuperuser)
  .get('/', routeFacts({
    summary: 'Project feedback, newest first (superuser)',
    response: 'AdminFeedback',
    list: true,
    query: ADMIN_LIST_Q,
  }), async (c) => c.json(await listFeedback(c.get('deps').db, queryWith(c, AdminRecordsQuery), ADMIN_LIST_LIMIT)))
  .get('/csv', routeFacts({
    summary: 'Project feedback as a CSV file (superuser)',
    binary: 'text/csv',
    query: ADMIN_RECORDS_Q,
  }), (c) => {
    const q = queryWith(c, AdminRecordsQuery);
    const db = c.get('deps').db;
    return c.body(csvStream(FEEDBACK_CSV_COLUMNS, (cur: Cursor | null) => feedbackCsvPage(db, q, cur, CSV_PAGE_ROWS)), 200, csvHeaders('feedback.csv'));
  });

export const surveyAdminRoutes = new Hono<AppEnv>()
  .use('*', requireSuperuser)
  .get('/', routeFacts({
    summary: 'Survey answers and dismissals, newest first (superuser)',
    response: 'AdminSurveyAnswer',
    list: true,
    query: ADMIN_LIST_Q,
  }), async (c) => c.json(await listSurveyAnswers(c.get('deps').db, queryWith(c, AdminRecordsQuery), ADMIN_LIST_LIMIT)))
  .get('/surveys', routeFacts({ summary: 'The surveys and whether users are asked them (superuser)', response: 'AdminSurvey', list: true }), async (c) => c.json(await listSurveys(c.get('deps').db)))
  .patch('/surveys/:id', routeFacts({ summary: 'Turn a survey on or off (superuser)', body: 'SurveyActiveRequest', response: 'AdminSurvey' }), async (c) => {
    const body = await jsonBody(c, SurveyActiveRequest);
    return c.json(await setSurveyActive(c.get('deps').db, c.req.param('id'), body.active));
  })
  .get('/csv', routeFacts({
    summary: 'Survey answers as a CSV file (superuser)',
    binary: 'text/csv',
    query: ADMIN_RECORDS_Q,
  }), (c) => {
    const q = queryWith(c, AdminRecordsQuery);
    const db = c.get('deps').db;
    return c.body(csvStream(SURVEY_CSV_COLUMNS, (cur: Cursor | null) => surveyCsvPage(db, q, cur, CSV_PAGE_ROWS)), 200, csvHeaders('survey.csv'));
  });
