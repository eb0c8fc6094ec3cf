// Support chat: the user writes from inside the app (page and project attached), staff read and answer in the
// inbox, the user sees the answer (and gets it by e-mail through SMTP); who may read which thread.
import * as v from 'valibot';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SupportConversation, SupportThread } from '../../../contract/schemas/onboarding';
import { createHarness, type Harness } from '../harness';
import { startSmtpSink, type SmtpSink } from '../smtp-sink';
import { call, makeUser, ok, type TestUser } from '../spaces/spaces-fixtures';

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

describe('support chat', () => {
  it('a user writes with the page and project; staff see it in the inbox and answer; the user sees the answer', async () => {
    const empty = await ok(h, alice, 'GET', '/api/support/thread');
    expect(empty).toEqual({ thread: null, messages: [] });

    const sent = await ok(h, alice, 'POST', '/api/support/messages', {
      body: 'My dub is silent',
      page: `/spaces/${alice.defaultSpaceId}/project/${aliceProject}`,
      project_id: aliceProject,
    }, 201);
    expect(v.is(SupportConversation, sent)).toBe(true);
    expect(sent.thread.status).toBe('open');
    expect(sent.messages).toHaveLength(1);
    expect(sent.messages[0]).toMatchObject({ body: 'My dub is silent', from_staff: false, project_id: aliceProject, project_name: 'Alice interview' });
    // Support was notified by e-mail.
    expect(sink.messages.some((m) => m.to.includes('help@studio.example') && m.data.includes('My dub is silent'))).toBe(true);

    const threads = await ok(h, staff, 'GET', '/api/admin/support/threads?status=open');
    expect(threads).toHaveLength(1);
    expect(v.is(SupportThread, threads[0])).toBe(true);
    expect(threads[0]).toMatchObject({ user_email: 'alice@example.com', unread: 1, last_message: 'My dub is silent' });

    const opened = await ok(h, staff, 'GET', `/api/admin/support/threads/${threads[0].id}`);
    expect(v.is(SupportConversation, opened)).toBe(true);
    expect(opened.messages[0].page).toBe(`/spaces/${alice.defaultSpaceId}/project/${aliceProject}`);
    expect((await ok(h, staff, 'GET', '/api/admin/support/threads'))[0].unread).toBe(0);

    const answered = await ok(h, staff, 'POST', `/api/admin/support/threads/${threads[0].id}/messages`, { body: 'Press Generate again' }, 201);
    expect(answered.emailed).toBe(true);
    expect(answered.thread.status).toBe('answered');
    const mail = sink.messages.find((m) => m.to.includes('alice@example.com'));
    expect(mail?.data).toContain('Press Generate again');

    const mine = await ok(h, alice, 'GET', '/api/support/thread');
    expect(mine.thread.unread).toBe(1);
    expect(mine.messages.map((m: { body: string; from_staff: boolean }) => [m.body, m.from_staff])).toEqual([
      ['My dub is silent', false],
      ['Press Generate again', true],
    ]);
    // Reading with the panel open marks the answer as seen.
    await ok(h, alice, 'GET', '/api/support/thread?read=1');
    expect((await ok(h, alice, 'GET', '/api/support/thread')).thread.unread).toBe(0);
    expect((await ok(h, staff, 'GET', '/api/admin/support/threads?status=answered'))).toHaveLength(1);
  });

  it('refuses a non-superuser the inbox and another user\'s thread', async () => {
    const threads = await ok(h, staff, 'GET', '/api/admin/support/threads');
    const aliceThread = threads.find((t: { user_email: string }) => t.user_email === 'alice@example.com').id;
    for (const [method, path, body] of [
      ['GET', '/api/admin/support/threads', undefined],
      ['GET', `/api/admin/support/threads/${aliceThread}`, undefined],
      ['POST', `/api/admin/support/threads/${aliceThread}/messages`, { body: 'I am staff, trust me' }],
    ] as const) {
      const r = await call(h, bob, method, path, body);
      expect(r.status, `${method} ${path}`).toBe(403);
    }
    expect((await call(h, null, 'GET', '/api/support/thread')).status).toBe(401);
    // Bob's own thread shows nothing of Alice's.
    expect(await ok(h, bob, 'GET', '/api/support/thread')).toEqual({ thread: null, messages: [] });
    // No answer was stored by the refused call.
    const again = await ok(h, alice, 'GET', '/api/support/thread');
    expect(again.messages.map((m: { body: string }) => m.body)).not.toContain('I am staff, trust me');
  });

  it('refuses attaching a project the user may not see, and bad input', async () => {
    const r = await call(h, alice, 'POST', '/api/support/messages', { body: 'look at this', project_id: bobProject });
    expect(r.status).toBe(404);
    expect(r.json.detail).toBe('Project not found');
    const blank = await call(h, alice, 'POST', '/api/support/messages', { body: '   ' });
    expect(blank.status).toBe(422);
    expect(blank.json.detail[0].loc).toEqual(['body', 'body']);
    const badId = await call(h, alice, 'POST', '/api/support/messages', { body: 'x', project_id: 'nope' });
    expect(badId.status).toBe(422);
    expect((await call(h, staff, 'GET', '/api/admin/support/threads/00000000-0000-4000-8000-000000000000')).status).toBe(404);
    expect((await call(h, staff, 'POST', '/api/admin/support/threads/nope/messages', { body: 'x' })).status).toBe(404);
  });

  it('settings carry the support address and help center', async () => {
    const s = await ok(h, alice, 'GET', '/api/settings');
    expect(s.support).toEqual({ email: 'help@studio.example', help_center_url: null });
    expect(s.sister_app).toBe(false);
  });
});
