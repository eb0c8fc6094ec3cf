// Pure argument builders for every external media tool call. No I/O here: each function returns the
// argument array (tested as data); server/media/ffmpeg.ts and link.ts run them.
import { extname, join } from 'node:path';

export const FFMPEG = 'ffmpeg';
export const FFPROBE = 'ffprobe';
export const YT_DLP = 'yt-dlp';
export const RUBBERBAND = 'rubberband';

/** Common head of every ffmpeg call: no stdin, quiet, overwrite. */
export const FFMPEG_BASE: readonly string[] = ['-nostdin', '-hide_banner', '-loglevel', 'error', '-y'];
/** Deterministic output: no encoder/metadata tags, canonical headers (byte-identical reruns). */
const BITEXACT: readonly string[] = ['-map_metadata', '-1', '-fflags', '+bitexact', '-flags:a', '+bitexact'];

/** Formats a number for ffmpeg options/expressions: fixed decimals, no exponent, no trailing zeros. */
export function num(x: number, decimals = 6): string {
  if (!Number.isFinite(x)) throw new Error(`not a finite number: ${x}`);
  const s = x.toFixed(decimals);
  return s.includes('.') ? s.replace(/0+$/, '').replace(/\.$/, '') : s;
}

/**
 * Escapes a value for use as a filter option inside a filtergraph (two levels, as ffmpeg-filters
 * "Notes on filtergraph escaping" describes): quoted for the option parser, then backslash-escaped for
 * the graph parser. Safe for paths with spaces, quotes, colons, commas and brackets.
 */
export function escapeFilterValue(value: string): string {
  const level1 = `'${value.replace(/'/g, `'\\''`)}'`;
  return level1.replace(/[\\'[\],;]/g, (m) => '\\' + m);
}

/** Audio codec arguments chosen from the output file's extension. */
export function audioCodecArgs(outPath: string, opts: { bitrate?: string; fast?: boolean } = {}): string[] {
  const ext = extname(outPath).toLowerCase();
  switch (ext) {
    case '.wav':
      return ['-c:a', 'pcm_s16le'];
    case '.m4a':
    case '.aac':
    case '.mp4':
      // The fast coder: a third of the default (twoloop) coder's time at this bitrate.
      return ['-c:a', 'aac', ...(opts.fast ? ['-aac_coder', 'fast'] : []), '-b:a', opts.bitrate ?? '192k'];
    case '.mp3':
      return ['-c:a', 'libmp3lame', '-b:a', opts.bitrate ?? '192k'];
    case '.flac':
      return ['-c:a', 'flac'];
    case '.ogg':
    case '.opus':
      return ['-c:a', 'libopus', '-b:a', opts.bitrate ?? '128k'];
    default:
      throw new Error(`unsupported audio output extension: ${ext || '(none)'}`);
  }
}

// ---------------------------------------------------------------- ffprobe

export function ffprobeArgs(input: string): string[] {
  return ['-v', 'error', '-print_format', 'json', '-show_format', '-show_streams', '--', input];
}

// ---------------------------------------------------------------- extraction

/** Mono 16-bit PCM WAV at `sampleRate` (16 kHz for VAD/ASR/diarization) from the first audio stream. */
export function extractMonoWavArgs(input: string, out: string, opts: { sampleRate?: number } = {}): string[] {
  return [
    ...FFMPEG_BASE,
    '-i', input,
    '-map', '0:a:0', '-vn', '-sn', '-dn',
    '-ac', '1', '-ar', String(opts.sampleRate ?? 16000),
    '-c:a', 'pcm_s16le', ...BITEXACT,
    '-f', 'wav', out,
  ];
}

/** Full-quality stereo 16-bit PCM WAV (44.1 or 48 kHz) from the first audio stream; mono is duplicated. */
export function extractStereoWavArgs(input: string, out: string, opts: { sampleRate?: 44100 | 48000 } = {}): string[] {
  return [
    ...FFMPEG_BASE,
    '-i', input,
    '-map', '0:a:0', '-vn', '-sn', '-dn',
    '-ac', '2', '-ar', String(opts.sampleRate ?? 48000),
    '-c:a', 'pcm_s16le', ...BITEXACT,
    '-f', 'wav', out,
  ];
}

/** One JPEG frame at `atSec`, scaled to at most `maxWidth` pixels wide (aspect kept, even sizes). */
export function coverArgs(input: string, out: string, opts: { atSec?: number; maxWidth?: number; quality?: number } = {}): string[] {
  const w = opts.maxWidth ?? 1280;
  return [
    ...FFMPEG_BASE,
    '-ss', num(opts.atSec ?? 0, 3),
    '-i', input,
    '-map', '0:v:0', '-an', '-sn',
    '-frames:v', '1',
    '-vf', `scale='min(${w},iw)':-2`,
    '-q:v', String(opts.quality ?? 3),
    '-f', 'image2', '-update', '1', out,
  ];
}

// ---------------------------------------------------------------- mixing and muxing

export interface LoudnessTarget {
  /** Integrated loudness, LUFS. */
  I: number;
  /** Peak ceiling, dBFS (a look-ahead limiter holds the samples under it). */
  TP: number;
}
export const DEFAULT_LOUDNESS: LoudnessTarget = { I: -16, TP: -1.5 };
/** Sample-peak ceiling that keeps the true peak of the encoded output at or under -1 dBTP (AAC adds overshoot). */
export const TRUE_PEAK_CEILING_DB = -2;

export interface MixOptions {
  voice: string;
  background: string;
  out: string;
  /** Output length; the mix is padded/trimmed to it. Defaults to the background's length. */
  durationSec?: number;
  voiceGainDb?: number;
  /** A gain curve for the voice (float WAV, linear amplitude, any rate): the dub follows the source's speech level. */
  voiceGain?: string;
  backgroundGainDb?: number;
  /** Loudness target of the output (null: the plain sum). */
  loudness?: LoudnessTarget | null;
  sampleRate?: number;
  /**
   * Measure what is encoded (EBU R128 loudness, range and true peak of the final samples, printed by ebur128 on
   * stderr) in the same pass, so the output need not be decoded again to know them.
   */
  measureOutput?: boolean;
}

/** The filter graph of the plain sum: voice track over background, no automatic halving, stereo. */
function mixGraph(o: MixOptions, tail: string): string {
  const sr = o.sampleRate ?? 48000;
  const fmt = `aresample=${sr},aformat=sample_fmts=fltp:channel_layouts=stereo`;
  const voice = o.voiceGain
    ? [
        `[0:a]aresample=${sr},aformat=sample_fmts=fltp:channel_layouts=mono[v0]`,
        `[2:a]aresample=${sr},aformat=sample_fmts=fltp:channel_layouts=mono,apad[g]`,
        `[v0][g]amultiply,${fmt},volume=${num(o.voiceGainDb ?? 0, 2)}dB[v]`,
      ]
    : [`[0:a]${fmt},volume=${num(o.voiceGainDb ?? 0, 2)}dB[v]`];
  return [
    ...voice,
    `[1:a]${fmt},volume=${num(o.backgroundGainDb ?? 0, 2)}dB[b]`,
    `[v][b]amix=inputs=2:duration=${o.durationSec === undefined ? 'second' : 'longest'}:dropout_transition=0:normalize=0${tail}[out]`,
  ].join(';');
}

/**
 * First pass of the loudness normalisation: the integrated loudness (EBU R128) of the plain sum, printed
 * by ebur128 in its summary on stderr (see parseIntegratedLoudness). Nothing is written.
 */
export function measureMixArgs(o: MixOptions): string[] {
  return [
    '-nostdin', '-hide_banner', '-nostats', '-loglevel', 'info', '-y',
    '-i', o.voice,
    '-i', o.background,
    ...(o.voiceGain ? ['-i', o.voiceGain] : []),
    '-filter_complex', mixGraph(o, ',ebur128=framelog=verbose'),
    '-map', '[out]', '-f', 'null', '-',
  ];
}

/** Loudness (EBU R128) of a file's first audio stream, measured by ebur128 (summary on stderr); with its true peak when asked. */
export function measureLoudnessArgs(input: string, o: { truePeak?: boolean } = {}): string[] {
  return ['-nostdin', '-hide_banner', '-nostats', '-loglevel', 'info', '-i', input, '-map', '0:a:0', '-af', o.truePeak ? 'ebur128=peak=true' : 'ebur128', '-f', 'null', '-'];
}

export interface LoudnessFigures {
  /** Integrated loudness, LUFS (-Infinity for silence). */
  I: number;
  /** Loudness range, LU. */
  LRA: number | null;
  /** True peak, dBTP (when measured). */
  TP: number | null;
}

/** Integrated loudness, loudness range and true peak from ebur128's summary (null when absent). */
export function parseLoudness(stderr: string): LoudnessFigures | null {
  const I = parseIntegratedLoudness(stderr);
  if (I === null) return null;
  const s = stderr.slice(stderr.lastIndexOf('Integrated loudness:'));
  const lra = /LRA:\s*(-?\d+(?:\.\d+)?)\s*LU/.exec(s);
  const tp = /True peak:\s*\n?\s*Peak:\s*(-?inf|-?\d+(?:\.\d+)?)\s*dBFS/i.exec(s);
  return {
    I,
    LRA: lra ? Number(lra[1]) : null,
    TP: tp ? (/inf/i.test(tp[1]!) ? -Infinity : Number(tp[1])) : null,
  };
}

/** The integrated loudness from ebur128's summary (LUFS; -Infinity for silence), or null when absent. */
export function parseIntegratedLoudness(stderr: string): number | null {
  const at = stderr.lastIndexOf('Integrated loudness:');
  if (at < 0) return null;
  const m = /I:\s*(-?inf|-?\d+(?:\.\d+)?)\s*LUFS/i.exec(stderr.slice(at));
  if (!m) return null;
  return /inf/i.test(m[1]!) ? -Infinity : Number(m[1]);
}

/** Gain (dB) that brings a measured loudness to the target; silence and absurd values get bounded gains. */
export function loudnessGainDb(measuredLufs: number | null, targetLufs: number): number {
  if (measuredLufs === null || !Number.isFinite(measuredLufs) || measuredLufs < -70) return 0;
  return Math.max(-30, Math.min(30, targetLufs - measuredLufs));
}

/**
 * Voice track over background, summed (no automatic halving), stereo; with a loudness target, the measured
 * gain (`gainDb`, from the first pass) and a look-ahead limiter (latency compensated, so nothing moves)
 * holding the peaks under `TP`. AAC output uses the fast coder. The output is exactly `durationSec` long.
 */
export function mixArgs(o: MixOptions, gainDb = 0): string[] {
  const sr = o.sampleRate ?? 48000;
  const ln = o.loudness === undefined ? DEFAULT_LOUDNESS : o.loudness;
  let tail = '';
  if (ln) {
    const limit = Math.min(1, Math.max(0.0625, 10 ** (ln.TP / 20)));
    tail += `,volume=${num(gainDb, 2)}dB,alimiter=limit=${num(limit, 4)}:attack=5:release=50:level=disabled:latency=1`;
  }
  if (o.durationSec !== undefined) {
    const n = Math.round(o.durationSec * sr);
    tail += `,apad=whole_len=${n},atrim=end_sample=${n}`;
  }
  // ebur128 passes the samples through unchanged; its summary needs the info level (its per-frame lines are hidden)
  if (o.measureOutput) tail += ',ebur128=peak=true:framelog=verbose';
  return [
    ...(o.measureOutput ? ['-nostdin', '-hide_banner', '-nostats', '-loglevel', 'info', '-y'] : FFMPEG_BASE),
    '-i', o.voice,
    '-i', o.background,
    ...(o.voiceGain ? ['-i', o.voiceGain] : []),
    '-filter_complex', mixGraph(o, tail),
    '-map', '[out]', '-ar', String(sr), '-ac', '2',
    ...audioCodecArgs(o.out, { fast: true }), ...BITEXACT,
    o.out,
  ];
}

/**
 * One audio file re-encoded by its output extension (resampled, channels set, padded or cut to `durationSec`); AAC with
 * the fast coder and the bitrate asked. With `analysisWav`, the same decode also writes a mono 16 kHz WAV of it.
 */
export function encodeAudioArgs(
  input: string,
  out: string,
  o: { durationSec?: number; sampleRate?: number; channels?: 1 | 2; fast?: boolean; bitrate?: string; analysisWav?: string } = {},
): string[] {
  const sr = o.sampleRate ?? 48000;
  const layout = (o.channels ?? 1) === 2 ? 'stereo' : 'mono';
  let af = `aresample=${sr},aformat=sample_fmts=fltp:channel_layouts=${layout}`;
  if (o.durationSec !== undefined) {
    const n = Math.round(o.durationSec * sr);
    af += `,apad=whole_len=${n},atrim=end_sample=${n}`;
  }
  const main = [...FFMPEG_BASE, '-i', input, '-af', af, '-ar', String(sr), ...audioCodecArgs(out, { fast: o.fast, bitrate: o.bitrate }), ...BITEXACT, out];
  if (!o.analysisWav) return main;
  // the same samples, also as a mono 16 kHz WAV (what the quality report analyses), from the one decode
  let analysis = 'aresample=16000,aformat=sample_fmts=fltp:channel_layouts=mono';
  if (o.durationSec !== undefined) {
    const n = Math.round(o.durationSec * 16000);
    analysis += `,apad=whole_len=${n},atrim=end_sample=${n}`;
  }
  return [...main, '-map', '0:a:0', '-af', analysis, '-ar', '16000', '-c:a', 'pcm_s16le', ...BITEXACT, '-f', 'wav', o.analysisWav];
}

export interface MuxOptions {
  video: string;
  audio: string;
  out: string;
  /** Duration of the source video: the output is exactly this long (audio padded or cut). */
  durationSec: number;
  /** Copy the video stream (input already H.264 yuv420p); otherwise re-encode with libx264. */
  copyVideo: boolean;
  /** Copy the audio stream (already AAC, exactly the video's length); otherwise encode it to AAC. */
  copyAudio?: boolean;
  preset?: string;
  crf?: number;
  audioBitrate?: string;
}

/** New audio into the video as H.264 + AAC MP4, same duration and frame rate, fast-start. The AAC of the
 * mix is copied as it is (encoding it again costs time and quality). */
export function muxArgs(o: MuxOptions): string[] {
  const video = o.copyVideo
    ? ['-c:v', 'copy']
    : [
        '-c:v', 'libx264', '-preset', o.preset ?? 'veryfast', '-crf', String(o.crf ?? 20),
        '-pix_fmt', 'yuv420p', '-vf', 'scale=trunc(iw/2)*2:trunc(ih/2)*2',
      ];
  return [
    ...FFMPEG_BASE,
    '-i', o.video,
    '-i', o.audio,
    '-map', '0:v:0', '-map', '1:a:0', '-sn', '-dn',
    ...video,
    ...(o.copyAudio ? ['-c:a', 'copy'] : ['-af', 'apad', '-c:a', 'aac', '-b:a', o.audioBitrate ?? '192k', '-ar', '48000', '-ac', '2']),
    '-t', num(o.durationSec, 3),
    '-map_metadata', '-1',
    '-movflags', '+faststart',
    '-f', 'mp4', o.out,
  ];
}

export interface BurnSubtitlesOptions {
  video: string;
  srt: string;
  out: string;
  fontName?: string;
  fontSize?: number;
  preset?: string;
  crf?: number;
}

/** Subtitles rendered into the picture (libass), video re-encoded with libx264, audio copied. */
export function burnSubtitlesArgs(o: BurnSubtitlesOptions): string[] {
  const style = `FontName=${o.fontName ?? 'DejaVu Sans'},FontSize=${o.fontSize ?? 18},Outline=1,Shadow=0,MarginV=20`;
  const filter =
    `subtitles=filename=${escapeFilterValue(o.srt)}:charenc=UTF-8:force_style=${escapeFilterValue(style)},` +
    'scale=trunc(iw/2)*2:trunc(ih/2)*2';
  return [
    ...FFMPEG_BASE,
    '-i', o.video,
    '-map', '0:v:0', '-map', '0:a?',
    '-vf', filter,
    '-c:v', 'libx264', '-preset', o.preset ?? 'veryfast', '-crf', String(o.crf ?? 20), '-pix_fmt', 'yuv420p',
    '-c:a', 'copy',
    '-map_metadata', '-1',
    '-movflags', '+faststart',
    '-f', 'mp4', o.out,
  ];
}

// ---------------------------------------------------------------- rubberband

/** Changes tempo by `tempo` (1.2 = 20 % faster, output 1/1.2 as long), pitch kept. */
export function rubberbandTempoArgs(input: string, out: string, tempo: number, opts: { fine?: boolean } = {}): string[] {
  if (!(tempo > 0)) throw new Error(`invalid tempo ${tempo}`);
  return ['-q', ...(opts.fine ? ['-3'] : []), '--tempo', num(tempo, 6), input, out];
}

/** Shifts pitch by `semitones`, duration kept; formants follow the pitch unless preserveFormants. */
export function rubberbandPitchArgs(input: string, out: string, semitones: number, opts: { preserveFormants?: boolean } = {}): string[] {
  return ['-q', ...(opts.preserveFormants ? ['-F'] : []), '--pitch', num(semitones, 4), input, out];
}

// ---------------------------------------------------------------- clip placement

export interface PlacedClip {
  path: string;
  /** Where the clip starts on the output track, seconds. */
  offsetSec: number;
}

/**
 * Places clips at their offsets on a silent track exactly `totalDurationSec` long (to the sample).
 * Each clip is resampled, delayed by an integer number of samples and summed with a silent base.
 */
export function placeClipsArgs(
  clips: readonly PlacedClip[],
  totalDurationSec: number,
  out: string,
  opts: { sampleRate?: number; channels?: 1 | 2 } = {},
): string[] {
  const sr = opts.sampleRate ?? 48000;
  const layout = (opts.channels ?? 1) === 2 ? 'stereo' : 'mono';
  const total = Math.round(totalDurationSec * sr);
  const inputs: string[] = [];
  const parts: string[] = [`anullsrc=r=${sr}:cl=${layout},atrim=end_sample=${total}[base]`];
  const labels = ['[base]'];
  clips.forEach((c, i) => {
    inputs.push('-i', c.path);
    const delay = Math.max(0, Math.round(c.offsetSec * sr));
    parts.push(
      `[${i}:a]aresample=${sr},aformat=sample_fmts=fltp:channel_layouts=${layout},` +
        `adelay=delays=${delay}S:all=1[c${i}]`,
    );
    labels.push(`[c${i}]`);
  });
  parts.push(
    `${labels.join('')}amix=inputs=${labels.length}:duration=first:dropout_transition=0:normalize=0,` +
      `atrim=end_sample=${total}[out]`,
  );
  return [
    ...FFMPEG_BASE,
    ...inputs,
    '-filter_complex', parts.join(';'),
    '-map', '[out]', '-ar', String(sr),
    ...audioCodecArgs(out), ...BITEXACT,
    out,
  ];
}

/**
 * Each clip resampled to `sampleRate` and written as raw 16-bit PCM (s16le) to its own output: the pieces
 * of a sequenced track (see sequenceClips). The conversion is the one placeClipsArgs applies to each
 * clip, so the samples are the same.
 */
export function resampleClipsArgs(
  clips: ReadonlyArray<{ path: string; out: string }>,
  opts: { sampleRate?: number; channels?: 1 | 2 } = {},
): string[] {
  const sr = opts.sampleRate ?? 48000;
  const layout = (opts.channels ?? 1) === 2 ? 'stereo' : 'mono';
  const args: string[] = [...FFMPEG_BASE];
  for (const c of clips) args.push('-i', c.path);
  args.push(
    '-filter_complex',
    clips.map((_, i) => `[${i}:a]aresample=${sr},aformat=sample_fmts=fltp:channel_layouts=${layout}[c${i}]`).join(';'),
  );
  clips.forEach((c, i) => args.push('-map', `[c${i}]`, '-ar', String(sr), '-c:a', 'pcm_s16le', '-f', 's16le', c.out));
  return args;
}

/** Cuts a clip to `durationSec` with a linear fade-out over its last `fadeSec`. */
export function trimFadeArgs(input: string, out: string, durationSec: number, fadeSec = 0.05): string[] {
  const fade = Math.min(fadeSec, durationSec);
  return [
    ...FFMPEG_BASE,
    '-i', input,
    '-af', `atrim=end=${num(durationSec)},afade=t=out:st=${num(Math.max(0, durationSec - fade))}:d=${num(fade)}`,
    ...audioCodecArgs(out), ...BITEXACT,
    out,
  ];
}

// ---------------------------------------------------------------- demo video

export interface DemoVideoOptions {
  out: string;
  /** The speech soundtrack (any audio file ffmpeg reads). */
  audio: string;
  width?: number;
  height?: number;
  fps?: number;
  /** Title and subtitle drawn on the picture (needs ffmpeg's drawtext and a font); none when omitted. */
  title?: string;
  subtitle?: string;
}

/** Text safe inside a quoted drawtext option: characters the filter-graph parser would read are left out. */
function drawtextText(s: string): string {
  return s.replace(/['\\:%;[\]]/g, '');
}

/**
 * The demo project's video (made at setup from the LibriVox clips): a slow colour gradient, the speech's
 * waveform and a title, H.264 + AAC in MP4, as long as the soundtrack.
 */
export function demoVideoArgs(o: DemoVideoOptions): string[] {
  const w = o.width ?? 640;
  const h = o.height ?? 360;
  const fps = o.fps ?? 25;
  const waveW = w - 80;
  const text = [
    o.title ? `drawtext=text='${drawtextText(o.title)}':fontcolor=white:fontsize=${Math.round(h / 10.5)}:x=40:y=${Math.round(h / 6)}` : null,
    o.subtitle ? `drawtext=text='${drawtextText(o.subtitle)}':fontcolor=0xdfe6f3:fontsize=${Math.round(h / 20)}:x=40:y=${Math.round(h / 3.3)}` : null,
  ].filter((x): x is string => x !== null);
  const graph = [
    `[1:a]aformat=channel_layouts=mono,showwaves=size=${waveW}x${Math.round(h / 3)}:mode=cline:rate=${fps}:colors=0xf2c14e[w]`,
    `[0:v][w]overlay=x=40:y=${Math.round(h * 0.55)}:shortest=1[b]`,
    `[b]${[...text, 'format=yuv420p'].join(',')}[v]`,
  ].join(';');
  return [
    ...FFMPEG_BASE,
    '-f', 'lavfi', '-i', `gradients=size=${w}x${h}:rate=${fps}:c0=0x1f2a44:c1=0x3b5b8c:x0=0:y0=0:x1=${w}:y1=${h}:speed=0.01`,
    '-i', o.audio,
    '-filter_complex', graph,
    '-map', '[v]', '-map', '1:a:0',
    '-c:v', 'libx264', '-preset', 'veryfast', '-pix_fmt', 'yuv420p', '-g', String(fps),
    '-af', 'aresample=48000,aformat=channel_layouts=stereo', '-c:a', 'aac', '-b:a', '96k',
    '-movflags', '+faststart',
    o.out,
  ];
}

// ---------------------------------------------------------------- test media

export interface TestVideoOptions {
  out: string;
  seconds: number;
  width?: number;
  height?: number;
  fps?: number;
  /** An audio file to use as the soundtrack, 'silence' for a silent track, null for no audio stream. */
  audio?: string | 'silence' | null;
  /** Stereo soundtrack (mono sources are duplicated). */
  stereo?: boolean;
  /** Put the index at the end of the file (default MP4 layout, so truncation loses it). */
  faststart?: boolean;
}

/** A synthetic test clip: testsrc2 picture, H.264 + AAC in MP4 (or by extension for .mkv/.webm). */
export function testVideoArgs(o: TestVideoOptions): string[] {
  const w = o.width ?? 320;
  const h = o.height ?? 240;
  const fps = o.fps ?? 25;
  const audio = o.audio === undefined ? 'silence' : o.audio;
  const ch = o.stereo === false ? 'mono' : 'stereo';
  const args = [...FFMPEG_BASE, '-f', 'lavfi', '-i', `testsrc2=size=${w}x${h}:rate=${fps}`];
  if (audio === 'silence') args.push('-f', 'lavfi', '-i', `anullsrc=r=48000:cl=${ch}`);
  else if (audio) args.push('-i', audio);
  args.push('-map', '0:v:0');
  if (audio) args.push('-map', '1:a:0', '-af', `aresample=48000,aformat=channel_layouts=${ch},apad`, '-c:a', 'aac', '-b:a', '96k');
  args.push('-c:v', 'libx264', '-preset', 'ultrafast', '-pix_fmt', 'yuv420p', '-g', String(fps));
  args.push('-t', num(o.seconds, 3));
  if (o.faststart) args.push('-movflags', '+faststart');
  args.push(o.out);
  return args;
}

/** A tone or noise WAV from lavfi (test media and calibration). */
export function synthAudioArgs(
  out: string,
  o: { seconds: number; source: string; sampleRate?: number; channels?: 1 | 2 },
): string[] {
  return [
    ...FFMPEG_BASE,
    '-f', 'lavfi', '-i', o.source,
    '-t', num(o.seconds, 3),
    '-ar', String(o.sampleRate ?? 48000), '-ac', String(o.channels ?? 1),
    ...audioCodecArgs(out), ...BITEXACT, out,
  ];
}

// ---------------------------------------------------------------- yt-dlp

export interface YtDlpFetchOptions {
  /** Skip (and fail) videos longer than this. */
  maxDurationSec?: number;
  maxFilesizeBytes?: number;
  /** Output file name without extension. */
  baseName?: string;
  /** Every request goes through this HTTP proxy (the egress guard). */
  proxy?: string;
}

/** Best MP4 (H.264/AAC preferred), single video (no playlist), merged to MP4; prints the final path. */
export function ytDlpFetchArgs(url: string, outDir: string, o: YtDlpFetchOptions = {}): string[] {
  const args = [
    '--no-playlist', '--no-progress', '--no-warnings', '--no-color', '--no-mtime', '--no-part',
    '--no-cache-dir', '--no-config',
    '--restrict-filenames',
    '--socket-timeout', '30', '--retries', '2',
    '-f', 'bv*[ext=mp4]+ba[ext=m4a]/b[ext=mp4]/bv*+ba/b',
    '--merge-output-format', 'mp4',
    '-o', join(outDir, `${o.baseName ?? 'source'}.%(ext)s`),
    '--print', 'after_move:filepath',
  ];
  if (o.maxDurationSec !== undefined) args.push('--match-filter', `duration <=? ${Math.floor(o.maxDurationSec)}`);
  if (o.maxFilesizeBytes !== undefined) args.push('--max-filesize', String(o.maxFilesizeBytes));
  if (o.proxy) args.push('--proxy', o.proxy);
  args.push('--', url);
  return args;
}

/** Metadata of a link as JSON, nothing downloaded. */
export function ytDlpProbeArgs(url: string, o: { proxy?: string } = {}): string[] {
  return ['-J', '--no-playlist', '--no-warnings', '--no-color', '--no-cache-dir', '--no-config', '--socket-timeout', '30', ...(o.proxy ? ['--proxy', o.proxy] : []), '--', url];
}

// ---------------------------------------------------------------- raw frames (face check, lip-sync)

/** Pixel layouts of raw frames: RGB for the face detector, planar YUV 4:2:0 for re-rendering. */
export type RawPixelFormat = 'rgb24' | 'yuv420p';

export interface DecodeFramesOptions {
  /** Output size; the picture is scaled to exactly this (callers keep the aspect ratio). */
  width: number;
  height: number;
  pixFmt: RawPixelFormat;
  /** Constant output frame rate (an ffmpeg rate: '25', '30000/1001', '0.5'); frames are dropped/duplicated to it. */
  fps: string;
  /** Start reading at this time, seconds. */
  startSec?: number;
}

/** Decodes the first video stream to raw frames on stdout (no audio): rawvideo of a fixed size and rate. */
export function decodeFramesArgs(input: string, o: DecodeFramesOptions): string[] {
  if (!(o.width > 0 && o.height > 0)) throw new Error(`invalid frame size ${o.width}x${o.height}`);
  const filters = [`fps=${o.fps}`, `scale=${o.width}:${o.height}:flags=area`, `format=${o.pixFmt}`];
  return [
    ...FFMPEG_BASE,
    ...(o.startSec ? ['-ss', num(o.startSec, 3)] : []),
    '-i', input,
    '-map', '0:v:0', '-an', '-sn', '-dn',
    '-vf', filters.join(','),
    '-f', 'rawvideo', '-pix_fmt', o.pixFmt,
    'pipe:1',
  ];
}

export interface EncodeFramesOptions {
  width: number;
  height: number;
  /** Rate of the raw frames on stdin (an ffmpeg rate: '25', '30000/1001'). */
  fps: string;
  /** A file whose first audio stream becomes the output's audio (absent: no audio). */
  audioFrom?: string | null;
  out: string;
  /** Output duration, seconds (the audio is padded or cut to it). */
  durationSec: number;
  /** Colour tags of the source, copied so players show the same colours. */
  color?: { space?: string | null; primaries?: string | null; transfer?: string | null; range?: string | null };
  crf?: number;
  preset?: string;
}

/** Encodes raw yuv420p frames from stdin (plus the audio of `audioFrom`) into an H.264/AAC MP4. */
export function encodeFramesArgs(o: EncodeFramesOptions): string[] {
  const c = o.color ?? {};
  const tags: string[] = [];
  if (c.space && c.space !== 'unknown') tags.push('-colorspace', c.space);
  if (c.primaries && c.primaries !== 'unknown') tags.push('-color_primaries', c.primaries);
  if (c.transfer && c.transfer !== 'unknown') tags.push('-color_trc', c.transfer);
  if (c.range && c.range !== 'unknown') tags.push('-color_range', c.range);
  const args = [
    ...FFMPEG_BASE,
    '-f', 'rawvideo', '-pix_fmt', 'yuv420p', '-s', `${o.width}x${o.height}`, '-r', o.fps, ...tags, '-i', 'pipe:0',
  ];
  if (o.audioFrom) args.push('-i', o.audioFrom);
  args.push('-map', '0:v:0');
  if (o.audioFrom) args.push('-map', '1:a:0', '-af', 'apad', '-c:a', 'aac', '-b:a', '192k', '-ar', '48000', '-ac', '2');
  args.push(
    '-c:v', 'libx264', '-preset', o.preset ?? 'veryfast', '-crf', String(o.crf ?? 18), '-pix_fmt', 'yuv420p', ...tags,
    '-t', num(o.durationSec, 3),
    '-map_metadata', '-1',
    '-movflags', '+faststart',
    '-f', 'mp4', o.out,
  );
  return args;
}

export interface StillVideoOptions {
  /** A picture (JPEG/PNG) shown for the whole clip. */
  image: string;
  /** Part of the picture to use, pixels of the picture. */
  crop?: { x: number; y: number; width: number; height: number };
  out: string;
  seconds: number;
  width: number;
  height: number;
  fps?: number;
  /**
   * Where the picture sits, as ffmpeg expressions of t (seconds) over the canvas: the picture is scaled to
   * `scaleWidth` pixels wide (aspect kept) and overlaid at (x, y) on a grey canvas. Default: fills the canvas.
   */
  placement?: { scaleWidth: number; x: string; y: string };
  /** Soundtrack file, or null for none. */
  audio?: string | null;
}

/** A clip made of one still picture (test media and benchmarks: a face photo that can move across the frame). */
export function stillVideoArgs(o: StillVideoOptions): string[] {
  const fps = o.fps ?? 25;
  const args = [...FFMPEG_BASE, '-f', 'lavfi', '-i', `color=c=0x606060:size=${o.width}x${o.height}:rate=${fps}`, '-loop', '1', '-framerate', String(fps), '-i', o.image];
  if (o.audio) args.push('-i', o.audio);
  const p = o.placement;
  const c = o.crop ? `crop=${o.crop.width}:${o.crop.height}:${o.crop.x}:${o.crop.y},` : '';
  const graph = p
    ? `[1:v]${c}scale=${p.scaleWidth}:-2[pic];[0:v][pic]overlay=x='${p.x}':y='${p.y}':eval=frame:shortest=1,format=yuv420p[v]`
    : `[1:v]${c}scale=${o.width}:${o.height}:force_original_aspect_ratio=increase,crop=${o.width}:${o.height},format=yuv420p[v]`;
  args.push('-filter_complex', graph, '-map', '[v]');
  if (o.audio) args.push('-map', '2:a:0', '-af', 'aresample=48000,apad', '-c:a', 'aac', '-b:a', '96k');
  args.push('-c:v', 'libx264', '-preset', 'ultrafast', '-pix_fmt', 'yuv420p', '-g', String(fps), '-t', num(o.seconds, 3), o.out);
  return args;
}
