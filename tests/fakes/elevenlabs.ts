// A fake ElevenLabs API:
//   POST   /v1/text-to-speech/{voice_id}?output_format=pcm_XXXXX  JSON {text, model_id, voice_settings, language_code?}
//          -> raw signed 16-bit PCM at the requested rate
//   GET    /v1/voices                -> {voices:[{voice_id, name, category, labels, preview_url, ...}]}
//   POST   /v1/voices/add            multipart name + files (also accepted as files[]) -> {voice_id, requires_verification}
//   DELETE /v1/voices/{voice_id}     -> {status:'ok'}
// Auth: `xi-api-key` header (401 {"detail":{"status":"invalid_api_key",...}} otherwise).
import { randomBytes } from 'node:crypto';
import { FakeServer, ShapeError, header, tonePcm, type RecordedRequest, type Reply, type Route } from './base';

export interface FakeVoice {
  voice_id: string;
  name: string;
  category: 'premade' | 'cloned' | 'generated' | 'professional';
  labels: Record<string, string>;
}

export interface FakeElevenLabsOptions {
  apiKey?: string;
  models?: string[];
  /** Seconds of speech per character at speed 1 (default 0.06). */
  secondsPerChar?: number;
}

const FORMATS = ['pcm_8000', 'pcm_16000', 'pcm_22050', 'pcm_24000', 'pcm_44100', 'mp3_44100_128'];

export class FakeElevenLabs extends FakeServer {
  readonly opts: Required<FakeElevenLabsOptions>;
  voices: FakeVoice[] = [];

  constructor(opts: FakeElevenLabsOptions = {}) {
    super();
    this.opts = {
      apiKey: 'fake-xi-key-51ab0e77c2',
      models: ['eleven_multilingual_v2', 'eleven_turbo_v2_5', 'eleven_flash_v2_5'],
      secondsPerChar: 0.06,
      ...opts,
    };
    this.reset();
  }

  reset(): void {
    this.clearFaults();
    this.requests.length = 0;
    this.voices = [
      { voice_id: '21m00Tcm4TlvDq8ikWAM', name: 'Rachel', category: 'premade', labels: { accent: 'american', age: 'young', gender: 'female', use_case: 'narration' } },
      { voice_id: 'pNInz6obpgDQGcFmaJgB', name: 'Adam', category: 'premade', labels: { accent: 'american', age: 'middle aged', gender: 'male', use_case: 'narration' } },
    ];
  }

  protected authorize(req: RecordedRequest): Reply | null {
    if (header(req, 'xi-api-key') === this.opts.apiKey) return null;
    return { status: 401, json: { detail: { status: 'invalid_api_key', message: 'Invalid API key' } } };
  }

  protected routes(): Route[] {
    return [
      { method: 'POST', path: '/v1/text-to-speech/:voice', handler: (r, p) => this.tts(r, p.voice!) },
      {
        method: 'GET',
        path: '/v1/voices',
        handler: () => ({
          json: {
            voices: this.voices.map((x) => ({
              ...x,
              description: null,
              preview_url: `https://storage.example/${x.voice_id}.mp3`,
              available_for_tiers: [],
              settings: null,
              samples: null,
              fine_tuning: { is_allowed_to_fine_tune: false },
              high_quality_base_model_ids: ['eleven_multilingual_v2'],
            })),
          },
        }),
      },
      { method: 'POST', path: '/v1/voices/add', handler: (r) => this.add(r) },
      {
        method: 'DELETE',
        path: '/v1/voices/:voice',
        handler: (_r, p) => {
          const n = this.voices.length;
          this.voices = this.voices.filter((x) => x.voice_id !== p.voice);
          return n === this.voices.length
            ? { status: 404, json: { detail: { status: 'voice_not_found', message: 'A voice with this ID was not found.' } } }
            : { json: { status: 'ok' } };
        },
      },
    ];
  }

  private tts(req: RecordedRequest, voiceId: string): Reply {
    const b = req.json as Record<string, unknown> | undefined;
    if (!b) throw new ShapeError('text-to-speech expects a JSON body', 422, { detail: [{ msg: 'field required' }] });
    if (typeof b.text !== 'string' || !b.text) throw new ShapeError("missing 'text'", 422, { detail: [{ loc: ['body', 'text'], msg: 'field required' }] });
    if (typeof b.model_id !== 'string' || !this.opts.models.includes(b.model_id)) throw new ShapeError(`unknown model_id ${String(b.model_id)}`);
    const vs = b.voice_settings as Record<string, unknown> | undefined;
    if (vs !== undefined) {
      for (const k of ['stability', 'similarity_boost']) {
        if (typeof vs[k] !== 'number' || (vs[k] as number) < 0 || (vs[k] as number) > 1) throw new ShapeError(`voice_settings.${k} must be 0..1`);
      }
      if (vs.speed !== undefined && (typeof vs.speed !== 'number' || vs.speed < 0.7 || vs.speed > 1.2)) throw new ShapeError('voice_settings.speed must be 0.7..1.2');
    }
    if (b.language_code !== undefined && !/_v2_5$/.test(b.model_id)) {
      throw new ShapeError('language_code is only supported by the v2.5 models', 400, {
        detail: { status: 'unsupported_language', message: 'Model does not support language_code' },
      });
    }
    const format = req.query.get('output_format') ?? 'mp3_44100_128';
    if (!FORMATS.includes(format)) throw new ShapeError(`bad output_format ${format}`);
    if (!format.startsWith('pcm_')) throw new ShapeError('the adapter should ask for raw PCM');
    if (!this.voices.some((x) => x.voice_id === voiceId)) {
      throw new ShapeError(`unknown voice ${voiceId}`, 404, { detail: { status: 'voice_not_found', message: 'A voice with this ID was not found.' } });
    }
    const rate = Number(format.split('_')[1]);
    const speed = (vs?.speed as number | undefined) ?? 1;
    const frames = Math.round(((b.text.length * this.opts.secondsPerChar) / speed) * rate);
    return { headers: { 'Content-Type': 'audio/pcm' }, body: tonePcm(frames, rate) };
  }

  private add(req: RecordedRequest): Reply {
    const mp = req.multipart;
    if (!mp) throw new ShapeError('voices/add expects multipart/form-data');
    const name = mp.fields.name?.[0];
    if (!name) throw new ShapeError("missing field 'name'", 422, { detail: [{ loc: ['body', 'name'], msg: 'field required' }] });
    const files = mp.files.filter((f) => f.field === 'files' || f.field === 'files[]');
    if (!files.length) throw new ShapeError("missing file parts 'files'", 422, { detail: [{ loc: ['body', 'files'], msg: 'field required' }] });
    for (const f of files) {
      if (!f.filename || f.data.length === 0) throw new ShapeError('empty sample file');
      if (!/^audio\//.test(f.contentType)) throw new ShapeError(`sample content type ${f.contentType} is not audio`);
    }
    const labels = mp.fields.labels?.[0];
    let parsedLabels: Record<string, string> = {};
    if (labels !== undefined) {
      try {
        parsedLabels = JSON.parse(labels);
      } catch {
        throw new ShapeError('labels must be a JSON object');
      }
    }
    const rbn = mp.fields.remove_background_noise?.[0];
    if (rbn !== undefined && rbn !== 'true' && rbn !== 'false') throw new ShapeError('remove_background_noise must be true or false');
    const voice_id = randomBytes(15).toString('base64url').slice(0, 20);
    this.voices.push({ voice_id, name, category: 'cloned', labels: parsedLabels });
    return { json: { voice_id, requires_verification: false } };
  }
}
