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
export function audioCodecArgs(outPath: string, opts: { bitrate?: string } = {}): string[] {
  const ext = extname(outPath).toLowerCase();
  switch (ext) {
    case '.wav':
      return ['-c:a', 'pcm_s16le'];
    case '.m4a':
    case '.aac':
    case '.mp4':
      return ['-c:a', 'aac', '-b:a', opts.bitrate ?? '192k'];
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
  /** True peak, dBTP. */
  TP: number;
  /** Loudness range, LU. */
  LRA: number;
}
export const DEFAULT_LOUDNESS: LoudnessTarget = { I: -16, TP: -1.5, LRA: 11 };

export interface MixOptions {
  voice: string;
  background: string;
  out: string;
  /** Output length; the mix is padded/trimmed to it. Defaults to the background's length. */
  durationSec?: number;
  voiceGainDb?: number;
  backgroundGainDb?: number;
  loudness?: LoudnessTarget | null;
  sampleRate?: number;
}

/** Voice track over background, summed (no automatic halving), loudness-normalised (EBU R128), stereo. */
export function mixArgs(o: MixOptions): string[] {
  const sr = o.sampleRate ?? 48000;
  const ln = o.loudness === undefined ? DEFAULT_LOUDNESS : o.loudness;
  const fmt = `aresample=${sr},aformat=sample_fmts=fltp:channel_layouts=stereo`;
  const chain = [
    `[0:a]${fmt},volume=${num(o.voiceGainDb ?? 0, 2)}dB[v]`,
    `[1:a]${fmt},volume=${num(o.backgroundGainDb ?? 0, 2)}dB[b]`,
  ];
  let mixTail = `[v][b]amix=inputs=2:duration=${o.durationSec === undefined ? 'second' : 'longest'}:dropout_transition=0:normalize=0`;
  if (ln) mixTail += `,loudnorm=I=${num(ln.I, 2)}:TP=${num(ln.TP, 2)}:LRA=${num(ln.LRA, 2)},aresample=${sr}`;
  if (o.durationSec !== undefined) {
    const n = Math.round(o.durationSec * sr);
    mixTail += `,apad=whole_len=${n},atrim=end_sample=${n}`;
  }
  chain.push(`${mixTail}[out]`);
  return [
    ...FFMPEG_BASE,
    '-i', o.voice,
    '-i', o.background,
    '-filter_complex', chain.join(';'),
    '-map', '[out]', '-ar', String(sr), '-ac', '2',
    ...audioCodecArgs(o.out), ...BITEXACT,
    o.out,
  ];
}

export interface MuxOptions {
  video: string;
  audio: string;
  out: string;
  /** Duration of the source video: the output is exactly this long (audio padded or cut). */
  durationSec: number;
  /** Copy the video stream (input already H.264 yuv420p); otherwise re-encode with libx264. */
  copyVideo: boolean;
  preset?: string;
  crf?: number;
  audioBitrate?: string;
}

/** New audio into the video as H.264 + AAC MP4, same duration and frame rate, fast-start. */
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
    '-af', 'apad',
    '-c:a', 'aac', '-b:a', o.audioBitrate ?? '192k', '-ar', '48000', '-ac', '2',
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

/** Concatenates audio files back to back (same or different formats), mono PCM WAV at `sampleRate`. */
export function concatAudioArgs(inputs: readonly string[], out: string, opts: { sampleRate?: number } = {}): string[] {
  const sr = opts.sampleRate ?? 16000;
  const parts = inputs.map((_, i) => `[${i}:a]aresample=${sr},aformat=sample_fmts=fltp:channel_layouts=mono[a${i}]`);
  parts.push(`${inputs.map((_, i) => `[a${i}]`).join('')}concat=n=${inputs.length}:v=0:a=1[out]`);
  return [
    ...FFMPEG_BASE,
    ...inputs.flatMap((p) => ['-i', p]),
    '-filter_complex', parts.join(';'),
    '-map', '[out]', ...audioCodecArgs(out), ...BITEXACT, out,
  ];
}

// ---------------------------------------------------------------- separation

export interface SeparationArgsOptions {
  input: string;
  /** A mono WAV holding the region gate (see gateSamples): 1 inside speech regions, 0 outside. */
  gate: string;
  /** Sample rate of the input (the gate is resampled to it). */
  sampleRate: number;
  voiceOut: string;
  backgroundOut: string;
  /** Speech band of the centre channel at full gain, Hz (ramps to 0 over 0.6×low..low and high..1.4×high). */
  bandHz?: [number, number];
  /** Share of the centre's speech band moved to the voice inside regions (0..1). */
  voiceShare?: number;
}

/** Window of the spectral band filter; its latency (win - hop) is compensated by padding and trimming. */
export const SEPARATION_FFT_WIN = 4096;
const SEPARATION_FFT_DELAY = (SEPARATION_FFT_WIN * 3) / 4;

/** Zero-phase spectral gain of afftfilt bins: `share` inside [lo, hi], linear ramps outside. */
export function speechBandGainExpr(lo: number, hi: number, share: number): string {
  const f = 'b*sr/(2*nb)';
  const lo0 = lo * 0.6;
  const hi1 = hi * 1.4;
  return `${num(share, 4)}*clip((${f}-${num(lo0, 2)})/${num(lo - lo0, 2)},0,1)*clip((${num(hi1, 2)}-${f})/${num(hi1 - hi, 2)},0,1)`;
}

/**
 * DSP background separation. The centre C=(L+R)/2 carries dialogue: its speech band (a zero-phase
 * spectral gain, latency-compensated so it stays sample-aligned), multiplied by the region gate (input
 * 1), is the voice estimate V (mono). The background is the input minus V on both channels: the side
 * signal (L-R, much of the music and effects) is untouched and, inside regions, the centre's speech
 * band is attenuated to (1 - voiceShare). V + background reconstructs the input; both have the
 * input's length.
 */
export function separationArgs(o: SeparationArgsOptions): string[] {
  const [lo, hi] = o.bandHz ?? [150, 4500];
  const gain = speechBandGainExpr(lo, hi, o.voiceShare ?? 0.92);
  const graph = [
    `[0:a]aformat=sample_fmts=fltp:channel_layouts=stereo,asplit=2[orig][forv]`,
    `[1:a]aresample=${o.sampleRate},aformat=sample_fmts=fltp:channel_layouts=mono,apad[gate]`,
    `[forv]pan=mono|c0=0.5*c0+0.5*c1,` +
      `apad=pad_len=${SEPARATION_FFT_DELAY},` +
      `afftfilt=real=${escapeFilterValue(`re*${gain}`)}:imag=${escapeFilterValue(`im*${gain}`)}:win_size=${SEPARATION_FFT_WIN},` +
      `atrim=start_sample=${SEPARATION_FFT_DELAY},asetpts=PTS-STARTPTS[band]`,
    `[band][gate]amultiply,asplit=2[v1][v2]`,
    `[orig][v2]amerge=inputs=2,pan=stereo|c0=c0-c2|c1=c1-c2[bg]`,
  ].join(';');
  return [
    ...FFMPEG_BASE,
    '-i', o.input,
    '-i', o.gate,
    '-filter_complex', graph,
    '-map', '[v1]', '-c:a', 'pcm_s16le', ...BITEXACT, '-f', 'wav', o.voiceOut,
    '-map', '[bg]', '-c:a', 'pcm_s16le', ...BITEXACT, '-f', 'wav', o.backgroundOut,
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
  args.push('--', url);
  return args;
}

/** Metadata of a link as JSON, nothing downloaded. */
export function ytDlpProbeArgs(url: string): string[] {
  return ['-J', '--no-playlist', '--no-warnings', '--no-color', '--no-cache-dir', '--no-config', '--socket-timeout', '30', '--', url];
}
