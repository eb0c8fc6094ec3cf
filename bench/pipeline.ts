// Pipeline benchmark (`npm run bench:pipeline`): a 60 s 1280x720 video built from the LibriVox clips of
// pocketsphinx-testdata (real speech, known transcripts), dubbed English -> Spanish through the HTTP API
// with the built-in engines and the embedded worker. Prints per-stage seconds, the end-to-end real-time
// factor, the peak RSS (this process and every tool it starts), the longest stall of the event loop that
// serves the API (and the five longest over 100 ms, each with the stage and step that ran then) and the latency of GET /api/users/current asked every 100 ms during the job, the WER of
// the transcript, and the fit figures (segments ending within slot + 150 ms, speed factors within 0.85-1.25,
// maximum drift).
// The account is made through the API (sign-up; the first account of an install is a superuser, which
// grants itself the Business plan so any length has minutes) and the video is uploaded from disk.
// Options: --seconds=N (default 60), --width=W --height=H, --concurrency=N (worker slots),
// --jobs=N (that many copies of the video dubbed at once: throughput), --json; --redub: then one segment's
// translation edited and Generate again (the re-dub: the time to the new video and to merging_done, with the merge's
// steps; the load average printed beside it, as the machine may be shared).
import { openAsBlob } from 'node:fs';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { buildDeps, shutdownDeps } from '../server/bootstrap';
import { loadConfig } from '../server/config';
import { createApp } from '../server/app/app';
import { makeTestVideo, placeClips } from '../server/media/ffmpeg';
import { probe } from '../server/media/probe';
import { ToolSpawner } from '../server/media/spawner';
import { wavDurationSec } from '../server/media/wav';
import { findProject } from '../server/domains/projects/repository';
import type { VoiceoverStats } from '../server/domains/projects/stages/voiceover';
import { projectKey } from '../server/storage/index';

// The LibriVox clips and their transcripts (pocketsphinx-testdata). tests/fixtures/media.ts has the same
// helpers but registers vitest hooks on import, so the benchmark (a plain node script) reads them here.
const LIBRIVOX_DIR = '/usr/share/pocketsphinx/test/data/librivox';
const LIBRIVOX_IDS = ['0870', '0880', '0890', '0920', '0930'] as const;
const librivoxWav = (id: string) => join(LIBRIVOX_DIR, `sense_and_sensibility_01_austen_64kb-${id}.wav`);
function librivoxTranscript(id: string): string {
  const line = readFileSync(join(LIBRIVOX_DIR, 'transcription'), 'utf8')
    .split('\n')
    .find((l) => l.includes(`(sense_and_sensibility_01_austen_64kb-${id})`));
  if (!line) throw new Error(`no transcript for ${id}`);
  return line.replace(/\(.*\)\s*$/, '').replace(/<\/?s>/g, '').trim();
}
/** Word error rate (Levenshtein over words; case and punctuation ignored). */
function wordErrorRate(reference: string, hypothesis: string): number {
  const words = (s: string) => s.toLowerCase().replace(/[^\p{L}\p{N}'\s]/gu, ' ').split(/\s+/).filter(Boolean);
  const r = words(reference);
  const h = words(hypothesis);
  let prev = Array.from({ length: h.length + 1 }, (_, j) => j);
  for (let i = 1; i <= r.length; i++) {
    const cur = [i];
    for (let j = 1; j <= h.length; j++) cur[j] = Math.min(prev[j]! + 1, cur[j - 1]! + 1, prev[j - 1]! + (r[i - 1] === h[j - 1] ? 0 : 1));
    prev = cur;
  }
  return r.length ? prev[h.length]! / r.length : h.length ? 1 : 0;
}

const args = Object.fromEntries(
  process.argv.slice(2).map((a) => {
    const m = /^--([\w-]+)(?:=(.*))?$/.exec(a);
    return m ? [m[1]!, m[2] ?? 'true'] : [a, 'true'];
  }),
);
const SECONDS = Number(args.seconds ?? 60);
const JOBS = Math.max(1, Number(args.jobs ?? 1));
const WIDTH = Number(args.width ?? 1280);
const HEIGHT = Number(args.height ?? 720);

// ------------------------------------------------------------------ peak RSS of this process tree

function rssOfTree(root: number): number {
  const kids = new Map<number, number[]>();
  const rss = new Map<number, number>();
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const stat = readFileSync(`/proc/${name}/stat`, 'utf8');
      const after = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      const ppid = Number(after[1]);
      const pages = Number(after[21]);
      const pid = Number(name);
      rss.set(pid, pages * 4096);
      kids.set(ppid, [...(kids.get(ppid) ?? []), pid]);
    } catch {
      // the process ended meanwhile
    }
  }
  let total = 0;
  const stack = [root];
  while (stack.length) {
    const p = stack.pop()!;
    total += rss.get(p) ?? 0;
    stack.push(...(kids.get(p) ?? []));
  }
  return total;
}

function rssSampler(everyMs = 100) {
  let peak = rssOfTree(process.pid);
  let peakSelf = process.memoryUsage().rss;
  // every sample (time, tree, node): the peak of each stage is read from its window
  const samples: Array<[number, number, number]> = [];
  const t = setInterval(() => {
    const tree = rssOfTree(process.pid);
    const self = process.memoryUsage().rss;
    samples.push([Date.now(), tree, self]);
    peak = Math.max(peak, tree);
    peakSelf = Math.max(peakSelf, self);
  }, everyMs);
  return {
    stop() {
      clearInterval(t);
      return { peakTree: peak, peakNode: peakSelf };
    },
    /** Peak RSS (process tree, node) of the samples in [fromMs, toMs]. */
    peakIn(fromMs: number, toMs: number): { tree: number; node: number } {
      let tree = 0;
      let node = 0;
      for (const [at, t, n] of samples) if (at >= fromMs && at <= toMs) { tree = Math.max(tree, t); node = Math.max(node, n); }
      return { tree, node };
    },
  };
}

// ------------------------------------------------------------------ the test video

async function buildVideo(dir: string): Promise<{ path: string; reference: string; speechSec: number }> {
  const gap = 0.7;
  const clips: Array<{ path: string; offsetSec: number }> = [];
  const words: string[] = [];
  let t = 0.5;
  let speech = 0;
  for (let i = 0; ; i++) {
    const id = LIBRIVOX_IDS[i % LIBRIVOX_IDS.length]!;
    const d = wavDurationSec(librivoxWav(id));
    if (t + d > SECONDS - 0.3) break;
    clips.push({ path: librivoxWav(id), offsetSec: t });
    words.push(librivoxTranscript(id));
    speech += d;
    t += d + gap;
  }
  const wav = join(dir, 'speech.wav');
  await placeClips(clips, SECONDS, wav, { sampleRate: 16000, channels: 1 });
  const path = join(dir, 'bench.mp4');
  await makeTestVideo({ out: path, seconds: SECONDS, width: WIDTH, height: HEIGHT, fps: 25, audio: wav });
  return { path, reference: words.join(' '), speechSec: speech };
}

// ------------------------------------------------------------------ run

async function main() {
  const dataDir = mkdtempSync(join(tmpdir(), 'bench-pipeline-'));
  const timings: Array<{ projectId: string; stage: string; seconds: number; outcome: string; endMs: number }> = [];
  const steps: Array<{ projectId: string; stage: string; step: string; seconds: number; endMs: number }> = [];
  try {
    process.stderr.write(`building a ${SECONDS} s ${WIDTH}x${HEIGHT} video from the LibriVox clips...\n`);
    const video = await buildVideo(dataDir);
    const config = loadConfig({
      JWT_SECRET: 'bench-secret-bench-secret-bench-secret-1',
      DATA_DIR: join(dataDir, 'data'),
      WORKER_CONCURRENCY: String(args.concurrency ?? 1),
      ACCESS_TOKEN_TTL: String(7 * 24 * 3600), // a 3-hour video outlives the default 15-minute token
      MAX_VIDEO_SIZE: String(64 * 1024 ** 3), // the synthetic 720p video of an hour is over the default 2 GB
      ...(args['cpu-slots'] ? { PIPELINE_CPU_SLOTS: String(args['cpu-slots']) } : {}),
    });
    // As the server does at start-up (role 'server'): the app's tool spawner while this process is small
    // (TOOL_SPAWNER=0: off); the app stops it.
    const toolSpawner = new ToolSpawner({ enabled: config.worker.toolSpawner });
    await toolSpawner.start();
    const deps = await buildDeps(config, {
      role: 'test',
      toolSpawner,
      pipeline: {
        log: (msg, meta) => {
          if (msg === 'step' && meta) steps.push({ projectId: String(meta.projectId), stage: String(meta.stage), step: String(meta.step), seconds: Number(meta.seconds), endMs: Date.now() });
          else if (msg !== 'step') process.stderr.write(`[pipeline] ${msg} ${JSON.stringify(meta ?? {})}\n`);
        },
        onJobEnd: (e) => timings.push({ projectId: e.projectId, stage: e.stage, seconds: e.seconds, outcome: e.outcome, endMs: Date.now() }),
      },
    });
    const app = createApp(deps, { distDir: null, log: () => {} });
    const send = async (method: string, path: string, token: string | null, body?: unknown) => {
      const r = await app.request(path, {
        method,
        headers: { ...(token ? { authorization: `Bearer ${token}` } : {}), ...(body !== undefined ? { 'content-type': 'application/json' } : {}) },
        body: body !== undefined ? JSON.stringify(body) : undefined,
      });
      // The bench reads a few fields of several answers (tokens, users, projects): untyped on purpose.
      // eslint-disable-next-line @typescript-eslint/no-explicit-any
      const j = (await r.json()) as any;
      if (r.status >= 400) throw new Error(`${method} ${path}: ${r.status} ${JSON.stringify(j)}`);
      return j;
    };
    // The account, through the API: the first account of an install is a superuser; it grants itself
    // the Business plan (2,000 minutes) so that any length can be generated.
    const email = 'bench@example.com';
    const tokens = await send('POST', '/api/auth/sign-up', null, { email, password: 'bench-password-1' });
    const token = String(tokens.access_token);
    const user = await send('POST', '/api/users', token, { email, referral_id: null, token: null });
    await send('PATCH', `/api/admin/users/${user.id}`, token, { plan: 'business' });
    const spaces = (await send('GET', '/api/space/list', token)) as Array<{ id: string; is_default?: boolean }>;
    const space = spaces.find((s) => s.is_default) ?? spaces[0]!;
    const call = (method: string, path: string, body?: unknown) => send(method, path, token, body);
    const waitFor = async (id: string, done: (s: string) => boolean) => {
      for (;;) {
        const p = await call('GET', `/api/project/${id}`);
        if (done(p.status)) return p;
        if (/failed|^no_|forbidden/.test(p.status)) throw new Error(`project ended in ${p.status}: ${p.error_message}`);
        await new Promise((r) => setTimeout(r, 100));
      }
    };

    // Upload from disk (multipart, as the browser's fallback path does): the file is streamed, never held.
    const uploads: string[] = [];
    for (let j = 0; j < JOBS; j++) {
      const form = new FormData();
      form.set('file', await openAsBlob(video.path, { type: 'video/mp4' }), 'bench.mp4');
      const up = await app.request(`/api/library/media?space_id=${space.id}`, { method: 'POST', headers: { authorization: `Bearer ${token}` }, body: form });
      const media = (await up.json()) as { id: string; status: string };
      if (media.status !== 'uploaded') throw new Error(`upload: ${JSON.stringify(media)}`);
      uploads.push(media.id);
    }

    await deps.engines.ready(); // engine discovery is start-up work, not per-video work
    const sampler = rssSampler();
    const loop = monitorEventLoopDelay({ resolution: 10 });
    loop.enable();
    // Each stall of the event loop over 100 ms, with when it ended: the stages and steps running then are named below.
    const stalls: Array<{ endMs: number; ms: number }> = [];
    let tick = performance.now();
    const stallProbe = setInterval(() => {
      const now = performance.now();
      if (now - tick - 20 > 100) stalls.push({ endMs: Date.now(), ms: Math.round(now - tick - 20) });
      tick = now;
    }, 20);
    // A person's view of the API meanwhile: GET /api/users/current every 100 ms, each timed from when it was due
    // (a request arriving while the event loop is stalled waits for it), until the jobs end.
    const apiMs: number[] = [];
    let probing = true;
    const prober = (async () => {
      while (probing) {
        const due = performance.now() + 100;
        await new Promise((r) => setTimeout(r, 100));
        const r = await app.request('/api/users/current', { headers: { authorization: `Bearer ${token}` } });
        await r.arrayBuffer();
        if (r.status !== 200) throw new Error(`GET /api/users/current during the job: ${r.status}`);
        apiMs.push(performance.now() - due);
      }
    })();
    await deps.pipeline!.startWorker();
    const t0 = Date.now();
    const runs = await Promise.all(
      uploads.map(async (mediaId, j) => {
        const created = await call('POST', `/api/project/create_transcript?space_id=${space.id}`, {
          name: `Bench ${j + 1}`, src_lang: 'en', dst_lang: 'es', media_id: mediaId,
        });
        await waitFor(created.id, (s) => s === 'translation_done');
        const tAnalysis = (Date.now() - t0) / 1000;
        const t1 = Date.now();
        await call('POST', `/api/project/${created.id}/generate`);
        await waitFor(created.id, (s) => s === 'merging_done');
        return { id: String(created.id), tAnalysis, tGenerate: (Date.now() - t1) / 1000, total: (Date.now() - t0) / 1000 };
      }),
    );
    const total = (Date.now() - t0) / 1000;
    // the first run's figures (the re-dub's are reported apart)
    const firstTimings = timings.length;
    const firstSteps = steps.length;
    // The re-dub: one segment in the middle edited, Generate, until the new video is there and until merging_done.
    let redub: { segment: number; videoSec: number; generateSec: number; merging: Record<string, number>; loadAverage: number[] } | null = null;
    if (args.redub) {
      const id = runs[0]!.id;
      const segs = (await call('GET', `/api/project/${id}/transcript`)).segments as Array<{ id: string; dst: { text: string } }>;
      const k = Math.floor(segs.length / 2);
      await call('PATCH', `/api/project/${id}/transcript`, { segments: [{ id: segs[k]!.id, dst: { text: `${segs[k]!.dst.text} Y nada más.` } }] });
      const videoBefore = (await findProject(deps.db, id))?.translated_video;
      const stepsFrom = steps.length;
      const t2 = Date.now();
      await call('POST', `/api/project/${id}/generate`);
      let videoSec = 0;
      for (;;) {
        const p = await findProject(deps.db, id);
        if (!videoSec && p?.translated_video && p.translated_video !== videoBefore) videoSec = (Date.now() - t2) / 1000;
        if (p?.status === 'merging_done' && videoSec) break;
        if (p && /failed/.test(p.status)) throw new Error(`re-dub ended in ${p.status}`);
        await new Promise((r) => setTimeout(r, 50));
      }
      const merging: Record<string, number> = {};
      for (const st of steps.slice(stepsFrom).filter((x) => x.projectId === id)) merging[`${st.stage}/${st.step}`] = Math.round(st.seconds * 100) / 100;
      redub = { segment: k, videoSec, generateSec: (Date.now() - t2) / 1000, merging, loadAverage: loadavg().map((x) => Math.round(x * 100) / 100) };
    }
    probing = false;
    await prober;
    loop.disable();
    clearInterval(stallProbe);
    const sortedApi = [...apiMs].sort((a, b) => a - b);
    const pct = (q: number) => Math.round((sortedApi[Math.min(sortedApi.length - 1, Math.floor(q * sortedApi.length))] ?? 0) * 10) / 10;
    const rss = sampler.stop();
    const first = runs[0]!;

    const transcript = (await call('GET', `/api/project/${first.id}/transcript`)).segments as Array<{ src: { text: string } }>;
    const hyp = transcript.map((s) => s.src.text).join(' ');
    const wer = wordErrorRate(video.reference, hyp);
    const stats = JSON.parse((await deps.storage!.getBuffer(projectKey(first.id, 'voiceover_stats.json'))).toString('utf8')) as VoiceoverStats;
    const voiced = stats.fitted.filter((f) => f.placedEnd > f.placedStart);
    const sorted = [...stats.fitted].sort((a, b) => a.start - b.start);
    const withinSlot = voiced.filter((f) => f.placedEnd <= f.end + 0.15 + 1e-9).length;
    const inRange = voiced.filter((f) => f.speedFactor >= 0.85 - 1e-9 && f.speedFactor <= 1.25 + 1e-9).length;
    const maxDrift = Math.max(0, ...stats.fitted.map((f) => f.placedStart - f.start));
    const overlaps = sorted.filter((f, i) => sorted[i + 1] && f.placedEnd > sorted[i + 1]!.start + 1e-6).length;
    const overflow = voiced.filter((f) => f.overflowSec > 0).length;

    // The dub is kept under the version of its generation (out/<n>/...): the project row names it.
    const dubKey = (await findProject(deps.db, first.id))?.translated_video;
    if (!dubKey) throw new Error('the project has no dubbed video');
    const dub = await probe(await deps.storage!.localFile(dubKey));
    const src = await probe(video.path);

    const perStage = new Map<string, number>();
    // the peak RSS while each stage ran (MB; process tree and node): where the memory goes
    const stageRss = new Map<string, { tree: number; node: number }>();
    for (const t of timings.slice(0, firstTimings).filter((x) => x.projectId === first.id)) {
      perStage.set(t.stage, (perStage.get(t.stage) ?? 0) + t.seconds);
      const p = sampler.peakIn(t.endMs - t.seconds * 1000, t.endMs);
      const was = stageRss.get(t.stage) ?? { tree: 0, node: 0 };
      stageRss.set(t.stage, { tree: Math.max(was.tree, Math.round(p.tree / 1048576)), node: Math.max(was.node, Math.round(p.node / 1048576)) });
    }
    const ms = (ns: number) => Math.round(ns / 1e5) / 10;
    // the stalls, longest first, each with the stage and step that ran when it ended
    const during = (endMs: number) => {
      const inStep = steps.filter((s) => s.endMs - s.seconds * 1000 <= endMs && endMs <= s.endMs + 50).map((s) => `${s.stage}/${s.step}`);
      const inStage = timings.filter((t) => t.endMs - t.seconds * 1000 <= endMs && endMs <= t.endMs + 50).map((t) => t.stage);
      return inStep.length ? inStep.join(', ') : inStage.length ? inStage.join(', ') : 'between stages';
    };
    const longestStalls = [...stalls].sort((a, b) => b.ms - a.ms).slice(0, 5).map((x) => ({ ms: x.ms, atSec: Math.round((x.endMs - t0) / 100) / 10, during: during(x.endMs) }));
    const result = {
      video: { seconds: SECONDS, width: WIDTH, height: HEIGHT, speechSec: Math.round(video.speechSec * 10) / 10 },
      jobs: JOBS,
      workerSlots: config.worker.concurrency,
      loadAverage: loadavg().map((x) => Math.round(x * 100) / 100),
      stages: Object.fromEntries([...perStage].map(([k, v]) => [k, Math.round(v * 100) / 100])),
      stagePeakRssMb: Object.fromEntries(stageRss),
      steps: steps.slice(0, firstSteps).filter((s) => s.projectId === first.id).map((s) => ({ stage: s.stage, step: s.step, seconds: Math.round(s.seconds * 100) / 100 })),
      analysisSec: Math.round(first.tAnalysis * 100) / 100,
      generateSec: Math.round(first.tGenerate * 100) / 100,
      totalSec: Math.round(total * 100) / 100,
      realTimeFactor: Math.round((total / (SECONDS * JOBS)) * 1000) / 1000,
      peakRssMb: { processTree: Math.round(rss.peakTree / 1048576), nodeProcess: Math.round(rss.peakNode / 1048576) },
      eventLoopDelayMs: { p99: ms(loop.percentile(99)), max: ms(loop.max) },
      stallsOver100ms: { count: stalls.length, longest: longestStalls },
      usersCurrentMs: { requests: sortedApi.length, p50: pct(0.5), p99: pct(0.99), max: Math.round((sortedApi.at(-1) ?? 0) * 10) / 10 },
      wer: Math.round(wer * 1000) / 1000,
      segments: stats.segments,
      fit: {
        withinSlotPlus150ms: `${withinSlot}/${voiced.length} (${((100 * withinSlot) / Math.max(1, voiced.length)).toFixed(1)}%)`,
        speedFactorIn085to125: `${inRange}/${voiced.length} (${((100 * inRange) / Math.max(1, voiced.length)).toFixed(1)}%)`,
        maxCumulativeDriftSec: Math.round(maxDrift * 1000) / 1000,
        overlapsIntoNextSegment: overlaps,
        segmentsCut: overflow,
        speedFactors: voiced.map((f) => f.speedFactor),
      },
      redub,
      output: {
        durationSec: dub.durationSec, sourceDurationSec: src.durationSec, fps: dub.fps, sourceFps: src.fps,
        video: dub.videoCodec, audio: dub.audioCodec,
      },
    };
    if (args.json) {
      console.log(JSON.stringify(result, null, 2));
    } else {
      console.log(`\nPipeline benchmark: ${SECONDS} s ${WIDTH}x${HEIGHT}, English -> Spanish, built-in engines, ${JOBS} job(s), ${config.worker.concurrency} worker slot(s), load average ${result.loadAverage.join(' ')}\n`);
      console.log(`stage                    seconds   peak RSS MB (tree / node)${JOBS > 1 ? '   (first job)' : ''}`);
      for (const [k, v] of Object.entries(result.stages)) {
        const r = result.stagePeakRssMb[k];
        console.log(`  ${k.padEnd(22)} ${v.toFixed(2).padStart(7)}   ${r ? `${r.tree} / ${r.node}` : ''}`);
        for (const st of result.steps.filter((x) => x.stage === k)) console.log(`      ${st.step.padEnd(20)} ${st.seconds.toFixed(2).padStart(7)}`);
      }
      console.log(`analysis (upload done -> translation_done): ${result.analysisSec} s`);
      console.log(`generate (click -> merging_done):          ${result.generateSec} s`);
      console.log(`end to end:                                ${result.totalSec} s  (real-time factor ${result.realTimeFactor}${JOBS > 1 ? ` over ${JOBS} jobs: ${(SECONDS * JOBS / total).toFixed(2)} s of video per second` : ''})`);
      console.log(`peak RSS: ${result.peakRssMb.processTree} MB (process tree), ${result.peakRssMb.nodeProcess} MB (node)`);
      console.log(`event loop of the API: p99 delay ${result.eventLoopDelayMs.p99} ms, longest stall ${result.eventLoopDelayMs.max} ms`);
      console.log(`stalls over 100 ms: ${stalls.length}${longestStalls.map((x) => `\n      ${String(x.ms).padStart(5)} ms at ${x.atSec} s, during ${x.during}`).join('')}`);
      console.log(`GET /api/users/current during the job (every 100 ms): ${result.usersCurrentMs.requests} requests, p50 ${result.usersCurrentMs.p50} ms, p99 ${result.usersCurrentMs.p99} ms, max ${result.usersCurrentMs.max} ms`);
      console.log(`WER of the transcript: ${(wer * 100).toFixed(1)}% over ${video.reference.split(/\s+/).length} reference words`);
      console.log(`segments: ${stats.segments}; ending within slot + 150 ms: ${result.fit.withinSlotPlus150ms}; speed factor in 0.85-1.25: ${result.fit.speedFactorIn085to125}`);
      console.log(`max cumulative drift: ${result.fit.maxCumulativeDriftSec} s; overlaps into the next segment: ${overlaps}; segments cut: ${overflow}`);
      if (result.fit.speedFactors.length <= 40) console.log(`speed factors: ${result.fit.speedFactors.join(', ')}`);
      if (redub) {
        console.log(`re-dub of one segment (#${redub.segment}): the new video ${redub.videoSec.toFixed(2)} s after Generate, merging_done ${redub.generateSec.toFixed(2)} s (load average ${redub.loadAverage.join(' ')})`);
        for (const [k, v] of Object.entries(redub.merging)) console.log(`      ${k.padEnd(32)} ${v.toFixed(2).padStart(7)}`);
      }
      console.log(`output: ${dub.durationSec.toFixed(3)} s at ${dub.fps} fps (${dub.videoCodec}+${dub.audioCodec}); source ${src.durationSec.toFixed(3)} s at ${src.fps} fps`);
    }
    await shutdownDeps(deps);
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
}

await main();
