// Video links (YouTube, Drive, Vimeo, direct files ...) through yt-dlp. Every failure is a
// MediaError 'forbidden_link' with a message a person can read.
import { existsSync, mkdirSync, readdirSync, rmSync, statSync } from 'node:fs';
import { isAbsolute, join } from 'node:path';
import { YT_DLP, ytDlpFetchArgs, ytDlpProbeArgs } from './args';
import { CommandError, MediaError } from './errors';
import { probe } from './probe';
import { run } from './run';

export interface LinkInfo {
  id: string | null;
  title: string | null;
  durationSec: number | null;
  extractor: string | null;
  webpageUrl: string | null;
  thumbnail: string | null;
  isLive: boolean;
  /** 'video' or 'playlist' (yt-dlp's _type). */
  type: string;
}

export interface FetchLinkOptions {
  maxDurationSec?: number;
  maxFilesizeBytes?: number;
  signal?: AbortSignal;
  timeoutMs?: number;
  baseName?: string;
}

/** Only http(s) links are accepted; anything else (file:, ftp:, local paths) is refused up front. */
export function checkLinkUrl(url: string): URL {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    throw new MediaError('forbidden_link', 'The link is not a valid URL');
  }
  if (u.protocol !== 'http:' && u.protocol !== 'https:') {
    throw new MediaError('forbidden_link', `Links must start with http:// or https:// (got ${u.protocol})`);
  }
  return u;
}

/** The most useful line of yt-dlp's stderr: its last "ERROR:" line, without the prefix. */
export function readableYtDlpError(stderr: string): string {
  const lines = stderr.split(/\r?\n/).map((l) => l.trim()).filter(Boolean);
  const err = [...lines].reverse().find((l) => l.startsWith('ERROR:'));
  const line = (err ?? lines[lines.length - 1] ?? '')
    .replace(/^ERROR:\s*/, '')
    .replace(/^\[[\w:.-]+\]\s*[^:]*:\s*/, '') // "[youtube] abc123: "
    .replace(/;\s*please report this issue.*$/i, '')
    .replace(/\s*\(caused by .*$/i, '')
    .trim();
  return line.length > 300 ? line.slice(0, 300) + '…' : line;
}

function linkError(e: unknown, what: string): MediaError {
  if (e instanceof CommandError) {
    if (e.reason === 'spawn') return new MediaError('failed', e.message, { cause: e });
    const detail = e.reason === 'timeout' ? 'the download timed out' : readableYtDlpError(e.stderrTail) || 'unknown error';
    return new MediaError('forbidden_link', `Could not ${what} the video from this link: ${detail}`, { cause: e });
  }
  return new MediaError('forbidden_link', `Could not ${what} the video from this link: ${(e as Error).message}`, { cause: e });
}

/** Metadata of a link (`yt-dlp -J`), nothing downloaded. */
export async function probeLink(url: string, o: { signal?: AbortSignal; timeoutMs?: number } = {}): Promise<LinkInfo> {
  checkLinkUrl(url);
  let stdout: string;
  try {
    ({ stdout } = await run(YT_DLP, ytDlpProbeArgs(url), { signal: o.signal, timeoutMs: o.timeoutMs ?? 120_000 }));
  } catch (e) {
    if (e instanceof CommandError && e.reason === 'aborted') throw e;
    throw linkError(e, 'read');
  }
  let j: Record<string, unknown>;
  try {
    j = JSON.parse(stdout) as Record<string, unknown>;
  } catch {
    throw new MediaError('forbidden_link', 'Could not read the video from this link: unexpected response');
  }
  const str = (k: string) => (typeof j[k] === 'string' ? (j[k] as string) : null);
  return {
    id: str('id'),
    title: str('title'),
    durationSec: typeof j.duration === 'number' ? j.duration : null,
    extractor: str('extractor_key') ?? str('extractor'),
    webpageUrl: str('webpage_url') ?? str('url'),
    thumbnail: str('thumbnail'),
    isLive: j.is_live === true,
    type: str('_type') ?? 'video',
  };
}

/**
 * Downloads the best MP4 of a single video into `outDir` and returns its path. Videos longer than
 * `maxDurationSec` are refused. Failures: MediaError 'forbidden_link' with a readable message.
 */
export async function fetchLink(url: string, outDir: string, o: FetchLinkOptions = {}): Promise<string> {
  checkLinkUrl(url);
  mkdirSync(outDir, { recursive: true });
  const args = ytDlpFetchArgs(url, outDir, {
    maxDurationSec: o.maxDurationSec,
    maxFilesizeBytes: o.maxFilesizeBytes,
    baseName: o.baseName,
  });
  let stdout: string;
  try {
    ({ stdout } = await run(YT_DLP, args, { signal: o.signal, timeoutMs: o.timeoutMs ?? 30 * 60_000 }));
  } catch (e) {
    if (e instanceof CommandError && e.reason === 'aborted') throw e;
    throw linkError(e, 'download');
  }
  const printed = stdout.split(/\r?\n/).map((l) => l.trim()).filter(Boolean).pop();
  let path = printed && (isAbsolute(printed) ? printed : join(outDir, printed));
  if (!path || !existsSync(path)) {
    const base = o.baseName ?? 'source';
    const f = readdirSync(outDir).find((n) => n.startsWith(base + '.') && !n.endsWith('.part'));
    path = f ? join(outDir, f) : undefined;
  }
  if (path && existsSync(path) && statSync(path).size > 0) {
    // direct links carry no duration metadata: check the real file
    let info;
    try {
      info = await probe(path, { signal: o.signal });
    } catch (e) {
      rmSync(path, { force: true });
      if (e instanceof CommandError && e.reason === 'aborted') throw e;
      throw new MediaError('forbidden_link', 'Could not download the video from this link: the file is not a playable video', { cause: e });
    }
    if (o.maxDurationSec !== undefined && info.durationSec > o.maxDurationSec + 0.5) {
      rmSync(path, { force: true });
      throw new MediaError('forbidden_link', `Could not download the video from this link: ${tooLong(o.maxDurationSec)}`);
    }
    return path;
  }
  // yt-dlp skipped the video (its --match-filter / --max-filesize) without an error
  const why = o.maxDurationSec !== undefined ? `${tooLong(o.maxDurationSec)}, or larger than allowed` : 'nothing was downloaded';
  throw new MediaError('forbidden_link', `Could not download the video from this link: ${why}`);
}

function tooLong(max: number): string {
  const m = Math.floor(max / 60);
  const sec = Math.floor(max % 60);
  return `the video is longer than the allowed ${m ? `${m} min` : ''}${m && sec ? ' ' : ''}${sec || !m ? `${sec} s` : ''}`;
}
