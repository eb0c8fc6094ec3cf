// The server of the first-hour journeys (tests/e2e/first-hour.test.ts): the real app in this process (PGlite in a
// temp DATA_DIR, the built front ends, the embedded build behind a test admin page, payments against the Stripe
// stand-in), so a journey can look a signed-up user up and seed an editable project into their space the way the
// pipeline leaves one, or spend their minutes through the ledger.
import { serve } from '@hono/node-server';
import { mkdtempSync, rmSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { buildDeps, shutdownDeps } from '../../server/bootstrap';
import { loadConfig } from '../../server/config';
import type { AppDeps } from '../../server/deps';
import * as ledger from '../../server/domains/billing/ledger';
import { insertProject, replaceSpeakers, setSpeakerVoice, updateProjectFields } from '../../server/domains/projects/repository';
import { insertSegments } from '../../server/domains/projects/transcript/repository';
import { findUserByEmail } from '../../server/domains/users/repository';
import { createApp } from '../../server/app/app';
import { DIST, ensureBuild } from './support';

export interface JourneyServer {
  url: string;
  deps: AppDeps;
  /** The signed-in user's access token, read from the page's stored session (standalone build). */
  tokenOf(page: Page): Promise<string>;
  userId(email: string): Promise<string>;
  /** An editable project (translation done) with these translations in the space. */
  seedProject(o: { spaceId: string; userId: string; name: string; duration: number; translations: string[] }): Promise<string>;
  /** Spends every minute left in the space (a ledger debit). */
  spendAllMinutes(spaceId: string): Promise<void>;
  close(): Promise<void>;
}

export async function startJourneyServer(env: Record<string, string>): Promise<JourneyServer> {
  ensureBuild();
  const dataDir = mkdtempSync(join(tmpdir(), 'ds-journey-'));
  const config = loadConfig({
    ...process.env,
    NODE_ENV: 'production',
    JWT_SECRET: 'journey-secret-journey-secret-journey-0019',
    DATA_DIR: dataDir,
    DATABASE_URL: '',
    REDIS_URL: '',
    EMBEDDED_WORKER: '0',
    LOG_LEVEL: 'warn',
    SUPPORT_EMAIL: '',
    HELP_CENTER_URL: '',
    SMTP_URL: '',
    ...env,
  });
  const deps = await buildDeps(config, { role: 'server' });
  const app = createApp(deps, { distDir: DIST, log: () => {} });
  const server = serve({ fetch: app.fetch, port: 0, hostname: '127.0.0.1' });
  await new Promise<void>((r) => server.once('listening', () => r()));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url,
    deps,
    async tokenOf(page) {
      const raw = await page.evaluate(() => localStorage.getItem('auth_session'));
      if (!raw) throw new Error('no stored session');
      return (JSON.parse(raw) as { access_token: string }).access_token;
    },
    async userId(email) {
      const u = await findUserByEmail(deps.db, email);
      if (!u) throw new Error(`no user ${email}`);
      return u.id;
    },
    async seedProject(o) {
      const project = await insertProject(deps.db, {
        spaceId: o.spaceId, userId: o.userId, name: o.name, srcLang: 'en', dstLang: 'es', mediaId: null, link: null,
        numSpeakers: 1, srcSrtMediaId: null, dstSrtMediaId: null, glossaryId: null, ttsProvider: null,
        status: 'translation_done', progress: 100,
      });
      await updateProjectFields(deps.db, project.id, { duration: o.duration });
      await replaceSpeakers(deps.db, project.id, [{ id: 'SPEAKER_00', name: 'Speaker 1', gender: 'male', pitch_hz: 110 }]);
      const voices = await deps.engines.voices('es');
      if (voices[0]) await setSpeakerVoice(deps.db, project.id, 'SPEAKER_00', voices[0].id, false);
      const step = o.duration / o.translations.length;
      await insertSegments(deps.db, project.id, o.translations.map((dst, i) => ({
        start: Math.round(i * step * 1000) / 1000,
        end: Math.round((i + 1) * step * 0.9 * 1000) / 1000,
        speaker: 'SPEAKER_00',
        src: `Sentence ${i + 1} of the source.`,
        dst,
        status: 'done' as const,
      })));
      return project.id;
    },
    async spendAllMinutes(spaceId) {
      const b = await ledger.balances(deps.db, spaceId);
      if (b.minutes.available <= 0) return;
      await deps.db.tx((t) => ledger.debit(t, { spaceId, minutes: b.minutes.available, ref: `journey:spend:${Date.now()}`, note: 'Test: spend every minute' }).then(() => undefined));
    },
    async close() {
      await new Promise((r) => server.close(r));
      await shutdownDeps(deps);
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
