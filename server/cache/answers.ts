// Answers kept serialized between reads, per version: the editor's transcript and the pages of the project list.
// A read names the version of what it would answer (read from the database before the rows, so an answer is never
// kept under a version newer than its rows); while the version is unchanged, the kept bytes are answered again.
// Reads of one version that arrive together share one build. Each answer keeps its compressed forms too, made once
// each (by zlib's thread pool, off the event loop) the first time a client accepts them: sending fewer bytes is most
// of what a large answer costs. Answers also expire after `maxAgeMs` (they may hold signed URLs).
// A cache belongs to its app (Db.state, server/cache), like the account caches: two apps in one process never share one.
import { promisify } from 'node:util';
import { brotliCompress, constants, gzip } from 'node:zlib';
import { namespace, type Namespace } from './index';
import type { Db } from '../db/index';

export type AnswerEncoding = 'br' | 'gzip';

const gzipAsync = promisify(gzip);
const brotliAsync = promisify(brotliCompress);

/** Below this size an answer is sent as it is: compressing would cost more than the bytes it saves. */
export const MIN_COMPRESSED_BYTES = 1024;

/** One kept answer: its JSON bytes and, once asked for, its compressed forms. */
export class KeptAnswer {
  readonly body: Buffer;
  private readonly forms = new Map<AnswerEncoding, Promise<Buffer>>();

  constructor(json: string) {
    this.body = Buffer.from(json);
  }

  /**
   * The body in `encoding` (gzip at level 6; brotli at quality 5, which is about as fast as gzip and smaller).
   * A failed compression is forgotten, so the next read tries again.
   */
  encoded(encoding: AnswerEncoding): Promise<Buffer> {
    let form = this.forms.get(encoding);
    if (!form) {
      form =
        encoding === 'gzip'
          ? gzipAsync(this.body, { level: 6 })
          : brotliAsync(this.body, { params: { [constants.BROTLI_PARAM_QUALITY]: 5, [constants.BROTLI_PARAM_SIZE_HINT]: this.body.length } });
      form.catch(() => this.forms.delete(encoding));
      this.forms.set(encoding, form);
    }
    return form;
  }
}

interface Entry {
  version: string;
  at: number;
  answer: Promise<KeptAnswer>;
  bytes: number;
}

export interface AnswerCacheOptions {
  /** Bytes of JSON kept at most (the least recently read answers go first); a larger answer is never kept. */
  maxBytes: number;
  /** An answer is built again after this long, whatever its version. */
  maxAgeMs: number;
}

/** Kept answers by key (Map order: least recently read first). */
export class AnswerCache {
  private readonly entries = new Map<string, Entry>();
  private bytes = 0;

  constructor(private readonly o: AnswerCacheOptions) {}

  /** The answer of `key` at `version`: the kept one, one being built, or a new build. */
  answer(key: string, version: string, build: () => Promise<string>): Promise<KeptAnswer> {
    const now = Date.now();
    const hit = this.entries.get(key);
    if (hit && hit.version === version && now - hit.at < this.o.maxAgeMs) {
      this.entries.delete(key);
      this.entries.set(key, hit);
      return hit.answer;
    }
    if (hit) this.drop(key, hit);
    const entry: Entry = { version, at: now, answer: build().then((json) => new KeptAnswer(json)), bytes: 0 };
    this.entries.set(key, entry);
    entry.answer.then(
      (a) => {
        if (this.entries.get(key) !== entry) return;
        if (a.body.length > this.o.maxBytes / 4) return this.drop(key, entry);
        entry.bytes = a.body.length;
        this.bytes += entry.bytes;
        this.trim();
      },
      () => {
        // A failed build is not kept: the next read builds again (its caller got the error).
        if (this.entries.get(key) === entry) this.drop(key, entry);
      },
    );
    return entry.answer;
  }

  /** Bytes of JSON kept (answers being built count once they are done). */
  keptBytes(): number {
    return this.bytes;
  }

  private drop(key: string, e: Entry): void {
    this.entries.delete(key);
    this.bytes -= e.bytes;
  }

  private trim(): void {
    for (const [k, e] of this.entries) {
      if (this.bytes <= this.o.maxBytes) break;
      this.drop(k, e);
    }
  }
}

/** Declares an app's cache of answers named `name` (a constant of its owner). */
export function answerCache(name: string, o: AnswerCacheOptions): Namespace<AnswerCache> {
  return namespace(`answers:${name}`, () => new AnswerCache(o));
}

/** The app's cache `ns` (made on first use). */
export function answerCacheOf(db: Db, ns: Namespace<AnswerCache>): AnswerCache {
  return db.state.of(ns);
}
