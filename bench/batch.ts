// Batch benchmark (`npm run bench:batch`): N videos of S seconds (LibriVox speech from pocketsphinx-testdata, each
// video a different order of the clips) dubbed from English into three target languages in one batch with
// "generate when ready", through the HTTP API with the built-in engines and the embedded worker. Prints the wall
// time from the batch's creation to batch.completed, the time to the first dubbed language, per-language counts and
// the load average (the machine may be shared).
// Options: --videos=N (default 10), --seconds=S (default 30), --langs=es,es-419,ca, --concurrency=N (worker slots,
// default 2), --json.
import { mkdtempSync, openAsBlob, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildDeps, shutdownDeps } from '../server/bootstrap';
import { loadConfig } from '../server/config';
import { createApp } from '../server/app/app';
import { makeTestVideo, placeClips } from '../server/media/ffmpeg';
import { ToolSpawner } from '../server/media/spawner';
import { wavDurationSec } from '../server/media/wav';

const LIBRIVOX = '/usr/share/pocketsphinx/test/data/librivox';
const IDS = ['0870', '0880', '0890', '0920', '0930'];
const clip = (id: string) => join(LIBRIVOX, `sense_and_sensibility_01_austen_64kb-${id}.wav`);

const args = Object.fromEntries(
  process.argv.slice(2).map((a) => {
    const m = /^--([\w-]+)(?:=(.*))?$/.exec(a);
    return m ? [m[1]!, m[2] ?? 'true'] : [a, 'true'];
  }),
);
const VIDEOS = Math.max(1, Number(args.videos ?? 10));
const SECONDS = Math.max(5, Number(args.seconds ?? 30));
const LANGS = String(args.langs ?? 'es,es-419,ca').split(',').filter(Boolean);

async function video(dir: string, n: number): Promise<string> {
  const clips: Array<{ path: string; offsetSec: number }> = [];
  let t = 0.4;
  for (let i = 0; ; i++) {
    const id = IDS[(i + n) % IDS.length]!;
    const d = wavDurationSec(clip(id));
    if (t + d > SECONDS - 0.3) break;
    clips.push({ path: clip(id), offsetSec: t });
    t += d + 0.6;
  }
  const wav = join(dir, `speech-${n}.wav`);
  await placeClips(clips, SECONDS, wav, { sampleRate: 16000, channels: 1 });
  const out = join(dir, `video-${n}.mp4`);
  await makeTestVideo({ out, seconds: SECONDS, width: 640, height: 360, fps: 25, audio: wav });
  return out;
}

async function main() {
  const dir = mkdtempSync(join(tmpdir(), 'bench-batch-'));
  try {
    process.stderr.write(`building ${VIDEOS} videos of ${SECONDS} s...\n`);
    const paths: string[] = [];
    for (let i = 0; i < VIDEOS; i++) paths.push(await video(dir, i));
    const config = loadConfig({
      JWT_SECRET: 'bench-secret-bench-secret-bench-secret-1',
      DATA_DIR: join(dir, 'data'),
      WORKER_CONCURRENCY: String(args.concurrency ?? 2),
      ACCESS_TOKEN_TTL: String(24 * 3600),
    });
    // As the server does at start-up (role 'server'): the app's tool spawner while this process is small
    // (TOOL_SPAWNER=0: off); the app stops it.
    const toolSpawner = new ToolSpawner({ enabled: config.worker.toolSpawner });
    await toolSpawner.start();
    const deps = await buildDeps(config, { role: 'test', toolSpawner });
    const app = createApp(deps, { distDir: null, log: () => {} });
    let token = '';
    const send = async (method: string, path: string, body?: unknown, form?: FormData) => {
      const r = await app.request(path, {
        method,
        headers: { ...(token ? { authorization: `Bearer ${token}` } : {}), ...(body !== undefined ? { 'content-type': 'application/json' } : {}) },
        body: form ?? (body !== undefined ? JSON.stringify(body) : undefined),
      });
      // A few fields of several answers are read: untyped on purpose.
      // eslint-disable-next-line @typescript-eslint/no-explicit-any
      const j = (await r.json()) as any;
      if (r.status >= 400) throw new Error(`${method} ${path}: ${r.status} ${JSON.stringify(j)}`);
      return j;
    };
    // The first account of an install is a superuser: it grants itself the Business plan (minutes, jobs at once).
    const email = 'bench-batch@example.com';
    token = String((await send('POST', '/api/auth/sign-up', { email, password: 'bench-password-1' })).access_token);
    const user = await send('POST', '/api/users', { email, referral_id: null, token: null });
    await send('PATCH', `/api/admin/users/${user.id}`, { plan: 'business' });
    const spaces = (await send('GET', '/api/space/list')) as Array<{ id: string; is_default?: boolean }>;
    const space = (spaces.find((s) => s.is_default) ?? spaces[0])!;
    const items: Array<{ media_id: string; name: string }> = [];
    for (const [i, p] of paths.entries()) {
      const form = new FormData();
      form.set('file', await openAsBlob(p, { type: 'video/mp4' }), `video-${i + 1}.mp4`);
      const up = await send('POST', `/api/library/media?space_id=${space.id}`, undefined, form);
      items.push({ media_id: String(up.id), name: `video ${i + 1}` });
    }
    await deps.engines.ready(); // engine discovery is start-up work, not per-video work
    await deps.pipeline!.startWorker();
    const t0 = Date.now();
    const load0 = loadavg()[0]!;
    const batch = await send('POST', `/api/batch?space_id=${space.id}`, { src_lang: 'en', dst_langs: LANGS, items, generate: true });
    let firstDone: number | null = null;
    let last: { status: string; counts: { total: number; done: number; failed: number; running: number } };
    for (;;) {
      last = await send('GET', `/api/batch/${batch.id}?space_id=${space.id}`);
      if (firstDone === null && last.counts.done > 0) firstDone = Date.now() - t0;
      if (args.verbose) process.stderr.write(`${Math.round((Date.now() - t0) / 1000)} s ${JSON.stringify(last.counts)} ${JSON.stringify((last as unknown as { items: Array<{ languages: Array<{ status: string }> }> }).items.map((i) => i.languages.map((l) => l.status)))}\n`);
      if (last.status !== 'running') break;
      await new Promise((r) => setTimeout(r, args.verbose ? 5000 : 500));
    }
    const wall = (Date.now() - t0) / 1000;
    const out = {
      videos: VIDEOS, seconds: SECONDS, languages: LANGS, concurrency: Number(args.concurrency ?? 2),
      status: last.status, counts: last.counts, wall_s: Math.round(wall), first_dub_s: firstDone === null ? null : Math.round(firstDone / 1000),
      video_minutes: (VIDEOS * SECONDS) / 60, real_time_factor: Math.round((wall / (VIDEOS * SECONDS * LANGS.length)) * 100) / 100,
      load_before: Math.round(load0 * 10) / 10, load_after: Math.round(loadavg()[0]! * 10) / 10,
    };
    // What failed, and why (one line per distinct reason).
    const failures = new Map<string, number>();
    for (const i of (last as unknown as { items: Array<{ languages: Array<{ dst_lang: string; state: string; error: string | null }> }> }).items) {
      for (const l of i.languages) if (l.state === 'failed') failures.set(`${l.dst_lang}: ${l.error ?? '?'}`, (failures.get(`${l.dst_lang}: ${l.error ?? '?'}`) ?? 0) + 1);
    }
    if (args.json) console.log(JSON.stringify({ ...out, failures: Object.fromEntries(failures) }));
    else {
      console.log(`batch of ${VIDEOS} x ${SECONDS} s into ${LANGS.join(', ')} (${out.concurrency} worker slots): ${last.status}`);
      console.log(`  languages done ${last.counts.done}/${last.counts.total}, failed ${last.counts.failed}`);
      console.log(`  wall time ${out.wall_s} s; first dubbed language after ${out.first_dub_s} s`);
      console.log(`  ${out.real_time_factor} s of wall time per second of dubbed video; load average ${out.load_before} -> ${out.load_after}`);
      for (const [reason, n] of failures) console.log(`  failed x${n}: ${reason}`);
    }
    await shutdownDeps(deps);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
