// Surveys (shown once), project feedback (also on failed jobs) and the staff lists: e-mail and date filters,
// limit 20 with more on demand, CSV exports (escaping, a 10,000-row export that streams); superusers only.
import * as v from 'valibot';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_LIST_LIMIT } from '../../../contract/constants';
import { AdminFeedback, AdminSurvey, AdminSurveyAnswer } from '../../../contract/schemas/onboarding';
import { createHarness, type Harness } from '../harness';
import { call, makeUser, ok, type TestUser } from '../spaces/spaces-fixtures';

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

beforeAll(async () => {
  h = await createHarness();
  staff = await makeUser(h, 'staff@example.com', { superuser: true });
  alice = await makeUser(h, 'alice@example.com');
  bob = await makeUser(h, 'bob@example.com');
});

describe('survey switch (staff)', () => {
  it('is off until staff switch it on; only superusers may', async () => {
    expect((await ok(h, alice, 'GET', '/api/settings')).surveys).toEqual([]);
    expect((await call(h, alice, 'PATCH', '/api/admin/survey/surveys/customer_survey_v1', { active: true })).status).toBe(403);
    const surveys = await ok(h, staff, 'GET', '/api/admin/survey/surveys');
    expect(v.is(v.array(AdminSurvey), surveys)).toBe(true);
    expect(surveys.map((s: { id: string; active: boolean }) => [s.id, s.active])).toEqual([['customer_survey_v1', false]]);
    const on = await ok(h, staff, 'PATCH', '/api/admin/survey/surveys/customer_survey_v1', { active: true });
    expect(on.active).toBe(true);
    expect((await call(h, staff, 'PATCH', '/api/admin/survey/surveys/nope', { active: true })).status).toBe(404);
  });
});
afterAll(async () => {
  await h?.close();
});

describe('surveys', () => {
  it('settings carry the active survey until it is answered, and never again after', async () => {
    const s = await ok(h, alice, 'GET', '/api/settings');
    expect(s.surveys.map((x: { id: string }) => x.id)).toEqual(['customer_survey_v1']);
    expect(s.surveys[0].questions).toContain('YouTube');
    // The space settings carry it too.
    expect((await ok(h, alice, 'GET', `/api/settings?space_id=${alice.defaultSpaceId}`)).surveys).toHaveLength(1);

    await ok(h, alice, 'POST', '/api/survey/add', { survey_id: 'customer_survey_v1', answers: ['YouTube'], comment: 'A review, with "quotes"\nand a new line' }, 201);
    expect((await ok(h, alice, 'GET', '/api/settings')).surveys).toEqual([]);
    const again = await call(h, alice, 'POST', '/api/survey/add', { survey_id: 'customer_survey_v1', answers: ['Other'] });
    expect(again.status).toBe(409);
    // A reject after the answer keeps the answer.
    await ok(h, alice, 'POST', '/api/survey/reject', { survey_id: 'customer_survey_v1' });
    const rows = await h.deps.db.query<{ status: string }>('SELECT status FROM survey_responses WHERE user_id = $1', [alice.id]);
    expect(rows).toEqual([{ status: 'answered' }]);
  });

  it('a reject hides it for good', async () => {
    await ok(h, bob, 'POST', '/api/survey/reject', { survey_id: 'customer_survey_v1' });
    expect((await ok(h, bob, 'GET', '/api/settings')).surveys).toEqual([]);
    expect((await call(h, bob, 'POST', '/api/survey/add', { survey_id: 'customer_survey_v1', answers: ['YouTube'] })).status).toBe(409);
  });

  it('refuses bad input with clear errors', async () => {
    const carol = await makeUser(h, 'carol@example.com');
    expect((await call(h, carol, 'POST', '/api/survey/add', { survey_id: 'nope', answers: ['x'] })).json).toEqual({ detail: 'Survey not found' });
    const notOffered = await call(h, carol, 'POST', '/api/survey/add', { survey_id: 'customer_survey_v1', answers: ['Bribery'] });
    expect(notOffered.status).toBe(400);
    expect(notOffered.json.detail).toBe('Answer not offered by this survey');
    const none = await call(h, carol, 'POST', '/api/survey/add', { survey_id: 'customer_survey_v1', answers: [] });
    expect(none.status).toBe(422);
    expect(none.json.detail[0].msg).toBe('Choose at least one answer');
    expect((await call(h, null, 'POST', '/api/survey/reject', { survey_id: 'customer_survey_v1' })).status).toBe(401);
    // Nothing was stored for carol: she still sees it.
    expect((await ok(h, carol, 'GET', '/api/settings')).surveys).toHaveLength(1);
  });
});

describe('feedback and the staff lists', () => {
  it('feedback is accepted on a failed job and listed for staff with e-mail and date filters', async () => {
    const failed = await project(alice, 'Broken upload', 'transcription_failed');
    const done = await project(bob, 'Fine one');
    await ok(h, alice, 'POST', `/api/project/${failed}/feedback`, { comment: 'Nothing, was, transcribed', options: ['Transcription is wrong'] });
    await ok(h, bob, 'POST', `/api/project/${done}/feedback`, { comment: '', options: ['Timing is off'] });
    // Someone else's project is refused.
    expect((await call(h, bob, 'POST', `/api/project/${failed}/feedback`, { comment: 'x' })).status).toBe(403);

    const all = await ok(h, staff, 'GET', '/api/admin/feedback');
    expect(all).toHaveLength(2);
    expect(all.every((f: unknown) => v.is(AdminFeedback, f))).toBe(true);
    expect(all[0]).toMatchObject({ email: 'bob@example.com', project_name: 'Fine one' });
    expect(all[1]).toMatchObject({ email: 'alice@example.com', project_status: 'transcription_failed', options: ['Transcription is wrong'] });

    expect((await ok(h, staff, 'GET', '/api/admin/feedback?email=ALICE')).map((f: { email: string }) => f.email)).toEqual(['alice@example.com']);
    const future = new Date(Date.now() + 3600_000).toISOString();
    const past = new Date(Date.now() - 3600_000).toISOString();
    expect(await ok(h, staff, 'GET', `/api/admin/feedback?date_gt=${encodeURIComponent(future)}`)).toEqual([]);
    expect(await ok(h, staff, 'GET', `/api/admin/feedback?date_lt=${encodeURIComponent(past)}`)).toEqual([]);
    expect(await ok(h, staff, 'GET', `/api/admin/feedback?date_gt=${encodeURIComponent(past)}&date_lt=${encodeURIComponent(future)}`)).toHaveLength(2);
    expect((await call(h, staff, 'GET', '/api/admin/feedback?date_gt=yesterday')).status).toBe(422);

    const csv = await readCsv(await h.request('GET', '/api/admin/feedback/csv?email=alice', { token: staff.token }));
    expect(csv.records[0]).toEqual(['id', 'created_at', 'email', 'project_id', 'project_name', 'project_status', 'options', 'comment']);
    expect(csv.records).toHaveLength(2);
    expect(csv.records[1][7]).toBe('Nothing, was, transcribed');
  });

  it('lists survey answers and exports them, quoting commas, quotes and new lines', async () => {
    const list = await ok(h, staff, 'GET', '/api/admin/survey');
    expect(list.every((a: unknown) => v.is(AdminSurveyAnswer, a))).toBe(true);
    expect(list.map((a: { email: string; status: string }) => [a.email, a.status]).sort()).toEqual([
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
    ]) {
      const r = await call(h, alice, 'GET', path);
      expect(r.status, path).toBe(403);
      expect(r.json).toEqual({ detail: 'Superuser required' });
      expect((await call(h, null, 'GET', path)).status, path).toBe(401);
    }
  });

  it('customers list: date and plan filters, limit 20 with more on demand', async () => {
    const d = (await ok(h, staff, 'GET', `/api/admin/users?email=alice&date_gt=${encodeURIComponent(new Date(Date.now() - 3600_000).toISOString())}`));
    expect(d.map((u: { email: string }) => u.email)).toEqual(['alice@example.com']);
    expect(await ok(h, staff, 'GET', `/api/admin/users?date_lt=${encodeURIComponent(new Date(Date.now() - 3600_000).toISOString())}`)).toEqual([]);
    expect((await ok(h, staff, 'GET', '/api/admin/users?subscription_type=business'))).toEqual([]);
    expect((await ok(h, staff, 'GET', '/api/admin/users?subscription_type=trial')).length).toBeGreaterThanOrEqual(3);
    expect((await call(h, staff, 'GET', '/api/admin/users?subscription_type=gold')).status).toBe(422);
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
    expect(await ok(h, staff, 'GET', '/api/admin/users')).toHaveLength(ADMIN_LIST_LIMIT);
    expect(await ok(h, staff, 'GET', '/api/admin/users?limit=40')).toHaveLength(40);

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
