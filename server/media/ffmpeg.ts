// Media operations: each runs one builder from ./args with ./run and maps tool failures to MediaError.
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { open, readFile, rm } from 'node:fs/promises';
import { dirname, extname, join } from 'node:path';
import {
  FFMPEG,
  RUBBERBAND,
  burnSubtitlesArgs,
  coverArgs,
  demoVideoArgs,
  encodeAudioArgs,
  extractMonoWavArgs,
  extractStereoWavArgs,
  loudnessGainDb,
  measureMixArgs,
  mixArgs,
  muxArgs,
  parseIntegratedLoudness,
  placeClipsArgs,
  resampleClipsArgs,
  rubberbandPitchArgs,
  rubberbandTempoArgs,
  stillVideoArgs,
  synthAudioArgs,
  testVideoArgs,
  trimFadeArgs,
  type BurnSubtitlesOptions,
  type DemoVideoOptions,
  type MixOptions,
  type PlacedClip,
  type StillVideoOptions,
  type TestVideoOptions,
  measureLoudnessArgs,
  parseLoudness,
  type LoudnessFigures,
} from './args';
import { CommandError, MediaError } from './errors';
import { probe, type ProbeResult } from './probe';
import { run } from './run';
import { readWav, wavDurationSec, wavHeader } from './wav';
import { LOUDNESS_RATE, canMeasureMix, measureMix, type Envelope } from './mix-measure';

export interface OpOptions {
  signal?: AbortSignal;
  timeoutMs?: number;
}

const DEFAULT_TIMEOUT = 60 * 60 * 1000;

function classify(e: CommandError): MediaError {
  const t = e.stderrTail;
  if (/No such file or directory/i.test(t)) return new MediaError('not_found', e.message, { cause: e });
  if (/Stream map '[^']*:v[^']*' matches no streams/i.test(t)) {
    return new MediaError('failed', `the media has no video stream: ${t}`, { cause: e });
  }
  if (/matches no streams|does not contain any stream/i.test(t)) {
    return new MediaError('no_audio', `the media has no usable audio stream: ${t}`, { cause: e });
  }
  if (/Invalid data found|moov atom not found|could not find codec parameters|Error opening input/i.test(t)) {
    return new MediaError('corrupt', `unreadable media: ${t}`, { cause: e });
  }
  return new MediaError('failed', e.message, { cause: e });
}

/** Runs a media tool; exit failures become MediaError, aborts/timeouts stay CommandError. */
export async function runTool(cmd: string, args: string[], o: OpOptions = {}): Promise<string> {
  return (await runToolOutput(cmd, args, o)).stdout;
}

export async function runToolOutput(cmd: string, args: string[], o: OpOptions): Promise<{ stdout: string; stderr: string }> {
  try {
    // Media tools are the pipeline's CPU work: each takes one of the process's CPU slots (see run.ts).
    return await run(cmd, args, { signal: o.signal, timeoutMs: o.timeoutMs ?? DEFAULT_TIMEOUT, cpuSlot: true });
  } catch (e) {
    if (e instanceof CommandError && e.reason === 'exit') throw classify(e);
    if (e instanceof CommandError && e.reason === 'spawn') throw new MediaError('failed', e.message, { cause: e });
    throw e;
  }
}

function nonEmpty(path: string, what: string): void {
  let size = 0;
  try {
    size = statSync(path).size;
  } catch {
    /* handled below */
  }
  if (size === 0) throw new MediaError('failed', `${what} produced no output (${path})`);
}

/** Mono 16 kHz 16-bit WAV of the first audio stream (input for VAD, ASR and diarization). */
export async function extractMonoWav(input: string, out: string, o: OpOptions & { sampleRate?: number } = {}): Promise<void> {
  await runTool(FFMPEG, extractMonoWavArgs(input, out, { sampleRate: o.sampleRate }), o);
  nonEmpty(out, 'audio extraction');
}

/** Full-quality stereo WAV; keeps 44.1 kHz sources at 44.1 kHz, everything else at 48 kHz. */
export async function extractStereoWav(
  input: string,
  out: string,
  o: OpOptions & { sampleRate?: 44100 | 48000 } = {},
): Promise<void> {
  let sr = o.sampleRate;
  if (!sr) {
    const p = await probe(input, o);
    if (!p.hasAudio) throw new MediaError('no_audio', 'the media has no audio stream');
    sr = p.audioSampleRate === 44100 ? 44100 : 48000;
  }
  await runTool(FFMPEG, extractStereoWavArgs(input, out, { sampleRate: sr }), o);
  nonEmpty(out, 'audio extraction');
}

/** A JPEG cover frame, taken at `atSec` or by default at 1 s (or mid-clip for shorter videos). */
export async function makeCover(input: string, out: string, o: OpOptions & { atSec?: number; maxWidth?: number } = {}): Promise<void> {
  let at = o.atSec;
  if (at === undefined) {
    const p = await probe(input, o);
    if (!p.hasVideo) throw new MediaError('failed', 'cannot take a cover from a file without video');
    at = Math.min(1, p.durationSec / 2);
  }
  await runTool(FFMPEG, coverArgs(input, out, { atSec: at, maxWidth: o.maxWidth }), o);
  nonEmpty(out, 'cover extraction');
}

/** Integrated loudness, loudness range and (when asked) true peak of a media file's audio; null when unmeasurable. */
export async function measureLoudnessFigures(input: string, o: OpOptions & { truePeak?: boolean } = {}): Promise<LoudnessFigures | null> {
  const r = await runToolOutput(FFMPEG, measureLoudnessArgs(input, { truePeak: o.truePeak }), o);
  return parseLoudness(r.stderr);
}

/**
 * Voice track + background, loudness-normalised: the integrated loudness of the sum is measured (in-process from the
 * PCM when both tracks are 48 kHz WAV, see ./mix-measure.ts; otherwise by an ffmpeg pass with ebur128), then the sum
 * is written with the gain that reaches the target and a look-ahead limiter for the peaks. Returns the measured
 * loudness, the gain applied, when measured in-process the level envelopes of the sum and of the background, and with
 * `measureOutput` the loudness figures of what was encoded (measured in the same pass).
 * @internal
 */
export async function mixVoiceAndBackground(
  opts: MixOptions,
  o: OpOptions & { targetLufs?: Promise<number>; hopSec?: number } = {},
): Promise<{
  measuredLufs: number | null;
  gainDb: number;
  envelopes: { mix: Envelope; background: Envelope } | null;
  /** Loudness, range and true peak of the samples encoded (with `measureOutput`). */
  output: LoudnessFigures | null;
}> {
  const target = opts.loudness === undefined ? undefined : opts.loudness;
  let measured: number | null = null;
  let gain = 0;
  let envelopes: { mix: Envelope; background: Envelope } | null = null;
  if (target !== null) {
    // the target may still be being measured (the source's loudness): both go side by side
    const [m, I] = await Promise.all([measureMixLoudness(opts, o), o.targetLufs ?? Promise.resolve((target ?? { I: -16 }).I)]);
    measured = m.lufs;
    envelopes = m.envelopes;
    if (measured === null) throw new MediaError('failed', 'the loudness of the mix could not be measured');
    gain = loudnessGainDb(measured, I);
  }
  const r = await runToolOutput(FFMPEG, mixArgs(opts, gain), o);
  nonEmpty(opts.out, 'mixing');
  return { measuredLufs: measured, gainDb: gain, envelopes, output: opts.measureOutput ? parseLoudness(r.stderr) : null };
}

/** The loudness of the plain sum: in-process when the tracks allow it (no decode pass), else by ffmpeg. */
export async function measureMixLoudness(
  opts: MixOptions,
  o: OpOptions & { hopSec?: number },
): Promise<{ lufs: number | null; envelopes: { mix: Envelope; background: Envelope } | null }> {
  const sr = opts.sampleRate ?? LOUDNESS_RATE;
  let curve: { rate: number; samples: Float32Array } | null = null;
  if (opts.voiceGain) {
    try {
      const g = readWav(opts.voiceGain);
      if (g.channels === 1) curve = { rate: g.sampleRate, samples: g.channelData[0]! };
    } catch {
      curve = null;
    }
  }
  if (sr === LOUDNESS_RATE && canMeasureMix(opts.voice, opts.background) && (!opts.voiceGain || curve)) {
    const m = await measureMix({
      voice: opts.voice, background: opts.background, voiceGain: curve, voiceGainDb: opts.voiceGainDb, backgroundGainDb: opts.backgroundGainDb,
      durationSec: opts.durationSec, hopSec: o.hopSec, signal: o.signal,
    });
    return { lufs: m.lufs, envelopes: { mix: m.mix, background: m.background } };
  }
  const r = await runToolOutput(FFMPEG, measureMixArgs(opts), o);
  return { lufs: parseIntegratedLoudness(r.stderr), envelopes: null };
}

/** Re-encodes one audio file by the output's extension, resampled and padded or cut to `durationSec`. */
export async function encodeAudio(
  input: string,
  out: string,
  o: OpOptions & { durationSec?: number; sampleRate?: number; channels?: 1 | 2; fast?: boolean; bitrate?: string; analysisWav?: string } = {},
): Promise<void> {
  await runTool(FFMPEG, encodeAudioArgs(input, out, o), o);
  nonEmpty(out, 'audio encoding');
}

/**
 * Muxes `audio` into `video` as an MP4 (H.264 + AAC) of the video's exact duration and frame rate.
 * The video stream is copied when it is already H.264 yuv420p, otherwise re-encoded (libx264 veryfast).
 */
export async function muxVideo(
  v: { video: string; audio: string; out: string; forceReencode?: boolean },
  o: OpOptions = {},
): Promise<ProbeResult> {
  const src = await probe(v.video, o);
  if (!src.hasVideo) throw new MediaError('failed', 'the source has no video stream');
  const copyVideo = !v.forceReencode && src.videoCodec === 'h264' && (src.pixFmt === 'yuv420p' || src.pixFmt === 'yuvj420p');
  // The mix is already AAC of the video's length: its packets are copied (no second encode).
  const copyAudio = ['.m4a', '.aac', '.mp4'].includes(extname(v.audio).toLowerCase());
  await runTool(FFMPEG, muxArgs({ video: v.video, audio: v.audio, out: v.out, durationSec: src.durationSec, copyVideo, copyAudio }), o);
  return probe(v.out, o);
}

/** Burns an SRT file into the picture. */
export async function burnSubtitles(opts: BurnSubtitlesOptions, o: OpOptions = {}): Promise<void> {
  await runTool(FFMPEG, burnSubtitlesArgs(opts), o);
  nonEmpty(opts.out, 'subtitle burning');
}

/** Time-stretches a WAV by `tempo` (>1 faster) with rubberband; returns the output duration. */
export async function timeStretch(input: string, out: string, tempo: number, o: OpOptions & { fine?: boolean } = {}): Promise<number> {
  await runTool(RUBBERBAND, rubberbandTempoArgs(input, out, tempo, { fine: o.fine }), o);
  return wavDurationSec(out);
}

/** Pitch-shifts a WAV by `semitones` with rubberband (duration kept). */
export async function pitchShift(
  input: string,
  out: string,
  semitones: number,
  o: OpOptions & { preserveFormants?: boolean } = {},
): Promise<void> {
  await runTool(RUBBERBAND, rubberbandPitchArgs(input, out, semitones, { preserveFormants: o.preserveFormants }), o);
}

const MAX_CLIPS_PER_CALL = 64;

/**
 * Places clips at their offsets on a silent track exactly `totalDurationSec` long (to the sample).
 * Long lists are placed in batches onto partial tracks that are then summed, so any count works.
 */
export async function placeClips(
  clips: readonly PlacedClip[],
  totalDurationSec: number,
  out: string,
  o: OpOptions & { sampleRate?: number; channels?: 1 | 2 } = {},
): Promise<void> {
  const fmt = { sampleRate: o.sampleRate, channels: o.channels };
  if (clips.length <= MAX_CLIPS_PER_CALL) {
    await runTool(FFMPEG, placeClipsArgs(clips, totalDurationSec, out, fmt), o);
    return;
  }
  const tmp = mkdtempSync(join(dirname(out), '.place-'));
  try {
    const partials: PlacedClip[] = [];
    for (let i = 0; i < clips.length; i += MAX_CLIPS_PER_CALL) {
      const p = join(tmp, `part-${partials.length}.wav`);
      await runTool(FFMPEG, placeClipsArgs(clips.slice(i, i + MAX_CLIPS_PER_CALL), totalDurationSec, p, fmt), o);
      partials.push({ path: p, offsetSec: 0 });
    }
    await placeClips(partials, totalDurationSec, out, o);
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
}

const CLIPS_PER_RESAMPLE = 48;

/**
 * The same track as placeClips (clips at their offsets on a silent track exactly `totalDurationSec`
 * long, to the sample) in time linear in its length: each clip is resampled once (batches of clips per
 * ffmpeg call) and the track is written front to back, silence between the clips. Clips that overlap
 * (never the case for fitted segments) are summed where they meet, with 16-bit saturation.
 * Writes 16-bit PCM WAV.
 */
export async function sequenceClips(
  clips: readonly PlacedClip[],
  totalDurationSec: number,
  out: string,
  o: OpOptions & { sampleRate?: number; channels?: 1 | 2 } = {},
): Promise<void> {
  const sr = o.sampleRate ?? 48000;
  const channels = o.channels ?? 1;
  const frameBytes = 2 * channels;
  const total = Math.round(totalDurationSec * sr);
  const sorted = clips
    .map((c, i) => ({ ...c, i, at: Math.max(0, Math.round(c.offsetSec * sr)) }))
    .filter((c) => c.at < total)
    .sort((a, b) => a.at - b.at || a.i - b.i);
  const tmp = mkdtempSync(join(dirname(out), '.seq-'));
  const fh = await open(out, 'w+');
  try {
    await fh.write(wavHeader(total, sr, channels), 0, 44, 0);
    const zeros = Buffer.alloc(1 << 16);
    let written = 0; // frames of the track written so far (silence or clip samples)
    const writeSilence = async (until: number) => {
      while (written < until) {
        const n = Math.min(until - written, zeros.length / frameBytes);
        await fh.write(zeros, 0, n * frameBytes, 44 + written * frameBytes);
        written += n;
      }
    };
    // the clips resampled in batches, two at a time (the next one while the last is written), written in order
    const size = Math.max(1, Math.min(CLIPS_PER_RESAMPLE, Math.ceil(sorted.length / 2)));
    const batches: Array<Array<(typeof sorted)[number] & { out: string }>> = [];
    for (let b = 0; b < sorted.length; b += size) batches.push(sorted.slice(b, b + size).map((c, k) => ({ ...c, out: join(tmp, `c${b + k}.raw`) })));
    const resampled: Array<Promise<unknown> | undefined> = [];
    const resample = (i: number) => {
      if (i >= batches.length || resampled[i] !== undefined) return;
      resampled[i] = runTool(FFMPEG, resampleClipsArgs(batches[i]!, { sampleRate: sr, channels }), o);
      resampled[i]!.catch(() => {}); // a failure is seen when its batch is awaited (not an unhandled rejection meanwhile)
    };
    try {
      for (let i = 0; i < batches.length; i++) {
        resample(i);
        resample(i + 1);
        await resampled[i];
        for (const c of batches[i]!) {
          let pcm = await readFile(c.out);
          await rm(c.out, { force: true });
          const frames = Math.min(pcm.length / frameBytes, total - c.at);
          if (frames <= 0) continue;
          pcm = pcm.subarray(0, frames * frameBytes);
          if (c.at < written) {
            // overlap with what is already written: sum the shared part
            const shared = Math.min(written - c.at, frames) * frameBytes;
            const prev = Buffer.alloc(shared);
            await fh.read(prev, 0, shared, 44 + c.at * frameBytes);
            pcm = Buffer.from(pcm);
            for (let p = 0; p < shared; p += 2) pcm.writeInt16LE(Math.max(-32768, Math.min(32767, pcm.readInt16LE(p) + prev.readInt16LE(p))), p);
          } else {
            await writeSilence(c.at);
          }
          await fh.write(pcm, 0, pcm.length, 44 + c.at * frameBytes);
          written = Math.max(written, c.at + frames);
        }
      }
    } finally {
      // a batch still resampling (the one before it failed) ends before its folder is removed
      await Promise.allSettled(resampled);
    }
    await writeSilence(total);
  } finally {
    await fh.close();
    rmSync(tmp, { recursive: true, force: true });
  }
}

/** Cuts a clip to `durationSec` with a short fade-out. */
export async function trimWithFade(input: string, out: string, durationSec: number, o: OpOptions & { fadeSec?: number } = {}): Promise<number> {
  await runTool(FFMPEG, trimFadeArgs(input, out, durationSec, o.fadeSec), o);
  return wavDurationSec(out);
}

/** Builds a synthetic test video (testsrc2 picture + the given soundtrack, silence, or none). @internal */
export async function makeTestVideo(opts: TestVideoOptions, o: OpOptions = {}): Promise<void> {
  await runTool(FFMPEG, testVideoArgs(opts), o);
}

/** Renders a lavfi audio source (e.g. 'sine=frequency=440') to a file. @internal */
export async function synthAudio(
  out: string,
  opts: { seconds: number; source: string; sampleRate?: number; channels?: 1 | 2 },
  o: OpOptions = {},
): Promise<void> {
  await runTool(FFMPEG, synthAudioArgs(out, opts), o);
}

/** A clip of one still picture (optionally moving over a grey canvas), with a soundtrack or none. @internal */
export async function makeStillVideo(opts: StillVideoOptions, o: OpOptions = {}): Promise<void> {
  await runTool(FFMPEG, stillVideoArgs(opts), o);
  nonEmpty(opts.out, 'still video');
}

/** The demo project's video: gradient, speech waveform and title over the given soundtrack (see demoVideoArgs). */
export async function makeDemoVideo(opts: DemoVideoOptions, o: OpOptions = {}): Promise<void> {
  await runTool(FFMPEG, demoVideoArgs(opts), o);
  nonEmpty(opts.out, 'demo video');
}
