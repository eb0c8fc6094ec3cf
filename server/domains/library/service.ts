// Library rules: what an upload must be (video/audio readable by ffprobe within the limits, subtitle files
// parseable), and the checks that decide its status.
import { readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Config } from '../../config';
import type { Db } from '../../db/index';
import { MediaError } from '../../media/errors';
import { probe, type ProbeResult } from '../../media/probe';
import { makeCover } from '../../media/ffmpeg';
import { parseSrt, SrtParseError } from '../../media/subtitles';
import type { Storage } from '../../storage/types';
import { DomainError } from '../../errors';
import type { Media } from '../../../contract/schemas/library';
import * as repo from './repository';

export const NOT_SUBTITLE_TEXT = 'This file is not a SubRip (.srt) subtitle file: upload a text file of numbered cues with timings (00:00:01,000 --> 00:00:02,500)';

/**
 * The text of a subtitle file, or null when the bytes are not text (a video, an image, an archive): NUL bytes
 * outside a UTF-16 file, or too many bytes that are not UTF-8.
 */
export function subtitleText(buf: Buffer): string | null {
  if (buf.length >= 2 && buf[0] === 0xff && buf[1] === 0xfe) return new TextDecoder('utf-16le').decode(buf.subarray(2));
  if (buf.length >= 2 && buf[0] === 0xfe && buf[1] === 0xff) return new TextDecoder('utf-16be').decode(buf.subarray(2));
  if (buf.includes(0)) return null;
  const text = buf.toString('utf8');
  const bad = (text.match(/\uFFFD/g) ?? []).length;
  // A few stray bytes (a Latin-1 accent) are tolerated; a binary file has them everywhere.
  if (bad > 16 && bad > text.length / 20) return null;
  return text;
}

/** Refuses (422) a file that is not a subtitle file; the caller has removed what it stored. */
export function notSubtitleFile(): DomainError {
  return new DomainError('invalid', NOT_SUBTITLE_TEXT, { extra: { code: 'not_subtitle_file' } });
}

export function formatBytes(n: number): string {
  const units = ['bytes', 'KB', 'MB', 'GB', 'TB'];
  let i = 0;
  let v = n;
  while (v >= 1024 && i < units.length - 1) {
    v /= 1024;
    i++;
  }
  return i === 0 ? `${n} bytes` : `${Number.isInteger(v) ? v : v.toFixed(1)} ${units[i]}`;
}

export function formatDuration(sec: number): string {
  const s = Math.round(sec);
  const h = Math.floor(s / 3600);
  const m = Math.floor((s % 3600) / 60);
  const r = s % 60;
  const parts: string[] = [];
  if (h) parts.push(`${h} h`);
  if (m) parts.push(`${m} min`);
  if (r || parts.length === 0) parts.push(`${r} s`);
  return parts.join(' ');
}

export const tooLargeText = (limit: number) => `The file is too large: the limit is ${formatBytes(limit)}`;
export const tooLongText = (durationSec: number, limit: number) =>
  `The video is too long (${formatDuration(durationSec)}): the limit is ${formatDuration(limit)}`;

/** ffprobe facts kept with an upload (and a project). */
export function probeFacts(p: ProbeResult): Record<string, unknown> {
  return {
    durationSec: p.durationSec, hasAudio: p.hasAudio, hasVideo: p.hasVideo, width: p.width, height: p.height, fps: p.fps,
    videoCodec: p.videoCodec, audioCodec: p.audioCodec, pixFmt: p.pixFmt, sizeBytes: p.sizeBytes, formatName: p.formatName,
  };
}

/** A readable reason why a media file cannot be used. */
export function unreadableText(e: unknown): string {
  if (e instanceof MediaError && (e.code === 'corrupt' || e.code === 'not_found')) {
    if (/0 bytes|empty/.test(e.message)) return 'The file is empty (0 bytes)';
    return 'The file is not a readable video or audio file (it may be damaged or not a media file)';
  }
  return e instanceof Error ? e.message : String(e);
}

/**
 * Checks a stored upload and records its status: videos/audio are probed (readable, within max size and
 * duration); subtitle files are parsed. Returns the updated row. A "subtitle file" that is not text (a video sent
 * as .srt) is removed (row and file) and refused: throws the 422 of notSubtitleFile.
 */
export async function checkUpload(deps: { db: Db; storage: Storage; config: Config }, mediaId: string): Promise<repo.MediaRow | null> {
  const m = await repo.findMedia(deps.db, mediaId);
  if (!m) return null;
  const limits = deps.config.limits;
  try {
    const st = await deps.storage.stat(m.storage_key);
    if (!st) return repo.finishMedia(deps.db, m.id, { status: 'failed', error: 'The upload is incomplete' });
    if (m.kind === 'srt') {
      if (st.size === 0) return repo.finishMedia(deps.db, m.id, { status: 'failed', error: 'The subtitle file is empty', sizeBytes: 0 });
      if (st.size > 5 * 1024 * 1024) return repo.finishMedia(deps.db, m.id, { status: 'failed', error: 'The subtitle file is too large (the limit is 5 MB)' });
      const text = subtitleText(await readFile(await deps.storage.localFile(m.storage_key)));
      if (text === null) {
        // Nothing of it is kept: the row and the upload's folder go, and the caller answers 422.
        await deps.storage.deletePrefix(`uploads/${m.id}/`);
        await repo.deleteMedia(deps.db, m.id);
        throw notSubtitleFile();
      }
      try {
        const cues = parseSrt(text);
        return repo.finishMedia(deps.db, m.id, { status: 'uploaded', sizeBytes: st.size, probe: { cues: cues.length } });
      } catch (e) {
        const why = e instanceof SrtParseError ? `${e.message} (line ${e.line})` : String(e);
        return repo.finishMedia(deps.db, m.id, { status: 'failed', error: `The subtitle file could not be read: ${why}`, sizeBytes: st.size });
      }
    }
    if (st.size > limits.maxVideoSize) {
      return repo.finishMedia(deps.db, m.id, { status: 'failed', error: tooLargeText(limits.maxVideoSize), sizeBytes: st.size });
    }
    let p: ProbeResult;
    try {
      p = await probe(await deps.storage.localFile(m.storage_key));
    } catch (e) {
      return repo.finishMedia(deps.db, m.id, { status: 'failed', error: unreadableText(e), sizeBytes: st.size });
    }
    if (p.durationSec > limits.maxVideoDuration) {
      return repo.finishMedia(deps.db, m.id, {
        status: 'failed', error: tooLongText(p.durationSec, limits.maxVideoDuration), sizeBytes: st.size, probe: probeFacts(p),
      });
    }
    // The picture of the project cards, taken now: a card shows it from the start, not after the first Generate.
    const coverKey = p.hasVideo ? await takeCover(deps.storage, m.storage_key, m.id) : null;
    return repo.finishMedia(deps.db, m.id, { status: 'uploaded', sizeBytes: st.size, probe: { ...probeFacts(p), coverKey } });
  } catch (e) {
    if (e instanceof DomainError) throw e;
    return repo.finishMedia(deps.db, m.id, { status: 'failed', error: e instanceof Error ? e.message : String(e) });
  }
}

/** Storage key of an upload's cover frame. */
export const uploadCoverKey = (mediaId: string) => `uploads/${mediaId}/cover.jpg`;

/** A JPEG frame of an uploaded video under uploadCoverKey; null when none could be taken (never fails the upload). */
async function takeCover(storage: Storage, key: string, mediaId: string): Promise<string | null> {
  const out = join(tmpdir(), `upload-cover-${mediaId}.jpg`);
  try {
    await makeCover(await storage.localFile(key), out, { maxWidth: 640 });
    await storage.putFile(uploadCoverKey(mediaId), out, { contentType: 'image/jpeg', move: true });
    return uploadCoverKey(mediaId);
  } catch {
    return null;
  } finally {
    await rm(out, { force: true });
  }
}

export function mediaJson(m: repo.MediaRow): Media {
  const probe = m.probe as { durationSec?: number } | null;
  return {
    id: m.id,
    status: m.status,
    kind: m.kind,
    filename: m.filename,
    size: Number(m.size_bytes),
    duration: probe?.durationSec ?? null,
    error: m.error,
    space_id: m.space_id,
    created_date: new Date(m.created_at).toISOString(),
  };
}
