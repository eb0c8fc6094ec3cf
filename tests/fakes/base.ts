// Shared machinery of the fake model servers used by the adapter tests: a node:http server on
// 127.0.0.1 and a random port that records every request (method, path, query, headers, raw body,
// parsed JSON or multipart), checks it against the documented shape (each fake adds its own checks),
// and can be told to misbehave for the next N requests: 401, 403, 429 with Retry-After, 500, a hang,
// a truncated body or malformed JSON.
import { createServer, type IncomingHttpHeaders, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';

export interface MultipartFile {
  field: string;
  filename: string;
  contentType: string;
  data: Buffer;
}

export interface Multipart {
  fields: Record<string, string[]>;
  files: MultipartFile[];
}

export interface RecordedRequest {
  method: string;
  path: string;
  query: URLSearchParams;
  headers: IncomingHttpHeaders;
  body: Buffer;
  json?: unknown;
  multipart?: Multipart;
  /** Shape problems the fake found in this request (empty when it matched the documentation). */
  violations: string[];
}

export type Fault =
  | { kind: 'status'; status: number; body?: unknown; headers?: Record<string, string> }
  | { kind: 'hang' }
  | { kind: 'truncate' }
  | { kind: 'malformed' }
  /** A complete HTTP response with this exact body (e.g. a WAV whose data chunk is cut short). */
  | { kind: 'raw'; status?: number; headers?: Record<string, string>; body: Buffer | string };

export interface Reply {
  status?: number;
  headers?: Record<string, string>;
  json?: unknown;
  body?: Buffer | string;
}

/** Thrown by a route handler when the request does not match the documented shape. */
export class ShapeError extends Error {
  constructor(
    message: string,
    readonly status = 400,
    readonly reply?: unknown,
  ) {
    super(message);
  }
}

export function parseMultipart(body: Buffer, contentType: string | undefined): Multipart {
  const m = /boundary=(?:"([^"]+)"|([^;]+))/i.exec(contentType ?? '');
  if (!m) throw new ShapeError('multipart/form-data body without a boundary');
  const boundary = Buffer.from(`--${m[1] ?? m[2]}`);
  const out: Multipart = { fields: {}, files: [] };
  let pos = body.indexOf(boundary);
  if (pos < 0) throw new ShapeError('multipart body does not contain its boundary');
  for (;;) {
    pos += boundary.length;
    if (body.subarray(pos, pos + 2).toString() === '--') break;
    pos += 2; // CRLF
    const headEnd = body.indexOf('\r\n\r\n', pos);
    if (headEnd < 0) throw new ShapeError('multipart part without headers');
    const head = body.subarray(pos, headEnd).toString('utf8');
    const next = body.indexOf(boundary, headEnd + 4);
    if (next < 0) throw new ShapeError('multipart body is not terminated');
    const data = body.subarray(headEnd + 4, next - 2); // strip CRLF before the boundary
    const disp = /content-disposition:\s*form-data;([^\r\n]*)/i.exec(head)?.[1] ?? '';
    const name = /\bname="([^"]*)"/i.exec(disp)?.[1];
    if (name === undefined) throw new ShapeError('multipart part without a name');
    const filename = /\bfilename="([^"]*)"/i.exec(disp)?.[1];
    if (filename !== undefined) {
      const ct = /content-type:\s*([^\r\n]+)/i.exec(head)?.[1]?.trim() ?? 'application/octet-stream';
      out.files.push({ field: name, filename, contentType: ct, data: Buffer.from(data) });
    } else {
      (out.fields[name] ??= []).push(data.toString('utf8'));
    }
    pos = next;
  }
  return out;
}

export interface Route {
  method: string;
  /** Path pattern; `:name` segments are captured into params. */
  path: string;
  handler: (req: RecordedRequest, params: Record<string, string>) => Reply | Promise<Reply>;
}

export abstract class FakeServer {
  readonly requests: RecordedRequest[] = [];
  private server: Server | null = null;
  private readonly sockets = new Set<Socket>();
  private readonly faults: Array<{ fault: Fault; path?: string }> = [];
  private readonly hung: ServerResponse[] = [];
  private readonly requestWaiters: Array<{ n: number; resolve: () => void }> = [];
  url = '';

  protected abstract routes(): Route[];
  /** Checks the credential header; returns the reply for a bad or missing one. */
  protected abstract authorize(req: RecordedRequest): Reply | null;

  async start(): Promise<this> {
    this.server = createServer((req, res) => void this.handle(req, res));
    this.server.on('connection', (s) => {
      this.sockets.add(s);
      s.on('close', () => this.sockets.delete(s));
    });
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
    return this;
  }

  async close(): Promise<void> {
    for (const r of this.hung.splice(0)) r.destroy();
    for (const s of this.sockets) s.destroy();
    await new Promise<void>((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
  }

  /** The next `times` requests (to `path` if given) get this fault instead of a normal answer. */
  fail(fault: Fault, times = 1, path?: string): this {
    for (let i = 0; i < times; i++) this.faults.push({ fault, path });
    return this;
  }

  clearFaults(): void {
    this.faults.length = 0;
  }

  /** All shape violations seen so far, prefixed with the request. */
  violations(): string[] {
    return this.requests.flatMap((r) => r.violations.map((v) => `${r.method} ${r.path}: ${v}`));
  }

  /**
   * Resolves once `n` requests have arrived (counting those already in `requests`): a test acts on "the call has
   * reached the server" (to cancel it, say) instead of guessing how many milliseconds that takes.
   */
  untilRequests(n: number): Promise<void> {
    if (this.requests.length >= n) return Promise.resolve();
    return new Promise((resolve) => this.requestWaiters.push({ n, resolve }));
  }

  requestsTo(method: string, path: string | RegExp): RecordedRequest[] {
    return this.requests.filter((r) => r.method === method && (typeof path === 'string' ? r.path === path : path.test(r.path)));
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const body = Buffer.concat(chunks);
    const u = new URL(req.url ?? '/', 'http://fake');
    const rec: RecordedRequest = {
      method: req.method ?? 'GET',
      path: u.pathname,
      query: u.searchParams,
      headers: req.headers,
      body,
      violations: [],
    };
    this.requests.push(rec);
    for (const w of this.requestWaiters.splice(0)) {
      if (this.requests.length >= w.n) w.resolve();
      else this.requestWaiters.push(w);
    }
    const ct = req.headers['content-type'] ?? '';
    try {
      if (/^application\/json/i.test(ct)) {
        try {
          rec.json = JSON.parse(body.toString('utf8'));
        } catch {
          throw new ShapeError('body is not valid JSON');
        }
      } else if (/^multipart\/form-data/i.test(ct)) {
        rec.multipart = parseMultipart(body, ct);
      }
    } catch (e) {
      rec.violations.push((e as Error).message);
      return this.send(res, { status: 400, json: { error: { message: (e as Error).message } } });
    }

    const fi = this.faults.findIndex((f) => !f.path || f.path === rec.path);
    if (fi >= 0) {
      const { fault } = this.faults.splice(fi, 1)[0]!;
      return this.applyFault(res, fault);
    }

    const denied = this.authorize(rec);
    if (denied) return this.send(res, denied);

    for (const route of this.routes()) {
      if (route.method !== rec.method) continue;
      const params = matchPath(route.path, rec.path);
      if (!params) continue;
      try {
        return this.send(res, await route.handler(rec, params));
      } catch (e) {
        if (e instanceof ShapeError) {
          rec.violations.push(e.message);
          return this.send(res, { status: e.status, json: e.reply ?? { error: { message: e.message } } });
        }
        return this.send(res, { status: 500, json: { error: { message: String(e) } } });
      }
    }
    rec.violations.push('no such endpoint');
    this.send(res, { status: 404, json: { error: { message: `Unknown endpoint ${rec.method} ${rec.path}` } } });
  }

  private applyFault(res: ServerResponse, fault: Fault): void {
    switch (fault.kind) {
      case 'status':
        return this.send(res, { status: fault.status, headers: fault.headers, json: fault.body ?? { error: { message: `fault ${fault.status}` } } });
      case 'hang':
        this.hung.push(res);
        return;
      case 'truncate': {
        // Announce 4096 bytes, send 100, then cut the connection.
        res.writeHead(200, { 'Content-Type': 'application/octet-stream', 'Content-Length': '4096' });
        res.write(Buffer.alloc(100, 0x41));
        setTimeout(() => res.socket?.destroy(), 20);
        return;
      }
      case 'malformed':
        return this.send(res, { status: 200, headers: { 'Content-Type': 'application/json' }, body: '{"choices": [{"message": {"content": ' });
      case 'raw':
        return this.send(res, { status: fault.status ?? 200, headers: fault.headers, body: fault.body });
    }
  }

  protected send(res: ServerResponse, r: Reply): void {
    const headers: Record<string, string> = { ...(r.headers ?? {}) };
    let body: Buffer;
    if (r.json !== undefined) {
      headers['Content-Type'] ??= 'application/json';
      body = Buffer.from(JSON.stringify(r.json));
    } else {
      body = typeof r.body === 'string' ? Buffer.from(r.body) : (r.body ?? Buffer.alloc(0));
    }
    headers['Content-Length'] = String(body.length);
    res.writeHead(r.status ?? 200, headers);
    res.end(body);
  }
}

function matchPath(pattern: string, path: string): Record<string, string> | null {
  const a = pattern.split('/');
  const b = path.split('/');
  if (a.length !== b.length) return null;
  const params: Record<string, string> = {};
  for (let i = 0; i < a.length; i++) {
    if (a[i]!.startsWith(':')) params[a[i]!.slice(1)] = decodeURIComponent(b[i]!);
    else if (a[i] !== b[i]) return null;
  }
  return params;
}

/** A 16-bit PCM mono WAV of `seconds` of a quiet tone (fakes answer speech requests with it). */
export function toneWav(seconds: number, sampleRate: number, o: { streamingSizes?: boolean } = {}): Buffer {
  const frames = Math.max(1, Math.round(seconds * sampleRate));
  const pcm = tonePcm(frames, sampleRate);
  const h = Buffer.alloc(44);
  h.write('RIFF', 0, 'ascii');
  h.writeUInt32LE(o.streamingSizes ? 0xffffffff : 36 + pcm.length, 4);
  h.write('WAVE', 8, 'ascii');
  h.write('fmt ', 12, 'ascii');
  h.writeUInt32LE(16, 16);
  h.writeUInt16LE(1, 20);
  h.writeUInt16LE(1, 22);
  h.writeUInt32LE(sampleRate, 24);
  h.writeUInt32LE(sampleRate * 2, 28);
  h.writeUInt16LE(2, 32);
  h.writeUInt16LE(16, 34);
  h.write('data', 36, 'ascii');
  h.writeUInt32LE(o.streamingSizes ? 0xffffffff : pcm.length, 40);
  return Buffer.concat([h, pcm]);
}

/** Raw signed 16-bit little-endian mono PCM of a quiet 220 Hz tone. */
export function tonePcm(frames: number, sampleRate: number): Buffer {
  const pcm = Buffer.alloc(frames * 2);
  for (let i = 0; i < frames; i++) pcm.writeInt16LE(Math.round(3000 * Math.sin((2 * Math.PI * 220 * i) / sampleRate)), i * 2);
  return pcm;
}

export function header(req: RecordedRequest, name: string): string | undefined {
  const v = req.headers[name.toLowerCase()];
  return Array.isArray(v) ? v[0] : v;
}
