// Live project events over server-sent events, read with the same `eventsource` client the browser uses:
// GET /api/project/{id}/events opens with the current state and carries each status change and in-stage
// progress step of that project; GET /api/project/events?space_id= carries the space's projects and no other
// space's; a stranger is refused before any stream opens.
import { EventSource } from 'eventsource';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { STAGE_STATUS, setProgress, setStatus } from '../../../server/domains/projects/pipeline/stages';
import { makeSpeechVideo } from '../../fixtures/media';
import { createHarness, type Harness } from '../harness';
import { eventually } from '../helpers';
import { newUser, seedProject, uploadOk, type TestUser } from './projects-fixtures';
import { typedClient } from '../typed-client';

interface Ev { id: string; space_id: string; status: string; progress: number }

let h: Harness;
let u: TestUser;
let stranger: TestUser;
let mine: string;
let theirs: string;
const sources: EventSource[] = [];

/** An EventSource on the app in process, with the user's bearer token; collects the `project` events. */
function listen(path: string, token: string): { events: Ev[]; errors: number[] } {
  const got = { events: [] as Ev[], errors: [] as number[] };
  const es = new EventSource(`http://localhost${path}`, {
    fetch: (url, init) => Promise.resolve(h.app.request(String(url), { ...init, headers: { ...(init?.headers as Record<string, string>), authorization: `Bearer ${token}` } })),
  });
  es.addEventListener('project', (m) => got.events.push(JSON.parse(m.data) as Ev));
  es.addEventListener('error', (e) => {
    if (typeof (e as { code?: number }).code === 'number') got.errors.push((e as { code?: number }).code!);
  });
  sources.push(es);
  return got;
}

beforeAll(async () => {
  h = await createHarness();
  u = await newUser(h, 'live');
  stranger = await newUser(h, 'other');
  const video = await makeSpeechVideo({ seconds: 3 });
  mine = await seedProject(h, u, { mediaId: await uploadOk(h, u, video) });
  theirs = await seedProject(h, stranger, { mediaId: await uploadOk(h, stranger, video) });
}, 300_000);
afterAll(async () => {
  for (const s of sources) s.close();
  await h?.close();
});

describe('server-sent project events', () => {
  it("a project's stream: its current state first, then each status change and progress step", async () => {
    const s = listen(`/api/project/${mine}/events`, u.token);
    await eventually(async () => s.events.length, (n) => n >= 1, 15_000, 'the current state');
    expect(s.events[0]).toEqual({ id: mine, space_id: u.defaultSpaceId, status: 'translation_done', progress: expect.any(Number) });
    await setStatus(h.deps.db, mine, 'voiceover_started');
    await setProgress(h.deps.db, mine, STAGE_STATUS.voiceover!, 0.5);
    await setStatus(h.deps.db, theirs, 'voiceover_started');
    await eventually(async () => s.events.length, (n) => n >= 3, 15_000, 'the status and progress events');
    expect(s.events.slice(1).map((e) => [e.id, e.status])).toEqual([[mine, 'voiceover_started'], [mine, 'voiceover_started']]);
    expect(s.events[2]!.progress).toBeGreaterThan(s.events[1]!.progress);
  });

  it("the space's stream carries its projects and no other space's", async () => {
    const s = listen(`/api/project/events?space_id=${u.defaultSpaceId}`, u.token);
    // The stream is open once a first event of this space arrives.
    await eventually(
      async () => {
        await setStatus(h.deps.db, mine, 'voiceover_done');
        return s.events.length;
      },
      (n) => n >= 1,
      15_000,
      'the stream open',
    );
    await setStatus(h.deps.db, theirs, 'voiceover_done');
    await setStatus(h.deps.db, mine, 'merging_started');
    await eventually(async () => s.events.some((e) => e.status === 'merging_started'), (x) => x, 15_000, 'the merge event');
    expect(s.events.every((e) => e.id === mine && e.space_id === u.defaultSpaceId)).toBe(true);
  });

  it('is refused to someone outside the space, before any stream opens', async () => {
    const one = await typedClient(h, stranger.token).GET('/api/project/{id}/events', { params: { path: { id: mine } } });
    expect(one.response.status).toBe(403);
    const space = await typedClient(h, stranger.token).GET('/api/project/events', { params: { query: { space_id: u.defaultSpaceId } } });
    expect(space.response.status).toBe(403);
    expect((await typedClient(h).GET('/api/project/{id}/events', { params: { path: { id: mine } } })).response.status).toBe(401);
  });
});
