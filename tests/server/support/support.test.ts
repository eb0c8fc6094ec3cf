// Support chat: the user writes from inside the app (page and project attached), staff read and answer in the
// inbox, the user sees the answer (and gets it by e-mail through SMTP); who may read which thread.
import * as v from 'valibot';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SupportConversation, SupportThread } from '../../../contract/schemas/onboarding';
import { createHarness, type Harness } from '../harness';
import { startSmtpSink, type SmtpSink } from '../smtp-sink';
import { makeUser, type TestUser } from '../spaces/spaces-fixtures';
import { issuesOf, typedClient } from '../typed-client';

let h: Harness;
let sink: SmtpSink;
let staff: TestUser;
let alice: TestUser;
let bob: TestUser;
let aliceProject: string;
let bobProject: string;

async function project(u: TestUser, name: string): Promise<string> {
  const r = await h.deps.db.one<{ id: string }>(
    `INSERT INTO projects (space_id, user_id, name, src_lang, dst_lang) VALUES ($1, $2, $3, 'en', 'es') RETURNING id`,
    [u.defaultSpaceId, u.id, name],
  );
  return r.id;
}

beforeAll(async () => {
  sink = await startSmtpSink();
  h = await createHarness({ SMTP_URL: sink.url, SUPPORT_EMAIL: 'help@studio.example', PUBLIC_URL: 'https://studio.example' });
  staff = await makeUser(h, 'staff@example.com', { superuser: true });
  alice = await makeUser(h, 'alice@example.com');
  bob = await makeUser(h, 'bob@example.com');
  aliceProject = await project(alice, 'Alice interview');
  bobProject = await project(bob, 'Bob secret');
});
afterAll(async () => {
  await h?.close();
  await sink?.close();
});

/** GET /api/support/thread as `by`, checked for 200. */
async function ownThread(by: ReturnType<typeof typedClient>, query: { read?: string } = {}) {
  const r = await by.GET('/api/support/thread', { params: { query } });
  expect(r.response.status).toBe(200);
  return r.data!;
}
/** GET /api/admin/support/threads as staff, checked for 200. */
async function inbox(query: { status?: string } = {}) {
  const r = await typedClient(h, staff.token).GET('/api/admin/support/threads', { params: { query } });
  expect(r.response.status).toBe(200);
  return r.data!;
}
const openThread = (id: string, by: ReturnType<typeof typedClient>) =>
  by.GET('/api/admin/support/threads/{id}', { params: { path: { id } } });
const answerThread = (id: string, body: string, by: ReturnType<typeof typedClient>) =>
  by.POST('/api/admin/support/threads/{id}/messages', { params: { path: { id } }, body: { body } });

describe('support chat', () => {
  it('a user writes with the page and project; staff see it in the inbox and answer; the user sees the answer', async () => {
    const asAlice = typedClient(h, alice.token);
    const asStaff = typedClient(h, staff.token);
    const empty = await ownThread(asAlice);
    expect(empty).toEqual({ thread: null, messages: [] });

    const sent = await asAlice.POST('/api/support/messages', {
      body: { body: 'My dub is silent', page: `/spaces/${alice.defaultSpaceId}/project/${aliceProject}`, project_id: aliceProject },
    });
    expect(sent.response.status).toBe(201);
    expect(v.is(SupportConversation, sent.data)).toBe(true);
    expect(sent.data!.thread!.status).toBe('open');
    expect(sent.data!.messages).toHaveLength(1);
    expect(sent.data!.messages[0]).toMatchObject({ body: 'My dub is silent', from_staff: false, project_id: aliceProject, project_name: 'Alice interview' });
    // Support was notified by e-mail.
    expect(sink.messages.some((m) => m.to.includes('help@studio.example') && m.data.includes('My dub is silent'))).toBe(true);

    const threads = await inbox({ status: 'open' });
    expect(threads).toHaveLength(1);
    expect(v.is(SupportThread, threads[0])).toBe(true);
    expect(threads[0]).toMatchObject({ user_email: 'alice@example.com', unread: 1, last_message: 'My dub is silent' });

    const opened = await openThread(threads[0].id, asStaff);
    expect(opened.response.status).toBe(200);
    expect(v.is(SupportConversation, opened.data)).toBe(true);
    expect(opened.data!.messages[0].page).toBe(`/spaces/${alice.defaultSpaceId}/project/${aliceProject}`);
    expect((await inbox())[0].unread).toBe(0);

    const answered = await answerThread(threads[0].id, 'Press Generate again', asStaff);
    expect(answered.response.status).toBe(201);
    expect(answered.data!.emailed).toBe(true);
    expect(answered.data!.thread!.status).toBe('answered');
    const mail = sink.messages.find((m) => m.to.includes('alice@example.com'));
    expect(mail?.data).toContain('Press Generate again');

    const mine = await ownThread(asAlice);
    expect(mine.thread!.unread).toBe(1);
    expect(mine.messages.map((m) => [m.body, m.from_staff])).toEqual([
      ['My dub is silent', false],
      ['Press Generate again', true],
    ]);
    // Reading with the panel open marks the answer as seen.
    await ownThread(asAlice, { read: '1' });
    expect((await ownThread(asAlice)).thread!.unread).toBe(0);
    expect(await inbox({ status: 'answered' })).toHaveLength(1);
  });

  it('refuses a non-superuser the inbox and another user\'s thread', async () => {
    const asBob = typedClient(h, bob.token);
    const aliceThread = (await inbox()).find((t) => t.user_email === 'alice@example.com')!.id;
    expect((await asBob.GET('/api/admin/support/threads')).response.status, 'GET /api/admin/support/threads').toBe(403);
    expect((await openThread(aliceThread, asBob)).response.status, 'GET /api/admin/support/threads/{id}').toBe(403);
    expect((await answerThread(aliceThread, 'I am staff, trust me', asBob)).response.status, 'POST /api/admin/support/threads/{id}/messages').toBe(403);
    expect((await typedClient(h).GET('/api/support/thread')).response.status).toBe(401);
    // Bob's own thread shows nothing of Alice's.
    expect(await ownThread(asBob)).toEqual({ thread: null, messages: [] });
    // No answer was stored by the refused call.
    const again = await ownThread(typedClient(h, alice.token));
    expect(again.messages.map((m) => m.body)).not.toContain('I am staff, trust me');
  });

  it('refuses attaching a project the user may not see, and bad input', async () => {
    const asAlice = typedClient(h, alice.token);
    const asStaff = typedClient(h, staff.token);
    const r = await asAlice.POST('/api/support/messages', { body: { body: 'look at this', project_id: bobProject } });
    expect(r.response.status).toBe(404);
    expect(r.error!.detail).toBe('Project not found');
    const blank = await asAlice.POST('/api/support/messages', { body: { body: '   ' } });
    expect(blank.response.status).toBe(422);
    expect(issuesOf(blank.error)[0].loc).toEqual(['body', 'body']);
    const badId = await asAlice.POST('/api/support/messages', { body: { body: 'x', project_id: 'nope' } });
    expect(badId.response.status).toBe(422);
    expect((await openThread('00000000-0000-4000-8000-000000000000', asStaff)).response.status).toBe(404);
    expect((await answerThread('nope', 'x', asStaff)).response.status).toBe(404);
  });

  it('settings carry the support address and help center', async () => {
    const s = await typedClient(h, alice.token).GET('/api/settings');
    expect(s.response.status).toBe(200);
    expect(s.data!.support).toEqual({ email: 'help@studio.example', help_center_url: null });
    expect(s.data!.sister_app).toBe(false);
  });
});
