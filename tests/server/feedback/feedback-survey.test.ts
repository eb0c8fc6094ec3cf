// Surveys (shown once), project feedback (also on failed jobs) and the staff lists: e-mail and date filters,
// limit 20 with more on demand, CSV exports (escaping, a 10,000-row export that streams); superusers only.
import * as v from 'valibot';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_LIST_LIMIT } from '../../../contract/constants';
import { AdminFeedback, AdminSurvey, AdminSurveyAnswer } from '../../../contract/schemas/onboarding';
import type { components, operations } from '../../../src/lib/api/schema';
import { createHarness, type Harness } from '../harness';
import { makeUser, type TestUser } from '../spaces/spaces-fixtures';
import { issuesOf, typedClient } from '../typed-client';

let h: Harness;
let staff: TestUser;
let alice: TestUser;
let bob: TestUser;

async function project(u: TestUser, name: string, status = 'translation_done'): Promise<string> {
  const r = await h.deps.db.one<{ id: string }>(
    `INSERT INTO projects (space_id, user_id, name, src_lang, dst_lang, status) VALUES ($1, $2, $3, 'en', 'es', $4) RETURNING id`,
    [u.defaultSpaceId, u.id, name, status],
  );
  return r.id;
}

/** The CSV body as chunks (how it arrived) and parsed records (RFC 4180 quoting). */
async function readCsv(r: Response): Promise<{ chunks: number; records: string[][] }> {
  const reader = r.body!.getReader();
  const dec = new TextDecoder();
  let text = '';
  let chunks = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    chunks++;
    text += dec.decode(value, { stream: true });
  }
  const records: string[][] = [];
  let row: string[] = [];
  let field = '';
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const ch = text[i];
    if (quoted) {
      if (ch === '"' && text[i + 1] === '"') {
        field += '"';
        i++;
      } else if (ch === '"') quoted = false;
      else field += ch;
    } else if (ch === '"') quoted = true;
    else if (ch === ',') {
      row.push(field);
      field = '';
    } else if (ch === '\r' && text[i + 1] === '\n') {
      row.push(field);
      records.push(row);
      row = [];
      field = '';
      i++;
    } else field += ch;
  }
  return { chunks, records };
}

let asStaff: ReturnType<typeof typedClient>;
let asAlice: ReturnType<typeof typedClient>;
let asBob: ReturnType<typeof typedClient>;

beforeAll(async () => {
  h = await createHarness();
  staff = await makeUser(h, 'staff@example.com', { superuser: true });
  alice = await makeUser(h, 'alice@example.com');
  bob = await makeUser(h, 'bob@example.com');
  asStaff = typedClient(h, staff.token);
  asAlice = typedClient(h, alice.token);
  asBob = typedClient(h, bob.token);
});

/** GET /api/settings as `by`, checked for 200 (the active survey, if any, is in `surveys`). */
async function settingsOf(by: ReturnType<typeof typedClient>, query: { space_id?: string } = {}) {
  const r = await by.GET('/api/settings', { params: { query } });
  expect(r.response.status).toBe(200);
  return r.data!;
}

describe('survey switch (staff)', () => {
  it('is off until staff switch it on; only superusers may', async () => {
    expect((await settingsOf(asAlice)).surveys).toEqual([]);
    const switchSurvey = (id: string, by: ReturnType<typeof typedClient>) =>
      by.PATCH('/api/admin/survey/surveys/{id}', { params: { path: { id } }, body: { active: true } });
    expect((await switchSurvey('customer_survey_v1', asAlice)).response.status).toBe(403);
    const surveys = await asStaff.GET('/api/admin/survey/surveys');
    expect(surveys.response.status).toBe(200);
    expect(v.is(v.array(AdminSurvey), surveys.data)).toBe(true);
    expect(surveys.data!.map((s) => [s.id, s.active])).toEqual([['customer_survey_v1', false]]);
    const on = await switchSurvey('customer_survey_v1', asStaff);
    expect(on.response.status).toBe(200);
    expect(on.data!.active).toBe(true);
    expect((await switchSurvey('nope', asStaff)).response.status).toBe(404);
  });
});
afterAll(async () => {
  await h?.close();
});

describe('surveys', () => {
  it('settings carry the active survey until it is answered, and never again after', async () => {
    const s = await settingsOf(asAlice);
    expect(s.surveys.map((x) => x.id)).toEqual(['customer_survey_v1']);
    expect(s.surveys[0].questions).toContain('YouTube');
    // The space settings carry it too.
    expect((await settingsOf(asAlice, { space_id: alice.defaultSpaceId })).surveys).toHaveLength(1);

    const added = await asAlice.POST('/api/survey/add', {
      body: { survey_id: 'customer_survey_v1', answers: ['YouTube'], comment: 'A review, with "quotes"\nand a new line' },
    });
    expect(added.response.status).toBe(201);
    expect(added.data).toEqual({ ok: true });
    expect((await settingsOf(asAlice)).surveys).toEqual([]);
    const again = await asAlice.POST('/api/survey/add', { body: { survey_id: 'customer_survey_v1', answers: ['Other'] } });
    expect(again.response.status).toBe(409);
    // A reject after the answer keeps the answer.
    const rejected = await asAlice.POST('/api/survey/reject', { body: { survey_id: 'customer_survey_v1' } });
    expect(rejected.response.status).toBe(200);
    expect(rejected.data).toEqual({ ok: true });
    const rows = await h.deps.db.query<{ status: string }>('SELECT status FROM survey_responses WHERE user_id = $1', [alice.id]);
    expect(rows).toEqual([{ status: 'answered' }]);
  });

  it('a reject hides it for good', async () => {
    expect((await asBob.POST('/api/survey/reject', { body: { survey_id: 'customer_survey_v1' } })).response.status).toBe(200);
    expect((await settingsOf(asBob)).surveys).toEqual([]);
    expect((await asBob.POST('/api/survey/add', { body: { survey_id: 'customer_survey_v1', answers: ['YouTube'] } })).response.status).toBe(409);
  });

  it('refuses bad input with clear errors', async () => {
    const carol = await makeUser(h, 'carol@example.com');
    const asCarol = typedClient(h, carol.token);
    expect((await asCarol.POST('/api/survey/add', { body: { survey_id: 'nope', answers: ['x'] } })).error).toEqual({ detail: 'Survey not found' });
    const notOffered = await asCarol.POST('/api/survey/add', { body: { survey_id: 'customer_survey_v1', answers: ['Bribery'] } });
    expect(notOffered.response.status).toBe(400);
    expect(notOffered.error!.detail).toBe('Answer not offered by this survey');
    const none = await asCarol.POST('/api/survey/add', { body: { survey_id: 'customer_survey_v1', answers: [] } });
    expect(none.response.status).toBe(422);
    expect(issuesOf(none.error)[0].msg).toBe('Choose at least one answer');
    expect((await typedClient(h).POST('/api/survey/reject', { body: { survey_id: 'customer_survey_v1' } })).response.status).toBe(401);
    // Nothing was stored for carol: she still sees it.
    expect((await settingsOf(asCarol)).surveys).toHaveLength(1);
  });
});

/** GET /api/admin/feedback as staff with a query, checked for 200. */
async function feedbackList(query: NonNullable<operations['get_admin_feedback']['parameters']['query']> = {}) {
  const r = await asStaff.GET('/api/admin/feedback', { params: { query } });
  expect(r.response.status).toBe(200);
  return r.data!;
}
/** GET /api/admin/users as staff with a query, checked for 200. */
async function customerList(query: NonNullable<operations['get_admin_users']['parameters']['query']> = {}) {
  const r = await asStaff.GET('/api/admin/users', { params: { query } });
  expect(r.response.status).toBe(200);
  return r.data!;
}

describe('feedback and the staff lists', () => {
  it('feedback is accepted on a failed job and listed for staff with e-mail and date filters', async () => {
    const failed = await project(alice, 'Broken upload', 'transcription_failed');
    const done = await project(bob, 'Fine one');
    const feedback = (id: string, body: components['schemas']['FeedbackRequest'], by: ReturnType<typeof typedClient>) =>
      by.POST('/api/project/{id}/feedback', { params: { path: { id } }, body });
    expect((await feedback(failed, { comment: 'Nothing, was, transcribed', options: ['Transcription is wrong'] }, asAlice)).response.status).toBe(200);
    expect((await feedback(done, { comment: '', options: ['Timing is off'] }, asBob)).response.status).toBe(200);
    // Someone else's project is refused.
    expect((await feedback(failed, { comment: 'x' }, asBob)).response.status).toBe(403);

    const all = await feedbackList();
    expect(all).toHaveLength(2);
    expect(all.every((f) => v.is(AdminFeedback, f))).toBe(true);
    expect(all[0]).toMatchObject({ email: 'bob@example.com', project_name: 'Fine one' });
    expect(all[1]).toMatchObject({ email: 'alice@example.com', project_status: 'transcription_failed', options: ['Transcription is wrong'] });

    expect((await feedbackList({ email: 'ALICE' })).map((f) => f.email)).toEqual(['alice@example.com']);
    const future = new Date(Date.now() + 3600_000).toISOString();
    const past = new Date(Date.now() - 3600_000).toISOString();
    expect(await feedbackList({ date_gt: future })).toEqual([]);
    expect(await feedbackList({ date_lt: past })).toEqual([]);
    expect(await feedbackList({ date_gt: past, date_lt: future })).toHaveLength(2);
    expect((await asStaff.GET('/api/admin/feedback', { params: { query: { date_gt: 'yesterday' } } })).response.status).toBe(422);

    const csv = await readCsv(await h.request('GET', '/api/admin/feedback/csv?email=alice', { token: staff.token }));
    expect(csv.records[0]).toEqual(['id', 'created_at', 'email', 'project_id', 'project_name', 'project_status', 'options', 'comment']);
    expect(csv.records).toHaveLength(2);
    expect(csv.records[1][7]).toBe('Nothing, was, transcribed');
  });

  it('lists survey answers and exports them, quoting commas, quotes and new lines', async () => {
    const list = await asStaff.GET('/api/admin/survey');
    expect(list.response.status).toBe(200);
    expect(list.data!.every((a) => v.is(AdminSurveyAnswer, a))).toBe(true);
    expect(list.data!.map((a) => [a.email, a.status]).sort()).toEqual([
      ['alice@example.com', 'answered'],
      ['bob@example.com', 'rejected'],
    ]);
    const r = await h.request('GET', '/api/admin/survey/csv?email=alice', { token: staff.token });
    expect(r.headers.get('content-type')).toBe('text/csv; charset=utf-8');
    expect(r.headers.get('content-disposition')).toBe('attachment; filename="survey.csv"');
    const csv = await readCsv(r);
    expect(csv.records).toHaveLength(2);
    expect(csv.records[1].slice(2)).toEqual(['alice@example.com', 'customer_survey_v1', 'How did you hear about us?', 'answered', 'YouTube', 'A review, with "quotes"\nand a new line']);
  });

  it('refuses every staff list and export to a non-superuser', async () => {
    for (const path of [
      '/api/admin/feedback', '/api/admin/feedback/csv', '/api/admin/survey', '/api/admin/survey/csv', '/api/admin/users', '/api/admin/users/csv',
    ] as const) {
      const r = await asAlice.GET(path);
      expect(r.response.status, path).toBe(403);
      expect(r.error).toEqual({ detail: 'Superuser required' });
      expect((await typedClient(h).GET(path)).response.status, path).toBe(401);
    }
  });

  it('customers list: date and plan filters, limit 20 with more on demand', async () => {
    const d = await customerList({ email: 'alice', date_gt: new Date(Date.now() - 3600_000).toISOString() });
    expect(d.map((u) => u.email)).toEqual(['alice@example.com']);
    expect(await customerList({ date_lt: new Date(Date.now() - 3600_000).toISOString() })).toEqual([]);
    expect(await customerList({ subscription_type: 'business' })).toEqual([]);
    expect((await customerList({ subscription_type: 'trial' })).length).toBeGreaterThanOrEqual(3);
    expect((await asStaff.GET('/api/admin/users', { params: { query: { subscription_type: 'gold' } } })).response.status).toBe(422);
  });
});

describe('a 10,000-row export', () => {
  it('streams every customer in pages, in order, without losing rows that share a sign-up time', async () => {
    await h.deps.db.exec(`
      INSERT INTO identities (provider, subject, email)
        SELECT 'password', 'bulk' || g || '@example.com', 'bulk' || g || '@example.com' FROM generate_series(1, 10000) g;
      INSERT INTO users (identity_id, email, created_date)
        SELECT id, email, timestamptz '2024-03-01 10:00:00.123456+00' FROM identities WHERE subject LIKE 'bulk%';`);
    // The list: 20 by default, more on demand.
    expect(await customerList()).toHaveLength(ADMIN_LIST_LIMIT);
    expect(await customerList({ limit: '40' })).toHaveLength(40);

    const r = await h.request('GET', '/api/admin/users/csv?email=bulk', { token: staff.token });
    expect(r.status).toBe(200);
    const csv = await readCsv(r);
    expect(csv.records).toHaveLength(10_001);
    // It arrived in pieces (the header, then a page at a time), not as one body.
    expect(csv.chunks).toBeGreaterThanOrEqual(11);
    const emails = new Set(csv.records.slice(1).map((row) => row[1]));
    expect(emails.size).toBe(10_000);
    // A limit caps the export.
    const capped = await readCsv(await h.request('GET', '/api/admin/users/csv?email=bulk&limit=900', { token: staff.token }));
    expect(capped.records).toHaveLength(901);
  }, 120_000);
});
