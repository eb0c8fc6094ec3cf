// Media operations: each runs one builder from ./args with ./run and maps tool failures to MediaError.
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import {
  FFMPEG,
  RUBBERBAND,
  burnSubtitlesArgs,
  concatAudioArgs,
  coverArgs,
  extractMonoWavArgs,
  extractStereoWavArgs,
  mixArgs,
  muxArgs,
  placeClipsArgs,
  rubberbandPitchArgs,
  rubberbandTempoArgs,
  separationArgs,
  synthAudioArgs,
  testVideoArgs,
  trimFadeArgs,
  type BurnSubtitlesOptions,
  type MixOptions,
  type PlacedClip,
  type TestVideoOptions,
} from './args';
import { CommandError, MediaError } from './errors';
import { probe, type ProbeResult } from './probe';
import { run } from './run';
import { GATE_SAMPLE_RATE, regionGate } from './gate';
import { readWavInfo, wavDurationSec, writeWav } from './wav';

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
  try {
    const r = await run(cmd, args, { signal: o.signal, timeoutMs: o.timeoutMs ?? DEFAULT_TIMEOUT });
    return r.stdout;
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

/** Voice track + background, loudness-normalised. */
export async function mixVoiceAndBackground(opts: MixOptions, o: OpOptions = {}): Promise<void> {
  await runTool(FFMPEG, mixArgs(opts), o);
  nonEmpty(opts.out, 'mixing');
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
  await runTool(FFMPEG, muxArgs({ video: v.video, audio: v.audio, out: v.out, durationSec: src.durationSec, copyVideo }), o);
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

/** Cuts a clip to `durationSec` with a short fade-out. */
export async function trimWithFade(input: string, out: string, durationSec: number, o: OpOptions & { fadeSec?: number } = {}): Promise<number> {
  await runTool(FFMPEG, trimFadeArgs(input, out, durationSec, o.fadeSec), o);
  return wavDurationSec(out);
}

/** Concatenates audio files back to back into one mono WAV. */
export async function concatAudio(inputs: readonly string[], out: string, o: OpOptions & { sampleRate?: number } = {}): Promise<void> {
  if (inputs.length === 0) throw new Error('concatAudio needs at least one input');
  await runTool(FFMPEG, concatAudioArgs(inputs, out, { sampleRate: o.sampleRate }), o);
}

export interface SeparateVoiceOptions {
  /** WAV input (stereo or mono). */
  input: string;
  voiceOut: string;
  backgroundOut: string;
  /** Speech regions, seconds. */
  regions: ReadonlyArray<{ start: number; end: number }>;
  bandHz?: [number, number];
  voiceShare?: number;
  /** Gate ramp at region edges, seconds (default 0.04). */
  rampSec?: number;
}

/** DSP voice/background split (see separationArgs). Outputs have the input's length. */
export async function separateVoice(opts: SeparateVoiceOptions, o: OpOptions = {}): Promise<void> {
  let sampleRate: number;
  let durationSec: number;
  try {
    const info = readWavInfo(opts.input);
    sampleRate = info.sampleRate;
    durationSec = info.durationSec;
  } catch {
    const p = await probe(opts.input, o);
    if (!p.hasAudio || !p.audioSampleRate) throw new MediaError('no_audio', 'the separation input has no audio');
    sampleRate = p.audioSampleRate;
    durationSec = p.durationSec;
  }
  const tmp = mkdtempSync(join(dirname(opts.voiceOut), '.sep-'));
  try {
    const gate = join(tmp, 'gate.wav');
    writeWav(gate, [regionGate(opts.regions, { durationSec, sampleRate: GATE_SAMPLE_RATE, rampSec: opts.rampSec })], GATE_SAMPLE_RATE);
    await runTool(
      FFMPEG,
      separationArgs({
        input: opts.input,
        gate,
        sampleRate,
        voiceOut: opts.voiceOut,
        backgroundOut: opts.backgroundOut,
        bandHz: opts.bandHz,
        voiceShare: opts.voiceShare,
      }),
      o,
    );
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
  nonEmpty(opts.voiceOut, 'separation');
  nonEmpty(opts.backgroundOut, 'separation');
}

/** Builds a synthetic test video (testsrc2 picture + the given soundtrack, silence, or none). */
export async function makeTestVideo(opts: TestVideoOptions, o: OpOptions = {}): Promise<void> {
  await runTool(FFMPEG, testVideoArgs(opts), o);
}

/** Renders a lavfi audio source (e.g. 'sine=frequency=440') to a file. */
export async function synthAudio(
  out: string,
  opts: { seconds: number; source: string; sampleRate?: number; channels?: 1 | 2 },
  o: OpOptions = {},
): Promise<void> {
  await runTool(FFMPEG, synthAudioArgs(out, opts), o);
}
