// Quality benchmark of the dub as a listener hears it (`npm run bench:quality`, issue 28). A test bed of real
// recordings mixed at known levels, so the true stems are known: LibriVox speech (pocketsphinx-testdata: a low
// male reader at ~100 Hz, and the same sentences made into a woman's voice, formants up 18 % and pitch to the
// target, with rubberband) over real music (drascula-music's recorded tracks, fb-music-high's module). Each clip
// is dubbed English -> Spanish through the HTTP API with the built-in engines; then, per clip:
// - per speaker: the original's median pitch, the dubbed voice's median pitch (the voice-only output over the
//   speaker's segments), the distance in semitones, the speaker's gender and the gender of the voice given;
// - separation (the engine run on the exact mix with the project's own speech regions): leakage of the original
//   speech into the background (dB under the source speech, during speech), the background's level change during
//   speech against its true level (dB), the SI-SDR of the background stem (dB), and the engine's time per minute
//   of audio; the speech and music parts of the background are the separation applied to each stem (the
//   engine's own decomposition when it has one; otherwise its linearity: background(mix) = background(speech) +
//   background(music), checked and printed);
// - loudness (EBU R128) of the source and the dub: integrated (LUFS), loudness range (LU), true peak (dBTP);
// - the quality report's attention flags.
// Options: --clips=a,b (default all), --json, --keep (keep the working folder), --separation-only (no dubbing: the
// separation figures alone, with the speech regions from the VAD engine run on the mix as the pipeline does).
import { openAsBlob } from 'node:fs';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildDeps, shutdownDeps } from '../server/bootstrap';
import { loadConfig } from '../server/config';
import { createApp } from '../server/app/app';
import { extractMonoWav, makeTestVideo, pitchShift, runTool } from '../server/media/ffmpeg';
import { FFMPEG, FFMPEG_BASE } from '../server/media/args';
import { readWav, toMono, writeWav } from '../server/media/wav';
import { ToolSpawner } from '../server/media/spawner';
import { pitchProfile, semitones } from '../server/engines/builtin/pitch';
import type { SeparationEngine, SpeechRegion } from '../server/engines/types';
import type { DspSeparationEngine } from '../server/engines/builtin/dsp-separation';
import { projectKey } from '../server/storage/index';
import { findProject } from '../server/domains/projects/repository';

const LIBRIVOX_DIR = '/usr/share/pocketsphinx/test/data/librivox';
const librivoxWav = (id: string) => join(LIBRIVOX_DIR, `sense_and_sensibility_01_austen_64kb-${id}.wav`);
const DRASCULA = (n: number) => `/usr/share/scummvm/drascula/audio/track${n}.ogg`;
const DRASCULA_ALT = (n: number) => `/usr/share/scummvm/drascula/it/track${n}.ogg`;
const FB_MUSIC = '/usr/share/games/frozen-bubble/snd/frozen-mainzik-2p.xm';
const SR = 48000;

const args = Object.fromEntries(
  process.argv.slice(2).map((a) => {
    const m = /^--([\w-]+)(?:=(.*))?$/.exec(a);
    return m ? [m[1]!, m[2] ?? 'true'] : [a, 'true'];
  }),
);

// ------------------------------------------------------------------ the test bed

interface Part {
  /** LibriVox clip id. */
  id: string;
  speaker: string;
  /** Median pitch the part is moved to (Hz; none: the reader as recorded). */
  toHz?: number;
  /** Level of the part (dB; a speaker near or far from the microphone). */
  gainDb?: number;
}
interface ClipPlan {
  name: string;
  what: string;
  parts: Part[];
  music: string;
  /** Music start in the track (s). */
  musicAt: number;
  /** Music level against the speech (dB, active speech level vs music level), and in the pauses when ducking. */
  musicDb: number;
  musicGapDb?: number;
  /** Integrated loudness of the source mix (LUFS). */
  sourceLufs: number;
}

const CLIPS: ClipPlan[] = [
  {
    name: 'low-male',
    what: 'one low male reader (~100 Hz) over a recorded stereo track, music 15 dB under the voice, -20 LUFS',
    parts: ['0870', '0880', '0890', '0920', '0930'].map((id) => ({ id, speaker: 'man' })),
    music: 'drascula7',
    musicAt: 5,
    musicDb: -15,
    sourceLufs: -20,
  },
  {
    name: 'man-woman',
    what: 'a man (~102 Hz) and a woman (~172 Hz) in turns over a tracker module, music 16 dB under, quiet source (-28 LUFS)',
    parts: [
      { id: '0870', speaker: 'man' },
      { id: '0920', speaker: 'woman', toHz: 172 },
      { id: '0890', speaker: 'man' },
      { id: '0930', speaker: 'woman', toHz: 172 },
    ],
    music: 'fb',
    musicAt: 20,
    musicDb: -16,
    sourceLufs: -28,
  },
  {
    name: 'vlog',
    what: 'a woman (~205 Hz), near and far from the microphone (10 dB apart), music loud in the pauses and ducked under her (vlog style, wide loudness range)',
    parts: ['0890', '0870', '0930', '0920'].map((id, k) => ({ id, speaker: 'woman', toHz: 205, gainDb: k % 2 ? -10 : 0 })),
    music: 'drascula2',
    musicAt: 30,
    musicDb: -20,
    musicGapDb: -4,
    sourceLufs: -18,
  },
];

async function ff(argv: string[]): Promise<void> {
  await runTool(FFMPEG, [...FFMPEG_BASE, ...argv]);
}

/** A LibriVox clip at 48 kHz mono (its DC offset removed), moved to a median pitch when asked (formants up 18 %, then the pitch alone). */
async function voicePart(dir: string, p: Part, k: number): Promise<string> {
  const base = join(dir, `p${k}-48k.wav`);
  // the recordings' DC offset and sub-sonic rumble go (as any mix would); the rest of the recording is the speech
  await ff(['-i', librivoxWav(p.id), '-af', `highpass=f=30:poles=2,aresample=${SR}`, '-ac', '1', '-c:a', 'pcm_f32le', base]);
  if (!p.toHz) return base;
  const w = readWav(base);
  const hz = pitchProfile(toMono(w.channelData), w.sampleRate).medianHz!;
  const formantSt = 12 * Math.log2(1.18);
  const a = join(dir, `p${k}-f.wav`);
  const b = join(dir, `p${k}-fp.wav`);
  await pitchShift(base, a, formantSt);
  await pitchShift(a, b, semitones(hz, p.toHz) - formantSt, { preserveFormants: true });
  return b;
}

function musicFile(m: string): string {
  if (m === 'fb') return FB_MUSIC;
  const n = Number(m.replace('drascula', ''));
  try {
    readFileSync(DRASCULA(n), { flag: 'r' });
    return DRASCULA(n);
  } catch {
    return DRASCULA_ALT(n);
  }
}

const energy = (x: Float32Array, a = 0, b = x.length) => {
  let s = 0;
  for (let i = Math.max(0, a); i < Math.min(b, x.length); i++) s += x[i]! * x[i]!;
  return s;
};
const dB = (x: number) => 10 * Math.log10(Math.max(x, 1e-20));

interface Turn {
  speaker: string;
  start: number;
  end: number;
}
interface Clip {
  plan: ClipPlan;
  dir: string;
  seconds: number;
  turns: Turn[];
  /** 48 kHz: mono speech stem, stereo background stem, stereo mix (float WAV), and the video. */
  speech: string;
  background: string;
  mix: string;
  video: string;
}

async function buildClip(root: string, plan: ClipPlan): Promise<Clip> {
  const dir = join(root, plan.name);
  mkdirSync(dir, { recursive: true });
  const gap = 0.8;
  let t = 1.0;
  const turns: Turn[] = [];
  const parts: Float32Array[] = [];
  for (const [k, p] of plan.parts.entries()) {
    const path = await voicePart(dir, p, k);
    const x = toMono(readWav(path).channelData);
    if (p.gainDb) for (let i = 0; i < x.length; i++) x[i]! *= 10 ** (p.gainDb / 20);
    turns.push({ speaker: p.speaker, start: t, end: t + x.length / SR });
    parts.push(x);
    t += x.length / SR + gap;
  }
  const seconds = Math.ceil(t + 0.5);
  const n = seconds * SR;
  const speech = new Float32Array(n);
  for (const [k, x] of parts.entries()) speech.set(x, Math.round(turns[k]!.start * SR));
  // the music: stereo, from `musicAt`, `seconds` long
  const musicWav = join(dir, 'music-raw.wav');
  await ff(['-ss', String(plan.musicAt), '-t', String(seconds), '-i', musicFile(plan.music), '-af', `aresample=${SR},apad`, '-ac', '2', '-t', String(seconds), '-c:a', 'pcm_f32le', musicWav]);
  const mus = readWav(musicWav).channelData;
  const L = new Float32Array(n);
  const R = new Float32Array(n);
  L.set(mus[0]!.subarray(0, n));
  R.set((mus[1] ?? mus[0]!).subarray(0, n));
  // levels: speech RMS over its turns vs music RMS (mid) over the same time
  let sE = 0;
  let sN = 0;
  let mE = 0;
  for (const tr of turns) {
    const a = Math.round(tr.start * SR);
    const b = Math.round(tr.end * SR);
    sE += energy(speech, a, b);
    for (let i = a; i < b; i++) mE += ((L[i]! + R[i]!) / 2) ** 2;
    sN += b - a;
  }
  const gain = 10 ** ((dB(sE / sN) - dB(mE / sN) + plan.musicDb) / 20);
  // ducking (vlog): music at musicGapDb in the pauses, musicDb under speech, 150 ms ramps
  const duck = new Float32Array(n).fill(plan.musicGapDb !== undefined ? 10 ** ((plan.musicGapDb - plan.musicDb) / 20) : 1);
  if (plan.musicGapDb !== undefined) {
    const ramp = Math.round(0.15 * SR);
    const hi = duck[0]!;
    for (const tr of turns) {
      const a = Math.round(tr.start * SR);
      const b = Math.round(tr.end * SR);
      for (let i = a - ramp; i < b + ramp; i++) {
        if (i < 0 || i >= n) continue;
        const d = i < a ? (a - i) / ramp : i >= b ? (i - b) / ramp : 0;
        duck[i] = Math.min(duck[i]!, 1 + (hi - 1) * d);
      }
    }
  }
  for (let i = 0; i < n; i++) {
    L[i] = L[i]! * gain * duck[i]!;
    R[i] = R[i]! * gain * duck[i]!;
  }
  // overall level: the mix at sourceLufs (measured), stems scaled alike
  const probeMix = join(dir, 'probe.wav');
  writeWav(probeMix, [Float32Array.from(L, (x, i) => x + speech[i]!), Float32Array.from(R, (x, i) => x + speech[i]!)], SR);
  const lufs = (await loudness(probeMix)).I;
  const g = 10 ** ((plan.sourceLufs - lufs) / 20);
  for (let i = 0; i < n; i++) {
    speech[i]! *= g;
    L[i]! *= g;
    R[i]! *= g;
  }
  const out: Clip = {
    plan, dir, seconds, turns,
    speech: join(dir, 'speech.wav'), background: join(dir, 'background.wav'), mix: join(dir, 'mix.wav'), video: join(dir, `${plan.name}.mp4`),
  };
  writeFloatWav(out.speech, [speech]);
  writeFloatWav(out.background, [L, R]);
  writeFloatWav(out.mix, [Float32Array.from(L, (x, i) => x + speech[i]!), Float32Array.from(R, (x, i) => x + speech[i]!)]);
  await makeTestVideo({ out: out.video, seconds, width: 320, height: 240, fps: 25, audio: out.mix });
  return out;
}

/** Float WAV (no 16-bit rounding: the stems add up to the mix exactly). */
function writeFloatWav(path: string, ch: Float32Array[]): void {
  const frames = ch[0]!.length;
  const c = ch.length;
  const buf = Buffer.alloc(44 + frames * c * 4);
  buf.write('RIFF', 0);
  buf.writeUInt32LE(36 + frames * c * 4, 4);
  buf.write('WAVE', 8);
  buf.write('fmt ', 12);
  buf.writeUInt32LE(16, 16);
  buf.writeUInt16LE(3, 20);
  buf.writeUInt16LE(c, 22);
  buf.writeUInt32LE(SR, 24);
  buf.writeUInt32LE(SR * c * 4, 28);
  buf.writeUInt16LE(c * 4, 32);
  buf.writeUInt16LE(32, 34);
  buf.write('data', 36);
  buf.writeUInt32LE(frames * c * 4, 40);
  let o = 44;
  for (let i = 0; i < frames; i++) for (let k = 0; k < c; k++, o += 4) buf.writeFloatLE(ch[k]![i]!, o);
  writeFileSync(path, buf);
}
// ------------------------------------------------------------------ measurements

/** EBU R128 of a file: integrated loudness, loudness range, true peak. */
async function loudness(path: string): Promise<{ I: number; LRA: number; TP: number }> {
  const { run } = await import('../server/media/run');
  const r = await run(FFMPEG, ['-nostdin', '-hide_banner', '-nostats', '-i', path, '-map', '0:a:0', '-af', 'ebur128=peak=true', '-f', 'null', '-']);
  const s = r.stderr.slice(r.stderr.lastIndexOf('Summary:'));
  const num = (re: RegExp) => Number(re.exec(s)?.[1] ?? NaN);
  return { I: num(/I:\s*(-?[\d.]+) LUFS/), LRA: num(/LRA:\s*(-?[\d.]+) LU/), TP: num(/Peak:\s*(-?[\d.]+) dBFS/) };
}

function siSdr(est: Float32Array[], ref: Float32Array[]): number {
  let er = 0;
  let rr = 0;
  for (let c = 0; c < ref.length; c++) for (let i = 0; i < ref[c]!.length; i++) {
    er += est[c]![i]! * ref[c]![i]!;
    rr += ref[c]![i]! ** 2;
  }
  const a = er / rr;
  let t = 0;
  let e = 0;
  for (let c = 0; c < ref.length; c++) for (let i = 0; i < ref[c]!.length; i++) {
    const s = a * ref[c]![i]!;
    t += s * s;
    e += (est[c]![i]! - s) ** 2;
  }
  return dB(t / e);
}

/**
 * The separation the product had before issue 28 (its reference for "better than today's"): the centre's fixed
 * 150-4500 Hz band (a linear-phase FIR, share 0.92, ramps to 0.6x and 1.4x) gated by the speech regions (50 ms
 * ramps) is the voice; the background is the input minus it. Rebuilt here from its ffmpeg graph. Returns the voice
 * estimate of a (stereo or mono) WAV.
 */
async function oldBandVoice(dir: string, input: string, gate: Float32Array, tag: string): Promise<Float32Array> {
  const gatePath = join(dir, 'old-gate.wav');
  writeFloatWav(gatePath, [gate]);
  const out = join(dir, `old-v-${tag}.wav`);
  const [lo, hi, share] = [150, 4500, 0.92];
  const gain = `${share}*clip((f-${lo * 0.6})/${lo - lo * 0.6},0,1)*clip((${hi * 1.4}-f)/${hi * 1.4 - hi},0,1)`;
  const d = Math.round(0.04 * SR);
  await ff([
    '-i', input, '-i', gatePath, '-filter_complex',
    `[0:a]aformat=sample_fmts=fltp:channel_layouts=stereo,pan=mono|c0=0.5*c0+0.5*c1,firequalizer=gain='${gain}':scale=linlin:delay=${((d + 0.5) / SR).toFixed(9)},` +
      `atrim=start_sample=${d},asetpts=PTS-STARTPTS[band];[1:a]aformat=sample_fmts=fltp:channel_layouts=mono,apad[g];[band][g]amultiply[v]`,
    '-map', '[v]', '-c:a', 'pcm_f32le', out,
  ]);
  const v = readWav(out).channelData[0]!;
  const o = new Float32Array(gate.length);
  o.set(v.subarray(0, gate.length));
  return o;
}

function regionGate(regions: readonly SpeechRegion[], n: number): Float32Array {
  const g = new Float32Array(n);
  const ramp = Math.round(0.05 * SR);
  for (const r of regions) {
    const a = Math.round(r.start * SR);
    const b = Math.round(r.end * SR);
    for (let t = Math.max(0, a - ramp); t < Math.min(n, b + ramp); t++) g[t] = Math.max(g[t]!, t < a ? 1 - (a - t) / ramp : t >= b ? 1 - (t - b + 1) / ramp : 1);
  }
  return g;
}

interface SeparationFigures {
  /** The same figures for the fixed band the product had before (the reference of the aims). */
  oldBand?: { leakageDb: number; backgroundChangeDb: number; siSdrDb: number };
  leakageDb: number;
  backgroundChangeDb: number;
  siSdrDb: number;
  secPerMin: number[];
  cpuPerMin: number[];
  method: string;
  linearityErrorDb?: number;
}

/** Runs the separation on the exact mix with the given regions, and measures it against the true stems. */
async function measureSeparation(sep: SeparationEngine, clip: Clip, regions: SpeechRegion[]): Promise<SeparationFigures> {
  const dir = join(clip.dir, 'sep');
  mkdirSync(dir, { recursive: true });
  const bgOut = join(dir, 'bg.wav');
  const secPerMin: number[] = [];
  const cpuPerMin: number[] = [];
  for (let k = 0; k < 3; k++) {
    const t0 = performance.now();
    const c0 = process.cpuUsage();
    await sep.separate(clip.mix, regions, { background: bgOut });
    const c = process.cpuUsage(c0);
    secPerMin.push(Math.round(((performance.now() - t0) / 1000 / (clip.seconds / 60)) * 1000) / 1000);
    // CPU time of this process (its engine threads included): steadier than wall time on a shared machine
    cpuPerMin.push(Math.round(((c.user + c.system) / 1e6 / (clip.seconds / 60)) * 1000) / 1000);
  }
  const bg = readWav(bgOut).channelData;
  const trueBg = readWav(clip.background).channelData;
  const speech = readWav(clip.speech).channelData[0]!;
  // the speech and music parts of the background
  let method: string;
  let linearityErrorDb = 0;
  const speechSt = join(dir, 'speech-st.wav');
  writeFloatWav(speechSt, [speech, speech]);
  const decompose = (sep as Partial<DspSeparationEngine>).decompose;
  if (decompose) {
    await decompose.call(sep, clip.mix, regions, [speechSt, clip.background], [join(dir, 'sp.wav'), join(dir, 'mu.wav')], join(dir, 'bg2.wav'));
    method = 'the engine\'s decomposition (its gains applied to each stem)';
  } else {
    await sep.separate(speechSt, regions, { background: join(dir, 'sp.wav') });
    await sep.separate(clip.background, regions, { background: join(dir, 'mu.wav') });
    method = 'linearity (separation of each stem)';
  }
  const speechPart = readWav(join(dir, 'sp.wav')).channelData;
  const musicPart = readWav(join(dir, 'mu.wav')).channelData;
  {
    let err = 0;
    let ref = 0;
    for (let c = 0; c < 2; c++) for (let i = 0; i < bg[c]!.length; i++) {
      err += (bg[c]![i]! - speechPart[c]![i]! - musicPart[c]![i]!) ** 2;
      ref += bg[c]![i]! ** 2;
    }
    linearityErrorDb = Math.round(dB(err / ref) * 10) / 10;
  }
  let leak = 0;
  let src = 0;
  let mOut = 0;
  let mIn = 0;
  for (const tr of clip.turns) {
    const a = Math.round(tr.start * SR);
    const b = Math.round(tr.end * SR);
    for (let c = 0; c < 2; c++) {
      leak += energy(speechPart[c]!, a, b);
      src += energy(speech, a, b);
      mOut += energy(musicPart[c]!, a, b);
      mIn += energy(trueBg[c]!, a, b);
    }
  }
  const r1 = (x: number) => Math.round(x * 10) / 10;
  // the old fixed band on the same mix and regions (linear: its parts are its voice estimates of each stem)
  const gate = regionGate(regions, speech.length);
  const [vMix, vSp, vMu] = [await oldBandVoice(dir, clip.mix, gate, 'mix'), await oldBandVoice(dir, speechSt, gate, 'sp'), await oldBandVoice(dir, clip.background, gate, 'mu')];
  const mixCh = readWav(clip.mix).channelData;
  const oldBg = [0, 1].map((c) => Float32Array.from(mixCh[c]!, (x, i) => x - vMix[i]!));
  let oLeak = 0;
  let oMu = 0;
  for (const tr of clip.turns) {
    const a = Math.round(tr.start * SR);
    const b = Math.round(tr.end * SR);
    for (let c = 0; c < 2; c++) for (let i = a; i < b; i++) {
      oLeak += (speech[i]! - vSp[i]!) ** 2;
      oMu += (trueBg[c]![i]! - vMu[i]!) ** 2;
    }
  }
  const oldBand = { leakageDb: r1(-dB(oLeak / src)), backgroundChangeDb: r1(dB(oMu / mIn)), siSdrDb: r1(siSdr(oldBg, trueBg)) };
  return {
    oldBand,
    leakageDb: r1(-dB(leak / src)),
    backgroundChangeDb: r1(dB(mOut / mIn)),
    siSdrDb: r1(siSdr(bg, trueBg)),
    secPerMin,
    cpuPerMin,
    method,
    linearityErrorDb,
  };
}

// ------------------------------------------------------------------ run

interface ClipResult {
  clip: string;
  speakers: Array<{ speaker: string; trueHz: number; dubHz: number | null; distanceSt: number | null; gender: string; voice: string | null; voiceGender: string | null }>;
  separation: SeparationFigures;
  loudnessIn: { I: number; LRA: number; TP: number };
  loudnessOut: { I: number; LRA: number; TP: number };
  flags: unknown[];
  stageSec: Record<string, number>;
}

async function main() {
  const root = mkdtempSync(join(tmpdir(), 'bench-quality-'));
  const only = args.clips ? String(args.clips).split(',') : null;
  const results: ClipResult[] = [];
  const steps: Array<{ projectId: string; stage: string; step: string; seconds: number }> = [];
  const timings: Array<{ projectId: string; stage: string; seconds: number }> = [];
  try {
    const config = loadConfig({
      JWT_SECRET: 'bench-secret-bench-secret-bench-secret-1', DATA_DIR: join(root, 'data'), WORKER_CONCURRENCY: '1', ACCESS_TOKEN_TTL: String(24 * 3600),
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
          if (msg === 'step' && meta) steps.push({ projectId: String(meta.projectId), stage: String(meta.stage), step: String(meta.step), seconds: Number(meta.seconds) });
        },
        onJobEnd: (e) => timings.push({ projectId: e.projectId, stage: e.stage, seconds: e.seconds }),
      },
    });
    const app = createApp(deps, { distDir: null, log: () => {} });
    // eslint-disable-next-line @typescript-eslint/no-explicit-any
    const send = async (method: string, path: string, token: string | null, body?: unknown): Promise<any> => {
      const r = await app.request(path, {
        method,
        headers: { ...(token ? { authorization: `Bearer ${token}` } : {}), ...(body !== undefined ? { 'content-type': 'application/json' } : {}) },
        body: body !== undefined ? JSON.stringify(body) : undefined,
      });
      const j = (await r.json()) as unknown;
      if (r.status >= 400) throw new Error(`${method} ${path}: ${r.status} ${JSON.stringify(j)}`);
      return j;
    };
    const email = 'bench@example.com';
    const token = String((await send('POST', '/api/auth/sign-up', null, { email, password: 'bench-password-1' })).access_token);
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
    await deps.engines.ready();
    await deps.pipeline!.startWorker();

    for (const plan of CLIPS.filter((c) => !only || only.includes(c.name))) {
      process.stderr.write(`clip ${plan.name}: building...\n`);
      const clip = await buildClip(root, plan);
      if (args['separation-only']) {
        const wav16 = join(clip.dir, 'audio16k.wav');
        await extractMonoWav(clip.mix, wav16, { sampleRate: 16000 });
        const vad = await deps.engines.vad.detect(wav16);
        writeFileSync(join(clip.dir, 'vad.json'), JSON.stringify(vad));
        const separation = await measureSeparation(deps.engines.separation, clip, vad);
        const r: ClipResult = { clip: plan.name, speakers: [], separation, loudnessIn: await loudness(clip.mix), loudnessOut: { I: NaN, LRA: NaN, TP: NaN }, flags: [], stageSec: {} };
        results.push(r);
        if (!args.json) printClip(r);
        continue;
      }
      const form = new FormData();
      form.set('file', await openAsBlob(clip.video, { type: 'video/mp4' }), `${plan.name}.mp4`);
      const up = await app.request(`/api/library/media?space_id=${space.id}`, { method: 'POST', headers: { authorization: `Bearer ${token}` }, body: form });
      const media = (await up.json()) as { id: string };
      const created = await call('POST', `/api/project/create_transcript?space_id=${space.id}`, { name: plan.name, src_lang: 'en', dst_lang: 'es', media_id: media.id });
      process.stderr.write(`clip ${plan.name}: analysis...\n`);
      await waitFor(created.id, (s) => s === 'translation_done');
      await call('POST', `/api/project/${created.id}/generate`);
      process.stderr.write(`clip ${plan.name}: dubbing...\n`);
      await waitFor(created.id, (s) => s === 'merging_done');
      const project = await call('GET', `/api/project/${created.id}`);
      const row = (await findProject(deps.db, created.id))!;
      const transcript = (await call('GET', `/api/project/${created.id}/transcript`)).segments as Array<{ id: string; start: number; end: number; speaker: string }>;
      const quality = await call('GET', `/api/project/${created.id}/quality`);

      // pitch per true speaker: the original (clean stem over the turns) and the dub (voice-only output over the segments)
      const sp = readWav(clip.speech).channelData[0]!;
      const voiceWav = join(clip.dir, 'dub-voice.wav');
      await extractMonoWav(await deps.storage!.localFile(row.voiceover!), voiceWav, { sampleRate: 16000 });
      const dubVoice = toMono(readWav(voiceWav).channelData);
      const qsegs = new Map((quality.segments as Array<{ id: string; dub_start: number | null; dub_end: number | null }>).map((s) => [s.id, s]));
      const speakers: ClipResult['speakers'] = [];
      for (const who of [...new Set(clip.turns.map((t) => t.speaker))]) {
        const mine = clip.turns.filter((t) => t.speaker === who);
        const cat = (x: Float32Array, sr: number, ranges: Array<{ start: number; end: number }>) => {
          const parts = ranges.map((r) => x.subarray(Math.max(0, Math.round(r.start * sr)), Math.min(x.length, Math.round(r.end * sr))));
          const o = new Float32Array(parts.reduce((a, p) => a + p.length, 0));
          let k = 0;
          for (const p of parts) {
            o.set(p, k);
            k += p.length;
          }
          return o;
        };
        const trueHz = pitchProfile(cat(sp, SR, mine), SR).medianHz!;
        // the segments of this speaker: most of their time inside this speaker's turns
        const segs = transcript.filter((s) => {
          const inside = mine.reduce((a, t) => a + Math.max(0, Math.min(t.end, s.end) - Math.max(t.start, s.start)), 0);
          return inside > 0.5 * (s.end - s.start);
        });
        const ranges = segs.map((s) => {
          const q = qsegs.get(s.id);
          return { start: q?.dub_start ?? s.start, end: q?.dub_end ?? s.end };
        });
        const dubHz = pitchProfile(cat(dubVoice, 16000, ranges), 16000).medianHz;
        const labels = new Map<string, number>();
        for (const s of segs) labels.set(s.speaker, (labels.get(s.speaker) ?? 0) + 1);
        const label = [...labels].sort((a, b) => b[1] - a[1])[0]?.[0] ?? null;
        const spk = (project.speakers as Array<{ id: string; voice_id: string | null }>).find((s) => s.id === label);
        const voice = spk?.voice_id ?? null;
        const variant = voice ? /\+([mf])\d/.exec(voice)?.[1] : undefined;
        speakers.push({
          speaker: who,
          trueHz: Math.round(trueHz * 10) / 10,
          dubHz: dubHz === null ? null : Math.round(dubHz * 10) / 10,
          distanceSt: dubHz === null ? null : Math.round(semitones(trueHz, dubHz) * 10) / 10,
          gender: who === 'man' ? 'male' : 'female',
          voice,
          voiceGender: variant === 'm' ? 'male' : variant === 'f' ? 'female' : null,
        });
      }
      // separation against the true stems, with the project's own speech regions
      const vad = JSON.parse((await deps.storage!.getBuffer(projectKey(created.id, 'vad.json'))).toString('utf8')) as SpeechRegion[];
      const separation = await measureSeparation(deps.engines.separation, clip, vad);
      const outAudio = join(clip.dir, 'dub.wav');
      await ff(['-i', await deps.storage!.localFile(row.translated_audio!), '-c:a', 'pcm_f32le', outAudio]);
      const stageSec: Record<string, number> = {};
      for (const t of timings.filter((x) => x.projectId === created.id)) stageSec[t.stage] = Math.round(((stageSec[t.stage] ?? 0) + t.seconds) * 100) / 100;
      for (const s of steps.filter((x) => x.projectId === created.id && (x.step === 'separation' || x.step === 'vad' || x.step === 'mix+loudness'))) {
        stageSec[`step ${s.step}`] = s.seconds;
      }
      results.push({
        clip: plan.name,
        speakers,
        separation,
        loudnessIn: await loudness(clip.mix),
        loudnessOut: await loudness(outAudio),
        flags: quality.attention,
        stageSec,
      });
      process.stderr.write(`clip ${plan.name}: done (${clip.seconds} s)\n`);
      if (!args.json) printClip(results.at(-1)!);
    }
    await shutdownDeps(deps);
  } finally {
    if (!args.keep) rmSync(root, { recursive: true, force: true });
    else process.stderr.write(`kept ${root}\n`);
  }

  if (args.json) {
    console.log(JSON.stringify({ loadAverage: loadavg(), results }, null, 2));
    return;
  }
  console.log(`\nQuality benchmark (issue 28): built-in engines, English -> Spanish, ${results.length} clips (printed above as they finished)`);
  console.log(`(load average at the end ${loadavg().map((x) => x.toFixed(2)).join(' ')}: the machine is shared, timings are noisy)`);
}

function printClip(r: ClipResult): void {
  {
    const plan = CLIPS.find((c) => c.name === r.clip)!;
    console.log(`${r.clip}: ${plan.what}`);
    for (const s of r.speakers) {
      console.log(
        `  ${s.speaker.padEnd(6)} ${s.gender.padEnd(6)} ${s.trueHz.toFixed(1).padStart(6)} Hz -> dub ${s.dubHz === null ? '   —  ' : s.dubHz.toFixed(1).padStart(6)} Hz ` +
          `(${s.distanceSt === null ? '—' : `${s.distanceSt > 0 ? '+' : ''}${s.distanceSt.toFixed(1)} st`}), voice ${s.voice} (${s.voiceGender ?? '?'})${s.voiceGender && s.voiceGender !== s.gender ? '  WRONG GENDER' : ''}`,
      );
    }
    const sp = r.separation;
    console.log(`  separation: leakage ${sp.leakageDb} dB under the source speech; background during speech ${sp.backgroundChangeDb > 0 ? '+' : ''}${sp.backgroundChangeDb} dB vs true; background SI-SDR ${sp.siSdrDb} dB`);
    if (sp.oldBand) console.log(`  old fixed band (reference): leakage ${sp.oldBand.leakageDb} dB; background during speech ${sp.oldBand.backgroundChangeDb} dB; SI-SDR ${sp.oldBand.siSdrDb} dB (now ${sp.siSdrDb - sp.oldBand.siSdrDb >= 0 ? '+' : ''}${(sp.siSdrDb - sp.oldBand.siSdrDb).toFixed(1)} dB)`);
    console.log(`              ${sp.secPerMin.join(' / ')} s per minute of audio (3 runs; CPU ${sp.cpuPerMin.join(' / ')} s); parts by ${sp.method} (sum of the parts vs the background: ${sp.linearityErrorDb} dB)`);
    console.log(`  loudness: in ${r.loudnessIn.I} LUFS, LRA ${r.loudnessIn.LRA} LU, TP ${r.loudnessIn.TP} dBFS -> out ${r.loudnessOut.I} LUFS, LRA ${r.loudnessOut.LRA} LU, TP ${r.loudnessOut.TP} dBFS`);
    console.log(`  stages: ${Object.entries(r.stageSec).map(([k, v]) => `${k} ${v}s`).join(', ')}`);
    const flags = r.flags.map((f) => (typeof f === 'string' ? f : `${(f as { kind: string }).kind}${(f as { segment_id: string | null }).segment_id ? `@${(f as { segment_id: string }).segment_id.slice(0, 6)}` : ''}`));
    console.log(`  flags (${flags.length}): ${flags.length ? flags.join(', ') : 'none'}`);
    console.log('');
  }
}

await main();
