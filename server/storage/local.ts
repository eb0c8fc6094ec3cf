// Local folder storage: every key is a file under `root` (DATA_DIR/media by default).
import { createReadStream } from 'node:fs';
import { copyFile, link, mkdir, readdir, readFile, rename, rm, rmdir, stat, unlink, writeFile } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import type { Readable } from 'node:stream';
import { randomBytes } from 'node:crypto';
import { checkKey, StorageNotFoundError, type ByteRange, type ListedObject, type Storage, type StoredObject } from './types';

export class LocalStorage implements Storage {
  readonly kind = 'local' as const;
  readonly root: string;

  constructor(root: string) {
    this.root = resolve(root);
  }

  pathOf(key: string): string {
    return join(this.root, checkKey(key));
  }

  /** Writes through a temporary sibling and renames, so readers never see half a file. */
  private async place(key: string, write: (tmp: string) => Promise<void>): Promise<void> {
    const dst = this.pathOf(key);
    await mkdir(dirname(dst), { recursive: true });
    const tmp = `${dst}.${randomBytes(6).toString('hex')}.tmp`;
    try {
      await write(tmp);
      await rename(tmp, dst);
    } catch (e) {
      await rm(tmp, { force: true });
      throw e;
    }
  }

  async putFile(key: string, localPath: string, opts: { move?: boolean } = {}): Promise<void> {
    const src = resolve(localPath);
    if (src === this.pathOf(key)) return;
    if (opts.move) {
      await mkdir(dirname(this.pathOf(key)), { recursive: true });
      try {
        await rename(src, this.pathOf(key));
        return;
      } catch {
        // other device: fall back to copy
      }
    }
    await this.place(key, (tmp) => copyFile(src, tmp));
    if (opts.move) await rm(src, { force: true });
  }

  async putBuffer(key: string, data: Buffer | string): Promise<void> {
    await this.place(key, (tmp) => writeFile(tmp, data));
  }

  async getBuffer(key: string): Promise<Buffer> {
    try {
      return await readFile(this.pathOf(key));
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'ENOENT') throw new StorageNotFoundError(key);
      throw e;
    }
  }

  async localFile(key: string): Promise<string> {
    const p = this.pathOf(key);
    if (!(await this.exists(key))) throw new StorageNotFoundError(key);
    return p;
  }

  async stat(key: string): Promise<StoredObject | null> {
    try {
      const s = await stat(this.pathOf(key));
      return s.isFile() ? { size: s.size, mtime: s.mtime } : null;
    } catch {
      return null;
    }
  }

  async exists(key: string): Promise<boolean> {
    return (await this.stat(key)) !== null;
  }

  /** Hard link when possible (same file system, no extra space), else a copy. */
  async copy(srcKey: string, dstKey: string): Promise<void> {
    const src = this.pathOf(srcKey);
    if (!(await this.exists(srcKey))) throw new StorageNotFoundError(srcKey);
    const dst = this.pathOf(dstKey);
    if (src === dst) return;
    await mkdir(dirname(dst), { recursive: true });
    await rm(dst, { force: true });
    try {
      await link(src, dst);
    } catch {
      await this.place(dstKey, (tmp) => copyFile(src, tmp));
    }
  }

  async delete(key: string): Promise<void> {
    try {
      await unlink(this.pathOf(key));
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'ENOENT') throw e;
    }
    // Folders left empty go too (uploads/<id>/ ...); rmdir refuses a folder that is not empty.
    let dir = dirname(this.pathOf(key));
    while (dir.startsWith(this.root + '/')) {
      try {
        await rmdir(dir);
      } catch {
        break;
      }
      dir = dirname(dir);
    }
  }

  async deletePrefix(prefix: string): Promise<void> {
    const clean = prefix.replace(/\/+$/, '');
    checkKey(clean);
    await rm(join(this.root, clean), { recursive: true, force: true });
    await this.delete(`${clean}/.none`).catch(() => {}); // prunes the parents left empty
  }

  async *list(prefix: string): AsyncIterable<ListedObject> {
    // Walk only the folder the prefix names (its part up to the last slash), then filter by the full prefix.
    const folder = prefix.includes('/') ? prefix.slice(0, prefix.lastIndexOf('/')) : '';
    if (folder) checkKey(folder);
    const walk = async function* (dir: string, rel: string): AsyncIterable<ListedObject> {
      let entries;
      try {
        entries = await readdir(dir, { withFileTypes: true });
      } catch {
        return;
      }
      for (const e of entries) {
        const k = rel ? `${rel}/${e.name}` : e.name;
        if (e.isDirectory()) {
          if (k.startsWith(prefix) || prefix.startsWith(`${k}/`)) yield* walk(join(dir, e.name), k);
        } else if (e.isFile() && k.startsWith(prefix) && !/\.[0-9a-f]{12}\.tmp$/.test(e.name)) {
          try {
            const s = await stat(join(dir, e.name));
            yield { key: k, size: s.size, mtime: s.mtime };
          } catch {
            // removed meanwhile
          }
        }
      }
    };
    yield* walk(folder ? join(this.root, folder) : this.root, folder);
  }

  /** Removes folders left empty under `prefix` (after deletions). */
  async pruneEmptyFolders(prefix = ''): Promise<void> {
    const clean = prefix.replace(/\/+$/, '');
    const start = clean ? this.pathOf(clean) : this.root;
    const prune = async (dir: string): Promise<boolean> => {
      let entries;
      try {
        entries = await readdir(dir, { withFileTypes: true });
      } catch {
        return false;
      }
      let empty = true;
      for (const e of entries) {
        if (e.isDirectory() && (await prune(join(dir, e.name)))) continue;
        empty = false;
      }
      if (empty && dir !== this.root) await rm(dir, { recursive: true, force: true }).catch(() => {});
      return empty;
    };
    await prune(start);
  }

  async read(key: string, range?: ByteRange): Promise<Readable> {
    if (!(await this.exists(key))) throw new StorageNotFoundError(key);
    return createReadStream(this.pathOf(key), range ? { start: range.start, end: range.end } : {});
  }
}
