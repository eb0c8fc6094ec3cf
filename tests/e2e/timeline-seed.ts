// A real in-process server (PGlite in a temp DATA_DIR, the built standalone front end) with one account and one
// project seeded straight into the database for the timeline editor: speakers, segments, and the source audio
// where ingest leaves it (projects/<id>/audio_16k.wav). Used by tests/e2e/timeline.test.ts, bench/timeline.ts and bench/editor.ts.
import { serve } from '@hono/node-server';
import { mkdtempSync, rmSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { BrowserContext } from 'playwright-core';
import { buildDeps, shutdownDeps } from '../../server/bootstrap';
import { loadConfig } from '../../server/config';
import type { AppDeps } from '../../server/deps';
import { insertProject, replaceSpeakers, setSpeakerVoice, updateProjectFields } from '../../server/domains/projects/repository';
import { insertSegments } from '../../server/domains/projects/transcript/repository';
import { createApp } from '../../server/app/app';
import { projectKey } from '../../server/storage/index';
import { DIST, ensureBuild } from './support';

export interface SeedSegment {
  start: number;
  end: number;
  speaker: string;
  src: string;
  dst: string;
}

export interface TimelineServer {
  base: string;
  deps: AppDeps;
  spaceId: string;
  token: string;
  /** Signs the browser context in (the session the app keeps in localStorage). */
  signIn(context: BrowserContext): Promise<void>;
  /** A project in translation_done with these segments; `sourceWav` becomes its extracted source audio, `sourceVideo` its video. */
  seedProject(o: { name: string; duration: number; segments: SeedSegment[]; speakers: Array<{ id: string; name: string }>; sourceWav?: string; sourceVideo?: string }): Promise<string>;
  close(): Promise<void>;
}

export async function startTimelineServer(email: string): Promise<TimelineServer> {
  ensureBuild();
  const dataDir = mkdtempSync(join(tmpdir(), 'ds-timeline-'));
  const config = loadConfig({
    ...process.env,
    NODE_ENV: 'production',
    JWT_SECRET: 'timeline-secret-timeline-secret-timeline-0003',
    DATA_DIR: dataDir,
    DATABASE_URL: '',
    REDIS_URL: '',
    EMBEDDED_WORKER: '0',
    LOG_LEVEL: 'warn',
  });
  const deps = await buildDeps(config, { role: 'server' });
  const app = createApp(deps, { distDir: DIST, log: () => {} });
  const server = serve({ fetch: app.fetch, port: 0, hostname: '127.0.0.1' });
  await new Promise<void>((r) => server.once('listening', () => r()));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const call = async (method: string, path: string, body?: unknown, token?: string) => {
    const res = await fetch(base + path, {
      method,
      headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    if (!res.ok) throw new Error(`${method} ${path}: ${res.status} ${await res.text()}`);
    return res.json() as Promise<unknown>;
  };
  const tokens = (await call('POST', '/api/auth/sign-up', { email, password: 'timeline-password-1' })) as { access_token: string; refresh_token: string; expires_in: number };
  const user = (await call('POST', '/api/users', { email }, tokens.access_token)) as { id: string };
  const spaces = (await call('GET', '/api/space/list', undefined, tokens.access_token)) as { id: string }[];
  const spaceId = spaces[0]!.id;
  return {
    base,
    deps,
    spaceId,
    token: tokens.access_token,
    async signIn(context) {
      const session = { access_token: tokens.access_token, refresh_token: tokens.refresh_token, expires_at: Date.now() + tokens.expires_in * 1000 };
      await context.addInitScript(`localStorage.setItem('auth_session', ${JSON.stringify(JSON.stringify(session))});`);
    },
    async seedProject(o) {
      const project = await insertProject(deps.db, {
        spaceId, userId: user.id, name: o.name, srcLang: 'en', dstLang: 'es', mediaId: null, link: null,
        numSpeakers: o.speakers.length, srcSrtMediaId: null, dstSrtMediaId: null, glossaryId: null, ttsProvider: null,
        status: 'translation_done', progress: 100,
      });
      await updateProjectFields(deps.db, project.id, { duration: o.duration });
      await replaceSpeakers(deps.db, project.id, o.speakers.map((s, i) => ({ id: s.id, name: s.name, gender: i % 2 ? 'female' : 'male', pitch_hz: i % 2 ? 200 : 110 })));
      const voices = await deps.engines.voices('es');
      for (const s of o.speakers) if (voices[0]) await setSpeakerVoice(deps.db, project.id, s.id, voices[0].id, false);
      for (let i = 0; i < o.segments.length; i += 500) {
        await insertSegments(deps.db, project.id, o.segments.slice(i, i + 500).map((s) => ({ ...s, status: 'done' as const })));
      }
      if (o.sourceWav) await deps.storage.putFile(projectKey(project.id, 'audio_16k.wav'), o.sourceWav);
      if (o.sourceVideo) {
        const key = projectKey(project.id, 'source.mp4');
        await deps.storage.putFile(key, o.sourceVideo);
        await updateProjectFields(deps.db, project.id, { original_video: key });
      }
      return project.id;
    },
    async close() {
      await new Promise((r) => server.close(r));
      await shutdownDeps(deps);
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
