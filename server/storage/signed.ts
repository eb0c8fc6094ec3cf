// Signed, expiring media URLs: /api/files/<token>/<filename>. The token names the storage key and the
// expiry, HMAC-signed with the server secret, so links can be handed to <video> tags and download buttons.
import { createHmac, timingSafeEqual } from 'node:crypto';

export interface FileGrant {
  key: string;
  /** Unix seconds. */
  exp: number;
  /** Download name; when set the file is served as an attachment. */
  name?: string;
  /** inline | attachment */
  disp?: 'inline' | 'attachment';
  /**
   * A derived file made on first request when the object does not exist yet (e.g. a voice sample):
   * the generator registered for `kind` (server/storage/generators.ts) writes it under `key`.
   */
  gen?: { kind: string; args: Record<string, string> };
}

const b64 = (b: Buffer | string) => Buffer.from(b).toString('base64url');

function mac(secret: string, payload: string): string {
  return createHmac('sha256', `files:${secret}`).update(payload).digest('base64url').slice(0, 32);
}

export function signFileToken(secret: string, g: FileGrant): string {
  const payload = b64(JSON.stringify(g));
  return `${payload}.${mac(secret, payload)}`;
}

export type VerifyFileToken = { ok: true; grant: FileGrant } | { ok: false; reason: 'invalid' | 'expired' };

export function verifyFileToken(secret: string, token: string, now = Date.now()): VerifyFileToken {
  const dot = token.indexOf('.');
  if (dot <= 0) return { ok: false, reason: 'invalid' };
  const payload = token.slice(0, dot);
  const sig = Buffer.from(token.slice(dot + 1));
  const want = Buffer.from(mac(secret, payload));
  if (sig.length !== want.length || !timingSafeEqual(sig, want)) return { ok: false, reason: 'invalid' };
  let g: FileGrant;
  try {
    g = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as FileGrant;
  } catch {
    return { ok: false, reason: 'invalid' };
  }
  if (typeof g.key !== 'string' || typeof g.exp !== 'number') return { ok: false, reason: 'invalid' };
  if (g.exp * 1000 < now) return { ok: false, reason: 'expired' };
  return { ok: true, grant: g };
}

/** A file-name-safe version of a project name for downloads. */
export function safeFileName(name: string, ext: string): string {
  const base = name.normalize('NFKD').replace(/[^\w.\- ]+/g, '').trim().replace(/\s+/g, '_').slice(0, 80) || 'file';
  return `${base}${ext}`;
}
