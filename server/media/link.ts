// Video links (YouTube, Drive, Vimeo, direct files ...) through yt-dlp. Every failure is a
// MediaError 'forbidden_link' with a message a person can read.
import { existsSync, mkdirSync, readdirSync, rmSync, statSync } from 'node:fs';
import { isAbsolute, join } from 'node:path';
import { YT_DLP, ytDlpFetchArgs, ytDlpProbeArgs } from './args';
import { CommandError, MediaError } from './errors';
import { probe } from './probe';
import { run } from './run';
import { lookup as dnsLookup } from 'node:dns/promises';
import { isValidVideoLink } from '../../contract/links';
import { startEgressGuard, type AddressCheck, type EgressGuard, type HostLookup } from './egress';
import { isPublicAddress } from '../net/addresses';

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

/** Which addresses a download may reach (each host yt-dlp connects to, redirects included). */
export interface EgressOptions {
  /** Default: public addresses only (isPublicAddress in server/net/addresses.ts). */
  allowAddress?: AddressCheck;
  lookup?: HostLookup;
}

export interface FetchLinkOptions extends EgressOptions {
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

/**
 * The ingest's link check: only the spec's video hosts (YouTube, Google Drive, Vimeo), and only when the host
 * resolves to public addresses (a DNS name pointed at an internal service is refused).
 */
export async function checkIngestLink(
  url: string,
  o: { lookup?: (host: string) => Promise<string[]> } = {},
): Promise<URL> {
  const u = checkLinkUrl(url);
  if (!isValidVideoLink(url)) throw new MediaError('forbidden_link', 'Only YouTube, Google Drive and Vimeo video links can be dubbed');
  const lookup = o.lookup ?? (async (host: string) => (await dnsLookup(host, { all: true })).map((a) => a.address));
  let addrs: string[];
  try {
    addrs = await lookup(u.hostname);
  } catch {
    throw new MediaError('forbidden_link', `Could not download the video from this link: the host ${u.hostname} was not found`);
  }
  if (addrs.length === 0 || !addrs.every(isPublicAddress)) {
    throw new MediaError('forbidden_link', 'Could not download the video from this link: the host points to a private network address');
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

const publicOnly: AddressCheck = (ip) => isPublicAddress(ip);

/** Runs `fn` with an egress guard up; a failure after a refused target says so. */
async function guarded<T>(o: EgressOptions, what: string, fn: (g: EgressGuard) => Promise<T>): Promise<T> {
  const g = await startEgressGuard({ allow: o.allowAddress ?? publicOnly, lookup: o.lookup });
  try {
    return await fn(g);
  } catch (e) {
    if (g.refused.length > 0 && !(e instanceof CommandError && e.reason === 'aborted')) {
      throw new MediaError('forbidden_link', `Could not ${what} the video from this link: it leads to a private network address (${g.refused[0]})`, { cause: e });
    }
    throw e;
  } finally {
    await g.close();
  }
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
export async function probeLink(url: string, o: EgressOptions & { signal?: AbortSignal; timeoutMs?: number } = {}): Promise<LinkInfo> {
  checkLinkUrl(url);
  const stdout = await guarded(o, 'read', async (g) => {
    try {
      return (await run(YT_DLP, ytDlpProbeArgs(url, { proxy: g.url }), { signal: o.signal, timeoutMs: o.timeoutMs ?? 120_000 })).stdout;
    } catch (e) {
      if (e instanceof CommandError && e.reason === 'aborted') throw e;
      throw linkError(e, 'read');
    }
  });
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
  const stdout = await guarded(o, 'download', async (g) => {
    const args = ytDlpFetchArgs(url, outDir, {
      maxDurationSec: o.maxDurationSec,
      maxFilesizeBytes: o.maxFilesizeBytes,
      baseName: o.baseName,
      proxy: g.url,
    });
    try {
      return (await run(YT_DLP, args, { signal: o.signal, timeoutMs: o.timeoutMs ?? 30 * 60_000 })).stdout;
    } catch (e) {
      if (e instanceof CommandError && e.reason === 'aborted') throw e;
      throw linkError(e, 'download');
    }
  });
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
