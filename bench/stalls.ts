// Stalls benchmark (issue 26 §2): for each request path that loops over user-sized input, the input size, the
// time it takes and the longest event-loop stall while it runs (a 2 ms interval probe: the largest gap between
// two ticks beyond the interval); for the Dictionary CSV import also GET /api/health latency (p99, max), asked
// one after another over HTTP while the import runs on the real server (PGlite in a temp DATA_DIR).
// Run: `npm run bench stalls` (or node --import tsx bench/stalls.ts [--sizes=10000,50000,200000]).
import { serve } from '@hono/node-server';
import { mkdtempSync, rmSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { buildDeps, shutdownDeps } from '../server/bootstrap';
import { loadConfig } from '../server/config';
import { upsertSubscription } from '../server/domains/billing/repository';
import { insertProject } from '../server/domains/projects/repository';
import { copySegments, insertSegments, setSegmentFits, setSegmentSpeakers, setSegmentTranslations } from '../server/domains/projects/transcript/repository';
import { checkSegmentTerms } from '../server/domains/glossaries/check';
import { createApp } from '../server/app/app';
import { parseSrt, toSrt } from '../server/media/subtitles';

export interface StallRow {
  path: string;
  size: string;
  ms: number;
  stallMs: number;
  status?: number;
  healthP99Ms?: number;
  healthMaxMs?: number;
  healthCount?: number;
  healthErrors?: number;
}

/** Runs fn while a 2 ms interval probe records the longest gap between its ticks (the stall). */
async function withProbe<T>(fn: () => Promise<T> | T): Promise<{ value: T; ms: number; stallMs: number }> {
  const every = 2;
  let last = performance.now();
  let worst = 0;
  const timer = setInterval(() => {
    const now = performance.now();
    worst = Math.max(worst, now - last - every);
    last = now;
  }, every);
  const t0 = performance.now();
  try {
    const value = await fn();
    const ms = performance.now() - t0;
    await new Promise((r) => setTimeout(r, every * 3)); // the tick after a synchronous fn records its stall
    return { value, ms, stallMs: Math.max(0, worst) };
  } finally {
    clearInterval(timer);
  }
}

const pct = (xs: number[], p: number) => {
  if (xs.length === 0) return 0;
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.ceil((p / 100) * s.length) - 1)]!;
};

const csvOf = (n: number) => {
  const lines = ['source,target'];
  for (let i = 0; i < n; i++) lines.push(`term${i},término${i}`);
  return `${lines.join('\n')}\n`;
};

export async function runStallsBench(o: { sizes?: number[]; log?: (l: string) => void } = {}): Promise<StallRow[]> {
  const sizes = o.sizes ?? [10_000, 50_000, 200_000];
  const log = o.log ?? ((l: string) => console.log(l));
  const rows: StallRow[] = [];
  const dataDir = mkdtempSync(join(tmpdir(), 'ds-bench-stalls-'));
  const config = loadConfig({
    ...process.env, NODE_ENV: 'production', JWT_SECRET: 'bench-secret-bench-secret-bench-secret-0001',
    DATA_DIR: dataDir, DATABASE_URL: '', REDIS_URL: '', EMBEDDED_WORKER: '0', LOG_LEVEL: 'warn',
  });
  const deps = await buildDeps(config, { role: 'server' });
  const app = createApp(deps, { distDir: null, log: () => {} });
  const server = serve({ fetch: app.fetch, port: 0, hostname: '127.0.0.1' });
  await new Promise<void>((r) => server.once('listening', () => r()));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  try {
    const call = async (method: string, path: string, body?: unknown, token?: string, type = 'application/json') => {
      const res = await fetch(base + path, {
        method,
        headers: { 'content-type': type, ...(token ? { authorization: `Bearer ${token}` } : {}) },
        body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body),
      });
      const text = await res.text();
      return { status: res.status, json: (text.startsWith('{') || text.startsWith('[') ? JSON.parse(text) : text) as Record<string, unknown> };
    };
    const su = await call('POST', '/api/auth/sign-up', { email: 'stalls@example.com', password: 'bench-password-1' });
    const token = String(su.json.access_token);
    const me = await call('POST', '/api/users', { email: 'stalls@example.com' }, token);
    const userId = String(me.json.id ?? me.json.user_id);
    await upsertSubscription(deps.db, {
      id: 'sub_bench_stalls', userId, tier: 'business', status: 'active', interval: 'month',
      currentPeriodEnd: new Date(Date.now() + 30 * 86_400_000),
    });
    const spaceId = (await deps.db.one<{ id: string }>(`SELECT id FROM spaces WHERE owner_id = $1 AND is_default`, [userId])).id;

    // 1. Dictionary CSV import, GET /api/health asked one after another meanwhile.
    for (const n of sizes) {
      const g = await call('POST', `/api/glossary?space_id=${spaceId}`, { name: `Bench ${n}`, source_lang: 'en', target_lang: 'es' }, token);
      const id = String(g.json.id);
      const csv = csvOf(n);
      const health: number[] = [];
      let healthErrors = 0;
      let done = false;
      const probe = (async () => {
        while (!done) {
          const t = performance.now();
          // A keep-alive socket the server closed while its loop was held resets: counted, asked again.
          const ok = await fetch(`${base}/api/health`).then((r) => r.arrayBuffer().then(() => true), () => false);
          if (!ok) healthErrors++;
          else if (!done) health.push(performance.now() - t);
          await new Promise((r) => setTimeout(r, 10));
        }
      })();
      const r = await withProbe(async () => {
        try {
          return await call('POST', `/api/glossary/${id}/import?space_id=${spaceId}`, csv, token, 'text/csv');
        } finally {
          done = true;
        }
      });
      await probe;
      rows.push({
        path: 'POST /api/glossary/{id}/import', size: `${n.toLocaleString('en-US')} rows (${(csv.length / 1e6).toFixed(1)} MB)`,
        ms: r.ms, stallMs: r.stallMs, status: r.value.status,
        healthP99Ms: pct(health, 99), healthMaxMs: pct(health, 100), healthCount: health.length, healthErrors,
      });
    }

    // 2. SRT parsing (source/target SRT uploads): parseSrt on a file of n cues.
    for (const n of [5_000, 50_000]) {
      const srt = toSrt(Array.from({ length: n }, (_, i) => ({ start: i * 2, end: i * 2 + 1.5, text: `Line ${i} of the subtitles` })));
      const r = await withProbe(() => parseSrt(srt).length);
      rows.push({ path: 'SRT parsing (parseSrt)', size: `${n.toLocaleString('en-US')} cues (${(srt.length / 1e6).toFixed(1)} MB)`, ms: r.ms, stallMs: r.stallMs });
    }

    // 3. Dictionary terms per segment (transcript GET answers, quality report, translation): segments x terms.
    for (const [segs, terms] of [[1_000, 1_000], [1_000, 10_000]] as const) {
      const entries = Array.from({ length: terms }, (_, i) => ({ source: `term${i}`, target: `término${i}` }));
      const r = await withProbe(() => {
        let found = 0;
        for (let s = 0; s < segs; s++) found += checkSegmentTerms(`We say term${s} here`, `Decimos término${s} aquí`, entries).found.length;
        return found;
      });
      rows.push({ path: 'Dictionary check (checkSegmentTerms)', size: `${segs.toLocaleString('en-US')} segments x ${terms.toLocaleString('en-US')} terms`, ms: r.ms, stallMs: r.stallMs });
    }

    // 4. The transcription's insert of a long video's segments with their words (the end of the transcription stage:
    // an hour of talk is about 1,200 segments of 10-20 words with times and confidences).
    for (const n of [1_200]) {
      const project = await insertProject(deps.db, {
        spaceId, userId, name: `Bench insert ${n}`, srcLang: 'en', dstLang: 'es', mediaId: null, link: null, numSpeakers: null,
        srcSrtMediaId: null, dstSrtMediaId: null, glossaryId: null, ttsProvider: null, status: 'transcribe_segments_started', progress: 50,
      });
      const segs = Array.from({ length: n }, (_, i) => {
        const words = Array.from({ length: 16 }, (_, k) => ({ text: `word${k}`, start: i * 3 + k * 0.15, end: i * 3 + k * 0.15 + 0.12, confidence: 0.5 + (k % 5) / 10 }));
        return { start: i * 3, end: i * 3 + 2.5, speaker: 'SPEAKER_0', src: words.map((w) => w.text).join(' '), dst: '', status: 'done' as const, words, asr_confidence: 0.8 };
      });
      const r = await withProbe(() => insertSegments(deps.db, project.id, segs));
      rows.push({ path: 'Transcription insert (insertSegments)', size: `${n.toLocaleString('en-US')} segments of 16 words`, ms: r.ms, stallMs: r.stallMs });
    }

    // 5. A long transcript: GET of every segment and PATCH of a batch (the whole transcript is checked for overlaps).
    for (const n of [2_000, 10_000]) {
      const project = await insertProject(deps.db, {
        spaceId, userId, name: `Bench transcript ${n}`, srcLang: 'en', dstLang: 'es', mediaId: null, link: null, numSpeakers: null,
        srcSrtMediaId: null, dstSrtMediaId: null, glossaryId: null, ttsProvider: null, status: 'translation_done', progress: 100,
      });
      const segs = await insertSegments(deps.db, project.id, Array.from({ length: n }, (_, i) => ({
        start: i * 3, end: i * 3 + 2.5, speaker: 'SPEAKER_0', src: `Sentence number ${i} of the long talk.`, dst: `Frase número ${i} de la charla larga.`, status: 'done' as const,
      })));
      // the body is read as bytes, not parsed: this process is the client too, and its parse is no stall of the server's
      const get = await withProbe(async () => {
        const res = await fetch(`${base}/api/project/${project.id}/transcript`, { headers: { authorization: `Bearer ${token}` } });
        await res.arrayBuffer();
        return { status: res.status };
      });
      rows.push({ path: 'GET /api/project/{id}/transcript', size: `${n.toLocaleString('en-US')} segments`, ms: get.ms, stallMs: get.stallMs, status: get.value.status });
      const batch = segs.slice(0, 50).map((x, i) => ({ id: x.id, dst: { text: `Frase cambiada ${i}.` } }));
      const patch = await withProbe(() => call('PATCH', `/api/project/${project.id}/transcript`, { segments: batch }, token));
      rows.push({ path: 'PATCH /api/project/{id}/transcript', size: `50 of ${n.toLocaleString('en-US')} segments`, ms: patch.ms, stallMs: patch.stallMs, status: patch.value.status });
      // the stages' writes to every segment: the translation's texts, the voiceover's fits, the speakers' labels
      const tr = await withProbe(() => setSegmentTranslations(deps.db, project.id, segs.map((x, i) => ({ id: x.id, dst: `Frase ${i}.`, termHits: [{ source: 'talk', target: 'charla', applied: true }] })), 'done'));
      rows.push({ path: 'Translation write (setSegmentTranslations)', size: `${n.toLocaleString('en-US')} segments`, ms: tr.ms, stallMs: tr.stallMs });
      const fits = await withProbe(() => setSegmentFits(deps.db, project.id, segs.map((x, i) => ({ id: x.id, speed_factor: 1.05, overflow_sec: 0, audio_hash: `clip-${i}`, status: 'done' as const }))));
      rows.push({ path: 'Voiceover write (setSegmentFits)', size: `${n.toLocaleString('en-US')} segments`, ms: fits.ms, stallMs: fits.stallMs });
      const sp = await withProbe(() => setSegmentSpeakers(deps.db, project.id, segs.map((x, i) => ({ id: x.id, speaker: `SPEAKER_${i % 3}` }))));
      const other = await insertProject(deps.db, {
        spaceId, userId, name: `Bench copy ${n}`, srcLang: 'en', dstLang: 'fr', mediaId: null, link: null, numSpeakers: null,
        srcSrtMediaId: null, dstSrtMediaId: null, glossaryId: null, ttsProvider: null, status: 'determine_speakers_done', progress: 42,
      });
      const copy = await withProbe(() => deps.db.tx((t) => copySegments(t, project.id, other.id, 'empty')));
      rows.push({ path: 'New language copy (copySegments)', size: `${n.toLocaleString('en-US')} segments`, ms: copy.ms, stallMs: copy.stallMs });
      rows.push({ path: 'Speakers write (setSegmentSpeakers)', size: `${n.toLocaleString('en-US')} segments`, ms: sp.ms, stallMs: sp.stallMs });
    }

    log(`Stalls bench: ${deps.db.kind}, node ${process.version}, load average ${loadavg().map((x) => x.toFixed(1)).join(' ')}`);
    log(`  ${'path'.padEnd(44)} ${'input'.padEnd(34)} ${'time'.padStart(9)} ${'stall'.padStart(9)}  health during (p99 / max / n)`);
    for (const r of rows) {
      const h = r.healthCount === undefined ? '' : `${r.healthP99Ms!.toFixed(0)} ms / ${r.healthMaxMs!.toFixed(0)} ms / ${r.healthCount}${r.healthErrors ? ` (${r.healthErrors} reset)` : ''}`;
      log(`  ${r.path.padEnd(44)} ${r.size.padEnd(34)} ${`${r.ms.toFixed(0)} ms`.padStart(9)} ${`${r.stallMs.toFixed(0)} ms`.padStart(9)}  ${r.status !== undefined ? `[${r.status}] ` : ''}${h}`);
    }
    return rows;
  } finally {
    await new Promise((r) => server.close(r));
    await shutdownDeps(deps);
    rmSync(dataDir, { recursive: true, force: true });
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const arg = process.argv.find((a) => a.startsWith('--sizes='));
  runStallsBench({ sizes: arg ? arg.slice(8).split(',').map(Number) : undefined }).then(
    () => process.exit(0),
    (e) => {
      console.error(e);
      process.exit(1);
    },
  );
}
