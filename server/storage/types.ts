// The storage interface: a local folder (embedded default) or an S3-compatible bucket, same keys.
import type { Readable } from 'node:stream';

export interface StoredObject {
  size: number;
  mtime: Date;
}

export interface ListedObject extends StoredObject {
  key: string;
}

export interface ByteRange {
  /** First byte, inclusive. */
  start: number;
  /** Last byte, inclusive. */
  end: number;
}

export interface Storage {
  readonly kind: 'local' | 's3';
  /** Stores a local file under `key`. With move: the file may be moved instead of copied. */
  putFile(key: string, localPath: string, opts?: { contentType?: string; move?: boolean }): Promise<void>;
  putBuffer(key: string, data: Buffer | string, opts?: { contentType?: string }): Promise<void>;
  getBuffer(key: string): Promise<Buffer>;
  /**
   * A local path holding the object's bytes, for tools that need a file (ffmpeg, engines). Local storage
   * answers the stored file itself (read it, never write it); S3 downloads it into a local cache.
   */
  localFile(key: string): Promise<string>;
  stat(key: string): Promise<StoredObject | null>;
  exists(key: string): Promise<boolean>;
  copy(srcKey: string, dstKey: string): Promise<void>;
  delete(key: string): Promise<void>;
  /** Deletes every object whose key starts with `prefix` (use a trailing slash). */
  deletePrefix(prefix: string): Promise<void>;
  /** A stream of the object's bytes (or of one range). */
  read(key: string, range?: ByteRange): Promise<Readable>;
  /** Every object whose key starts with `prefix` ('' for all), in no particular order. */
  list(prefix: string): AsyncIterable<ListedObject>;
}

/** Keys are relative, slash-separated, without '..' or empty parts. */
export function checkKey(key: string): string {
  if (
    typeof key !== 'string' || key.length === 0 || key.length > 1024 || key.startsWith('/') || key.includes('\\') ||
    key.includes('\0') || key.split('/').some((p) => p === '' || p === '.' || p === '..')
  ) {
    throw new Error(`invalid storage key: ${JSON.stringify(key)}`);
  }
  return key;
}

export class StorageNotFoundError extends Error {
  override readonly name = 'StorageNotFoundError';
  constructor(readonly key: string) {
    super(`storage object not found: ${key}`);
  }
}
