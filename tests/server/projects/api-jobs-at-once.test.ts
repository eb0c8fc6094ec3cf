// The plan's jobs at once hold under concurrency (issue 26): 20 simultaneous create_transcript calls of an API
// caller over HTTP start exactly the plan's number of jobs; the others are refused (429) with the usual message.
// Runs on PGlite, and on PostgreSQL with TEST_DB=pg.
import { serve } from '@hono/node-server';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeSpeechVideo } from '../../fixtures/media';
import { createHarness, type Harness } from '../harness';
import { createTyped, newUser, uploadOk } from './projects-fixtures';
import { typedClient } from '../typed-client';
import { grantPlan } from '../spaces/spaces-fixtures';

let h: Harness;
let server: ReturnType<typeof serve>;
let base: string;

beforeAll(async () => {
  h = await createHarness({ API_KEY_RATE_PER_MINUTE: '600' });
  await new Promise<void>((resolve) => {
    server = serve({ fetch: h.app.fetch, port: 0, hostname: '127.0.0.1' }, () => resolve());
  });
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}, 120_000);
afterAll(async () => {
  await new Promise((r) => server?.close(r));
  await h?.close();
});

describe('jobs at once', () => {
  it('20 concurrent create_transcript calls of a business API caller: exactly 4 start, 16 get 429', async () => {
    const u = await newUser(h, 'burst');
    await grantPlan(h, u.id, 'business');
    const k = await typedClient(h, u.token).POST('/api/users/settings/api/credentials', { body: { name: 'burst' } });
    expect(k.response.status, JSON.stringify(k.error)).toBe(201);
    const key = k.data!.key;
    const mediaId = await uploadOk(h, u, await makeSpeechVideo({ seconds: 2 }));
    const create = { name: 'Burst', src_lang: 'en', dst_lang: 'es', media_id: mediaId };
    const body = JSON.stringify(create);
    const answers = await Promise.all(
      Array.from({ length: 20 }, async () => {
        const r = await fetch(`${base}/api/project/create_transcript?space_id=${u.defaultSpaceId}`, {
          method: 'POST',
          headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
          body,
        });
        return { status: r.status, json: (await r.json()) as { detail?: string; code?: string; limit?: number } };
      }),
    );
    const ok = answers.filter((a) => a.status === 200);
    const refused = answers.filter((a) => a.status === 429);
    expect(answers.map((a) => a.status).sort(), JSON.stringify(answers.filter((a) => a.status !== 200 && a.status !== 429))).toEqual(
      [...Array(4).fill(200), ...Array(16).fill(429)],
    );
    expect(ok).toHaveLength(4);
    for (const r of refused) {
      expect(r.json).toMatchObject({ code: 'concurrent_jobs', limit: 4 });
      expect(r.json.detail).toMatch(/^Your plan runs at most 4 jobs at once: \d+ running\. Try again when one is done$/);
    }
    const projects = await h.deps.db.one<{ n: number }>('SELECT count(*)::int AS n FROM projects WHERE user_id = $1', [u.id]);
    expect(Number(projects.n)).toBe(4);
    // The claims are gone once the calls have answered; the next call is still refused (4 jobs run).
    expect(Number((await h.deps.db.one<{ n: number }>('SELECT count(*)::int AS n FROM job_start_claims')).n)).toBe(0);
    const next = await createTyped(h, u, create, { token: key });
    expect(next.response.status).toBe(429);
    expect(next.error).toMatchObject({ code: 'concurrent_jobs', limit: 4, running: 4 });
  });
});
