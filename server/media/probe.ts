// ffprobe: run it, and parse its JSON into the few facts the pipeline needs.
import { statSync } from 'node:fs';
import { FFPROBE, ffprobeArgs } from './args';
import { CommandError, MediaError } from './errors';
import { run } from './run';

export interface ProbeResult {
  durationSec: number;
  hasAudio: boolean;
  hasVideo: boolean;
  width: number | null;
  height: number | null;
  fps: number | null;
  videoCodec: string | null;
  audioCodec: string | null;
  /** Pixel format of the video stream (copying H.264 into MP4 needs yuv420p for wide playback). */
  pixFmt: string | null;
  /** Exact frame rate of the video stream as ffprobe gives it ('30000/1001'), null without video. */
  fpsRational: string | null;
  /** Colour tags of the video stream (copied when a video is re-rendered). */
  color: { space: string | null; primaries: string | null; transfer: string | null; range: string | null };
  audioSampleRate: number | null;
  audioChannels: number | null;
  sizeBytes: number;
  formatName: string;
}

interface FfprobeStream {
  codec_type?: string;
  codec_name?: string;
  width?: number;
  height?: number;
  avg_frame_rate?: string;
  r_frame_rate?: string;
  duration?: string;
  pix_fmt?: string;
  color_space?: string;
  color_primaries?: string;
  color_transfer?: string;
  color_range?: string;
  sample_rate?: string;
  channels?: number;
  disposition?: { attached_pic?: number };
}
interface FfprobeJson {
  streams?: FfprobeStream[];
  format?: { format_name?: string; duration?: string; size?: string };
}

function parseRate(r: string | undefined): number | null {
  if (!r) return null;
  const [a, b] = r.split('/').map(Number);
  if (!Number.isFinite(a) || !a) return null;
  const v = b === undefined ? a! : b ? a! / b : NaN;
  return Number.isFinite(v) && v > 0 ? Math.round(v * 1000) / 1000 : null;
}

/**
 * Parses `ffprobe -show_format -show_streams -print_format json` output. Throws MediaError 'corrupt'
 * when the JSON describes nothing playable (no streams, or no duration).
 */
export function parseProbe(json: string | FfprobeJson, sizeBytes?: number): ProbeResult {
  let data: FfprobeJson;
  try {
    data = typeof json === 'string' ? (JSON.parse(json) as FfprobeJson) : json;
  } catch {
    throw new MediaError('corrupt', 'ffprobe returned unreadable output');
  }
  const streams = data.streams ?? [];
  const format = data.format;
  if (!format || streams.length === 0) throw new MediaError('corrupt', 'the file has no readable media streams');
  const video = streams.find((s) => s.codec_type === 'video' && !s.disposition?.attached_pic);
  const audio = streams.find((s) => s.codec_type === 'audio');
  let duration = Number(format.duration);
  if (!Number.isFinite(duration) || duration <= 0) {
    duration = Math.max(0, ...streams.map((s) => Number(s.duration)).filter((d) => Number.isFinite(d)));
  }
  if (!Number.isFinite(duration) || duration <= 0) throw new MediaError('corrupt', 'the file has no duration');
  if (!video && !audio) throw new MediaError('corrupt', 'the file has neither audio nor video');
  return {
    durationSec: duration,
    hasAudio: !!audio,
    hasVideo: !!video,
    width: video?.width ?? null,
    height: video?.height ?? null,
    fps: video ? parseRate(video.avg_frame_rate) ?? parseRate(video.r_frame_rate) : null,
    videoCodec: video?.codec_name ?? null,
    audioCodec: audio?.codec_name ?? null,
    pixFmt: video?.pix_fmt ?? null,
    fpsRational: video ? (parseRate(video.avg_frame_rate) ? video.avg_frame_rate! : parseRate(video.r_frame_rate) ? video.r_frame_rate! : null) : null,
    color: {
      space: video?.color_space ?? null,
      primaries: video?.color_primaries ?? null,
      transfer: video?.color_transfer ?? null,
      range: video?.color_range ?? null,
    },
    audioSampleRate: audio?.sample_rate ? Number(audio.sample_rate) : null,
    audioChannels: audio?.channels ?? null,
    sizeBytes: sizeBytes ?? Number(format.size ?? 0),
    formatName: format.format_name ?? 'unknown',
  };
}

/** Probes a local file. MediaError 'not_found' when missing, 'corrupt' when ffprobe cannot read it. */
export async function probe(path: string, o: { signal?: AbortSignal; timeoutMs?: number } = {}): Promise<ProbeResult> {
  let size: number;
  try {
    const st = statSync(path);
    if (!st.isFile()) throw new Error('not a regular file');
    size = st.size;
  } catch (e) {
    throw new MediaError('not_found', `media file not found: ${path}`, { cause: e });
  }
  if (size === 0) throw new MediaError('corrupt', 'the file is empty (0 bytes)');
  let stdout: string;
  try {
    ({ stdout } = await run(FFPROBE, ffprobeArgs(path), { signal: o.signal, timeoutMs: o.timeoutMs ?? 60_000 }));
  } catch (e) {
    if (e instanceof CommandError && e.reason === 'exit') {
      throw new MediaError('corrupt', `unreadable media file: ${e.stderrTail || 'ffprobe failed'}`, { cause: e });
    }
    throw e;
  }
  return parseProbe(stdout, size);
}
