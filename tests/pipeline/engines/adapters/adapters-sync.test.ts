// sync.so lip-sync adapter against the fake API: upload or URLs, polling to COMPLETED and the download,
// FAILED with its reason, a refused key, a retried create that starts one generation, and the configuration.
import { readFileSync, existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createSyncLipsync } from '../../../../server/engines/adapters/sync';
import { createConfiguredRegistry } from '../../../../server/engines/adapters/index';
import { EngineAdapterError, EngineAuthError } from '../../../../server/engines/adapters/errors';
import { EngineConfigError, loadEngineConfig } from '../../../../server/engines/config';
import { FakeSync } from '../../../fakes/sync';
import { caught, recordingSleep, tempDir, writeTestWav } from '../../../fakes/util';

let fake: FakeSync;
let dir: string;
let video: string;
let voice: string;
const mk = (o: { key?: string } = {}) =>
  createSyncLipsync({
    apiKey: o.key ?? fake.apiKey,
    baseUrl: fake.url,
    model: 'lipsync-2',
    pollIntervalMs: 5,
    http: { sleep: recordingSleep().sleep, log: () => {}, retry: { maxAttempts: 3 }, timeoutMs: 5000 },
  });
const req = (out: string, extra: Record<string, unknown> = {}) => ({
  video, voice, turns: [{ speaker: 'S', start: 0, end: 1 }], multipleSpeakers: false, outPath: out, requestKey: 'p1-lipsync-1', ...extra,
});

beforeAll(async () => {
  fake = await new FakeSync().start();
  dir = tempDir('sync-');
  video = join(dir, 'dubbed.mp4');
  writeFileSync(video, Buffer.from('fake mp4 bytes of the dubbed video'));
  voice = writeTestWav(dir, 1, 'voice.wav');
});
afterAll(() => fake.close());
beforeEach(() => fake.reset());

describe('sync.so adapter', () => {
  it('uploads the video and the voice, polls until COMPLETED and downloads the output', async () => {
    const out = join(dir, 'a.mp4');
    const progress: number[] = [];
    const r = await mk().lipsync(req(out, { onProgress: (x: number) => progress.push(x) }));
    expect(r.engine).toBe('sync');
    expect(readFileSync(out).toString()).toBe('fake mp4 bytes of the dubbed video');
    const create = fake.requestsTo('POST', '/v2/generate')[0]!;
    expect(create.headers['x-api-key']).toBe(fake.apiKey);
    expect(create.headers['idempotency-key']).toBe('p1-lipsync-1');
    expect(create.multipart!.fields.model).toEqual(['lipsync-2']);
    expect(JSON.parse(create.multipart!.fields.options![0]!)).toMatchObject({ sync_mode: 'cut_off' });
    expect(create.multipart!.files.map((f) => f.field).sort()).toEqual(['audio', 'video']);
    expect(fake.requestsTo('GET', /^\/v2\/generate\//).length).toBe(2);
    // The download goes without the key.
    expect(fake.requestsTo('GET', /^\/output\//)[0]!.headers['x-api-key']).toBeUndefined();
    expect(progress.at(-1)).toBe(1);
    expect(fake.violations()).toEqual([]);
  });

  it('hands public URLs in a JSON create when the app has them', async () => {
    const out = join(dir, 'b.mp4');
    await mk().lipsync(req(out, { urls: { video: 'https://app.example/api/files/v/dub.mp4', voice: 'https://app.example/api/files/a/voice.wav' }, multipleSpeakers: true }));
    const create = fake.requestsTo('POST', '/v2/generate')[0]!;
    expect(create.json).toEqual({
      model: 'lipsync-2',
      input: [{ type: 'video', url: 'https://app.example/api/files/v/dub.mp4' }, { type: 'audio', url: 'https://app.example/api/files/a/voice.wav' }],
      options: { sync_mode: 'cut_off', active_speaker: true },
    });
    expect(existsSync(out)).toBe(true);
  });

  it('a FAILED generation is an error with the service reason; nothing is written', async () => {
    fake.failWith = 'no face detected in the input video';
    const out = join(dir, 'c.mp4');
    const e = await mk().lipsync(req(out)).catch(caught);
    expect(e).toBeInstanceOf(EngineAdapterError);
    expect(e.message).toMatch(/FAILED: no face detected in the input video/);
    expect(existsSync(out)).toBe(false);
  });

  it('a refused key is an auth error that never shows the key', async () => {
    const e = await mk({ key: 'wrong-key-123456' }).lipsync(req(join(dir, 'd.mp4'))).catch(caught);
    expect(e).toBeInstanceOf(EngineAuthError);
    expect(e.message).not.toContain('wrong-key-123456');
  });

  it('a create retried after a server error starts one generation (Idempotency-Key)', async () => {
    fake.fail({ kind: 'status', status: 502 }, 1, '/v2/generate');
    await mk().lipsync(req(join(dir, 'e.mp4')));
    expect(fake.requestsTo('POST', '/v2/generate')).toHaveLength(2);
    expect(fake.generations.size).toBe(1);
  });

  it('is chosen by LIPSYNC_ENGINE=sync, which needs SYNC_API_KEY', () => {
    expect(() => loadEngineConfig({ LIPSYNC_ENGINE: 'sync' })).toThrow(EngineConfigError);
    expect(() => loadEngineConfig({ LIPSYNC_ENGINE: 'sync' })).toThrow(/LIPSYNC_ENGINE=sync needs SYNC_API_KEY/);
    expect(() => loadEngineConfig({ LIPSYNC_ENGINE: 'wav2lip' })).toThrow(/LIPSYNC_ENGINE must be one of builtin, sync/);
    const { registry, config } = createConfiguredRegistry({ LIPSYNC_ENGINE: 'sync', SYNC_API_KEY: 'k-123456', SYNC_BASE_URL: `${fake.url}/v2` });
    expect(registry.lipsync.id).toBe('sync');
    expect(config.sync).toMatchObject({ baseUrl: fake.url, model: 'lipsync-2' });
    expect(JSON.stringify(config)).not.toContain('k-123456');
    expect(createConfiguredRegistry({}).registry.lipsync.id).toBe('builtin-lipsync');
  });
});
