// A fake sync.so API (lip-sync), as documented:
//   POST /v2/generate       JSON {model, input:[{type:'video',url},{type:'audio',url}], options?}
//                           or multipart/form-data: files `video` and `audio`, fields `model`, `options` (JSON)
//                           -> 201 {id, createdAt, status:'PENDING', model, input, options, outputUrl:null, error:null}
//   GET  /v2/generate/{id}  -> the generation; PENDING, then PROCESSING, then COMPLETED with outputUrl (or FAILED
//                           with error and error_code when told to fail)
// Auth: `x-api-key` (401 {"message": "..."} otherwise). An Idempotency-Key on create returns the same generation.
// The output is served at /output/{id}.mp4 without a key (a signed URL in the real service): the uploaded video
// (or `outputBytes`) comes back as the "lip-synced" result.
import { randomBytes } from 'node:crypto';
import { FakeServer, ShapeError, header, type RecordedRequest, type Reply, type Route } from './base';

export interface FakeGeneration {
  id: string;
  status: 'PENDING' | 'PROCESSING' | 'COMPLETED' | 'FAILED';
  model: string;
  input: Array<{ type: string; url?: string }>;
  options: Record<string, unknown>;
  polls: number;
  output: Buffer;
  idempotencyKey?: string;
}

export class FakeSync extends FakeServer {
  generations = new Map<string, FakeGeneration>();
  /** Make the next generations end FAILED with this error. */
  failWith: string | null = null;
  /** Bytes returned as output when the input was given by URL. */
  outputBytes: Buffer = Buffer.from('not a video');

  constructor(readonly apiKey = 'fake-sync-key-8d1f4e') {
    super();
  }

  reset(): void {
    this.clearFaults();
    this.requests.length = 0;
    this.generations.clear();
    this.failWith = null;
  }

  protected authorize(req: RecordedRequest): Reply | null {
    if (req.path.startsWith('/output/')) return null;
    if (header(req, 'x-api-key') === this.apiKey) return null;
    return { status: 401, json: { message: 'Invalid API key' } };
  }

  private view(g: FakeGeneration) {
    return {
      id: g.id, createdAt: new Date().toISOString(), status: g.status, model: g.model, input: g.input, options: g.options,
      outputUrl: g.status === 'COMPLETED' ? `${this.url}/output/${g.id}.mp4` : null,
      outputDuration: g.status === 'COMPLETED' ? 4 : null,
      error: g.status === 'FAILED' ? this.failWith ?? 'generation failed' : null,
      error_code: g.status === 'FAILED' ? 'generation_failed' : null,
    };
  }

  protected routes(): Route[] {
    return [
      { method: 'POST', path: '/v2/generate', handler: (r) => this.create(r) },
      {
        method: 'GET',
        path: '/v2/generate/:id',
        handler: (_r, p) => {
          const g = this.generations.get(p.id!);
          if (!g) return { status: 404, json: { message: 'Generation not found' } };
          g.polls++;
          if (g.status !== 'COMPLETED' && g.status !== 'FAILED') {
            g.status = g.polls === 1 ? 'PROCESSING' : this.failWith ? 'FAILED' : 'COMPLETED';
          }
          return { json: this.view(g) };
        },
      },
      {
        method: 'GET',
        path: '/output/:file',
        handler: (_r, p) => {
          const g = this.generations.get(p.file!.replace(/\.mp4$/, ''));
          if (!g || g.status !== 'COMPLETED') return { status: 404, json: { message: 'no output' } };
          return { headers: { 'Content-Type': 'video/mp4' }, body: g.output };
        },
      },
    ];
  }

  private create(r: RecordedRequest): Reply {
    const key = header(r, 'idempotency-key');
    if (key) {
      const same = [...this.generations.values()].find((g) => g.idempotencyKey === key);
      if (same) return { status: 201, json: this.view(same) };
    }
    let model: string;
    let input: FakeGeneration['input'];
    let options: Record<string, unknown> = {};
    let output = this.outputBytes;
    if (r.multipart) {
      model = r.multipart.fields.model?.[0] ?? '';
      const video = r.multipart.files.find((f) => f.field === 'video');
      const audio = r.multipart.files.find((f) => f.field === 'audio');
      if (!video || !audio) throw new ShapeError('multipart create needs the files video and audio', 422);
      if (r.multipart.fields.options) {
        try {
          options = JSON.parse(r.multipart.fields.options[0]!) as Record<string, unknown>;
        } catch {
          throw new ShapeError('options must be a JSON string', 422);
        }
      }
      input = [{ type: 'video' }, { type: 'audio' }];
      output = video.data;
    } else {
      const b = r.json as { model?: unknown; input?: unknown; options?: unknown } | undefined;
      if (!b || typeof b.model !== 'string') throw new ShapeError('model is required', 422);
      model = b.model;
      if (!Array.isArray(b.input)) throw new ShapeError('input must be an array', 422);
      input = b.input as FakeGeneration['input'];
      const types = input.map((i) => i.type).sort().join(',');
      if (types !== 'audio,video' || input.some((i) => typeof i.url !== 'string' || !/^https?:\/\//.test(i.url))) {
        throw new ShapeError('input must hold one video and one audio, each with an http(s) url', 422);
      }
      options = (b.options ?? {}) as Record<string, unknown>;
    }
    if (!model) throw new ShapeError('model is required', 422);
    const g: FakeGeneration = { id: randomBytes(8).toString('hex'), status: 'PENDING', model, input, options, polls: 0, output, idempotencyKey: key };
    this.generations.set(g.id, g);
    return { status: 201, json: this.view(g) };
  }
}
