// sync.so adapter (hosted lip-sync), its documented HTTP API:
//   POST /v2/generate   JSON {model, input:[{type:'video',url},{type:'audio',url}], options:{sync_mode, active_speaker}}
//                       or multipart/form-data with the files `video` and `audio` and `model` / `options` as
//                       (JSON) fields, when the media has no public URL
//                       -> {id, status:'PENDING', ...}
//   GET  /v2/generate/{id} -> {id, status: PENDING|PROCESSING|COMPLETED|FAILED|REJECTED|CANCELED|TIMED_OUT,
//                             outputUrl, error, error_code}
// Auth: `x-api-key: <key>`. A create request carries an Idempotency-Key, so a retried create never starts a
// second (billed) generation. The output is downloaded from outputUrl (a signed URL, fetched without the key).
import { createWriteStream } from 'node:fs';
import { rename, rm } from 'node:fs/promises';
import { basename } from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { readFileSync } from 'node:fs';
import * as v from 'valibot';
import { EngineError, type EngineCallOptions, type LipsyncEngine, type LipsyncRequest, type LipsyncResult } from '../types';
import { EngineAdapterError, EngineResponseError, abortError } from './errors';
import { EngineHttpClient, defaultSleep, type Sleep } from './http';
import type { SharedHttpOptions } from './openai';

export const ENGINE = 'sync';

export interface SyncOptions {
  apiKey: string;
  /** Service root (default https://api.sync.so). */
  baseUrl?: string;
  /** Model name (default lipsync-2). */
  model?: string;
  /** Time between status polls (default 5 s). */
  pollIntervalMs?: number;
  /** Give up after this long (default 30 min). */
  timeoutMs?: number;
  http?: SharedHttpOptions & { sleep?: Sleep };
}

const Generation = v.object({
  id: v.string(),
  status: v.picklist(['PENDING', 'PROCESSING', 'COMPLETED', 'FAILED', 'REJECTED', 'CANCELED', 'TIMED_OUT']),
  outputUrl: v.optional(v.nullable(v.unknown())),
  outputMediaUrl: v.optional(v.nullable(v.unknown())),
  error: v.optional(v.nullable(v.unknown())),
  error_code: v.optional(v.nullable(v.unknown())),
  errorCode: v.optional(v.nullable(v.unknown())),
});
type Generation = v.InferOutput<typeof Generation>;

const FINAL_FAILURES = new Set(['FAILED', 'REJECTED', 'CANCELED', 'TIMED_OUT']);

export function createSyncLipsync(o: SyncOptions): LipsyncEngine {
  const client = new EngineHttpClient({
    engine: ENGINE,
    baseUrl: (o.baseUrl ?? 'https://api.sync.so').replace(/\/+$/, ''),
    headers: { 'x-api-key': o.apiKey },
    secrets: [o.apiKey],
    timeoutMs: o.http?.timeoutMs,
    retry: o.http?.retry,
    sleep: o.http?.sleep,
    fetch: o.http?.fetch,
    log: o.http?.log,
  });
  const sleep = o.http?.sleep ?? defaultSleep;
  const fetchImpl = o.http?.fetch ?? fetch;
  const model = o.model ?? 'lipsync-2';
  const pollMs = o.pollIntervalMs ?? 5000;
  const timeoutMs = o.timeoutMs ?? 30 * 60 * 1000;

  const parse = (body: unknown, what: string): Generation => {
    const r = v.safeParse(Generation, body);
    if (!r.success) throw new EngineResponseError(ENGINE, `${what}: unexpected answer (${r.issues[0]?.message ?? 'shape'})`);
    return r.output;
  };

  async function create(req: LipsyncRequest, signal?: AbortSignal): Promise<Generation> {
    const options = { sync_mode: 'cut_off', ...(req.multipleSpeakers ? { active_speaker: true } : {}) };
    const headers: Record<string, string> = req.requestKey ? { 'Idempotency-Key': req.requestKey } : {};
    // With a key a retried create is answered with the first generation; without one a retry could bill twice.
    const idempotent = !!req.requestKey;
    if (req.urls) {
      const body = { model, input: [{ type: 'video', url: req.urls.video }, { type: 'audio', url: req.urls.voice }], options };
      return parse(await client.json('POST', '/v2/generate', { json: body, headers, signal, what: 'lip-sync generation', idempotent }), 'create');
    }
    const form = new FormData();
    form.set('model', model);
    form.set('options', JSON.stringify(options));
    form.set('video', new Blob([readFileSync(req.video)], { type: 'video/mp4' }), basename(req.video));
    form.set('audio', new Blob([readFileSync(req.voice)], { type: 'audio/wav' }), basename(req.voice));
    return parse(await client.json('POST', '/v2/generate', { form, headers, signal, what: 'lip-sync generation', idempotent }), 'create');
  }

  async function download(url: string, out: string, signal?: AbortSignal): Promise<void> {
    const part = `${out}.part`;
    try {
      const res = await fetchImpl(url, { signal });
      if (!res.ok || !res.body) throw new EngineAdapterError(ENGINE, 'unavailable', `engine ${ENGINE}: the lip-synced video could not be downloaded (HTTP ${res.status})`, { status: res.status, retryable: true });
      await pipeline(Readable.fromWeb(res.body as import('node:stream/web').ReadableStream), createWriteStream(part));
      await rename(part, out);
    } catch (e) {
      await rm(part, { force: true }).catch(() => {});
      if (signal?.aborted) throw abortError(ENGINE);
      if (e instanceof EngineError) throw e;
      throw new EngineAdapterError(ENGINE, 'unavailable', `engine ${ENGINE}: the lip-synced video could not be downloaded (${client.redact((e as Error).message)})`, { retryable: true });
    }
  }

  return {
    id: ENGINE,
    label: `sync.so (${model})`,
    async lipsync(req: LipsyncRequest, c: EngineCallOptions = {}): Promise<LipsyncResult> {
      const signal = c.signal;
      const started = Date.now();
      let g = await create(req, signal);
      req.onProgress?.(0.05);
      while (!FINAL_FAILURES.has(g.status) && g.status !== 'COMPLETED') {
        if (Date.now() - started > timeoutMs) {
          throw new EngineAdapterError(ENGINE, 'timeout', `engine ${ENGINE}: the lip-sync generation did not finish within ${Math.round(timeoutMs / 60000)} min`, { retryable: true });
        }
        try {
          await sleep(pollMs, signal);
        } catch {
          throw abortError(ENGINE);
        }
        g = parse(await client.json('GET', `/v2/generate/${encodeURIComponent(g.id)}`, { signal, what: 'lip-sync status' }), 'status');
        req.onProgress?.(g.status === 'PROCESSING' ? 0.5 : 0.1);
      }
      if (g.status !== 'COMPLETED') {
        const why = [g.error, g.error_code ?? g.errorCode].filter((x) => typeof x === 'string' && x).join(' ');
        throw new EngineAdapterError(ENGINE, 'rejected', `engine ${ENGINE}: the lip-sync generation ended ${g.status}${why ? `: ${client.redact(why)}` : ''}`);
      }
      const url = typeof g.outputUrl === 'string' ? g.outputUrl : typeof g.outputMediaUrl === 'string' ? g.outputMediaUrl : null;
      if (!url) throw new EngineResponseError(ENGINE, 'the completed generation has no outputUrl');
      await download(url, req.outPath, signal);
      req.onProgress?.(1);
      return { engine: ENGINE };
    },
  };
}
