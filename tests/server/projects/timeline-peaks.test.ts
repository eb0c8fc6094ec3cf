// Waveform peaks of the timeline editor (issue 15): the reducer and the coarser levels (pure), then
// GET /api/project/{id}/peaks over HTTP with real ffmpeg on real LibriVox speech: the values match the PCM,
// ranges, caching with the project's files, the dub track (409 before it exists), refusals and bad input.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PEAKS_HEADERS } from '../../../contract/peaks';
import { updateProjectFields } from '../../../server/domains/projects/repository';
import { encodeAudio } from '../../../server/media/ffmpeg';
import { coarsen, peaksPcmArgs, PeaksReducer } from '../../../server/media/peaks';
import { parseWavHeader } from '../../../server/media/wav';
import { projectKey } from '../../../server/storage/index';
import { librivoxWav, makeSilentVideo, tempDir } from '../../fixtures/media';
import { createHarness, type Harness } from '../harness';
import { newUser, seedProject, uploadOk, type TestUser } from './projects-fixtures';

const pcm = (samples: number[]) => new Uint8Array(new Int16Array(samples).buffer);

describe('PeaksReducer and coarsen', () => {
  it('keeps min and max per bucket, joins a sample split across chunks, and keeps a partial last bucket', () => {
    const r = new PeaksReducer(3, 1);
    const bytes = pcm([0, 32767, -32768, 100, -100, 0, 16384]);
    r.push(bytes.subarray(0, 5)); // 2.5 samples: the third sample's low byte waits
    r.push(bytes.subarray(5));
    expect([...r.result()]).toEqual([-127, 127, -1, 1, 63, 64]);
  });

  it('coarser levels are the min of the mins and the max of the maxes', () => {
    const fine = new Int8Array([-1, 2, -5, 3, 0, 9, -2, 1, -7, 0]);
    expect([...coarsen(fine, 2)]).toEqual([-5, 3, -2, 9, -7, 0]);
    expect([...coarsen(fine, 10)]).toEqual([-7, 9]);
  });

  it('decodes with ffmpeg to raw mono 16-bit PCM on stdout', () => {
    expect(peaksPcmArgs('/in.mp4')).toEqual([
      '-nostdin', '-hide_banner', '-loglevel', 'error', '-y', '-i', '/in.mp4', '-map', '0:a:0', '-vn', '-sn', '-dn',
      '-ac', '1', '-ar', '16000', '-f', 's16le', '-acodec', 'pcm_s16le', 'pipe:1',
    ]);
  });
});

async function peaks(h: Harness, u: TestUser | null, id: string, query: string) {
  const r = await h.request('GET', `/api/project/${id}/peaks?${query}`, { token: u?.token ?? null });
  const body = new Int8Array(await r.arrayBuffer());
  return { status: r.status, headers: r.headers, body, json: () => JSON.parse(new TextDecoder().decode(body)) as { detail: unknown } };
}

describe('GET /api/project/{id}/peaks', () => {
  let h: Harness;
  let u: TestUser;
  let id: string;
  const wav = librivoxWav('0870');
  let samples: Int16Array;
  let duration: number;
  beforeAll(async () => {
    h = await createHarness();
    u = await newUser(h, 'peaks');
    const mediaId = await uploadOk(h, u, await makeSilentVideo({ seconds: 1 }));
    const buf = readFileSync(wav);
    const info = parseWavHeader(buf);
    expect(info).toMatchObject({ sampleRate: 16000, channels: 1, bitsPerSample: 16 });
    samples = new Int16Array(buf.buffer.slice(buf.byteOffset + info.dataOffset, buf.byteOffset + info.dataOffset + info.dataBytes));
    duration = info.durationSec;
    id = await seedProject(h, u, { mediaId, status: 'translation_done', duration });
    // The source audio as ingest leaves it: the extracted 16 kHz WAV of the project.
    await h.deps.storage.putFile(projectKey(id, 'audio_16k.wav'), wav);
  }, 240_000);
  afterAll(async () => {
    await h?.close();
  });

  it('answers the source peaks as min,max pairs that match the PCM, and keeps them with the project', async () => {
    const r = await peaks(h, u, id, 'track=source&resolution=500');
    expect(r.status).toBe(200);
    expect(r.headers.get('content-type')).toBe('application/octet-stream');
    const total = Math.ceil(samples.length / 32);
    expect(r.headers.get(PEAKS_HEADERS.total)).toBe(String(total));
    expect(r.headers.get(PEAKS_HEADERS.from)).toBe('0');
    expect(r.headers.get(PEAKS_HEADERS.count)).toBe(String(total));
    expect(r.headers.get(PEAKS_HEADERS.resolution)).toBe('500');
    expect(r.body.length).toBe(total * 2);
    // Every bucket is the min/max of its 32 samples (as signed bytes).
    let mismatches = 0;
    for (let b = 0; b < total; b++) {
      let lo = 32767;
      let hi = -32768;
      for (let i = b * 32; i < Math.min(samples.length, b * 32 + 32); i++) {
        lo = Math.min(lo, samples[i]!);
        hi = Math.max(hi, samples[i]!);
      }
      if (r.body[b * 2] !== Math.max(-127, Math.floor((lo * 127) / 32767)) || r.body[b * 2 + 1] !== Math.min(127, Math.ceil((hi * 127) / 32767))) mismatches++;
    }
    expect(mismatches).toBe(0);
    // Speech is loud somewhere, and the coarse level agrees with the fine one.
    const maxFine = Math.max(...r.body);
    expect(maxFine).toBeGreaterThan(40);
    const coarse = await peaks(h, u, id, 'track=source&resolution=5');
    expect(coarse.status).toBe(200);
    expect(Number(coarse.headers.get(PEAKS_HEADERS.total))).toBe(Math.ceil(duration * 5));
    expect(Math.max(...coarse.body)).toBe(maxFine);
    for (const res of [5, 50, 500]) expect(await h.deps.storage.exists(projectKey(id, `peaks/source/${res}.i8`))).toBe(true);
  }, 60_000);

  it('answers a range of buckets, and nothing past the end', async () => {
    const all = await peaks(h, u, id, 'track=source&resolution=50');
    const part = await peaks(h, u, id, 'track=source&resolution=50&from=100&count=20');
    expect(part.status).toBe(200);
    expect(part.headers.get(PEAKS_HEADERS.from)).toBe('100');
    expect(part.headers.get(PEAKS_HEADERS.count)).toBe('20');
    expect([...part.body]).toEqual([...all.body.subarray(200, 240)]);
    const total = Number(all.headers.get(PEAKS_HEADERS.total));
    const tail = await peaks(h, u, id, `track=source&resolution=50&from=${total - 3}&count=100`);
    expect(tail.headers.get(PEAKS_HEADERS.count)).toBe('3');
    const past = await peaks(h, u, id, `track=source&resolution=50&from=${total + 10}`);
    expect(past.status).toBe(200);
    expect(past.body.length).toBe(0);
  });

  it('answers 409 for the dub before it exists, then its peaks once generated', async () => {
    const before = await peaks(h, u, id, 'track=dub&resolution=50');
    expect(before.status).toBe(409);
    expect(before.json().detail).toBe('There is no dub yet: generate the video first');
    // A generated voice-only track (AAC), where merging puts it.
    const m4a = join(tempDir('dub-'), 'voiceover.m4a');
    await encodeAudio(wav, m4a, { durationSec: duration, sampleRate: 48000, channels: 1 });
    const key = projectKey(id, 'out/1/voiceover.m4a');
    await h.deps.storage.putFile(key, m4a);
    await updateProjectFields(h.deps.db, id, { voiceover: key });
    const after = await peaks(h, u, id, 'track=dub&resolution=50');
    expect(after.status).toBe(200);
    expect(Math.abs(Number(after.headers.get(PEAKS_HEADERS.total)) - duration * 50)).toBeLessThan(5);
    expect(Math.max(...after.body)).toBeGreaterThan(40);
    expect(await h.deps.storage.exists(`${key}.peaks/500.i8`)).toBe(true);
  }, 60_000);

  it('refuses another user (403), an unknown project (404) and no token (401)', async () => {
    const stranger = await newUser(h, 'stranger');
    const r = await peaks(h, stranger, id, 'track=source');
    expect(r.status).toBe(403);
    expect((await peaks(h, stranger, id, 'track=dub')).status).toBe(403);
    // Access is checked before the query: a stranger learns nothing from a bad query either.
    expect((await peaks(h, stranger, id, 'track=music')).status).toBe(403);
    expect((await peaks(h, u, '0b6f3c8e-3f4b-4f0a-9d55-5f2c1c7d8e90', 'track=source')).status).toBe(404);
    expect((await peaks(h, null, id, 'track=source')).status).toBe(401);
  });

  it('answers 422 with the field for a bad track, resolution, from or count', async () => {
    const cases: Array<[string, string]> = [
      ['resolution=5', 'track'],
      ['track=music', 'track'],
      ['track=source&resolution=7', 'resolution'],
      ['track=source&from=-1', 'from'],
      ['track=source&count=0', 'count'],
      ['track=source&count=99999999', 'count'],
    ];
    for (const [q, field] of cases) {
      const r = await peaks(h, u, id, q);
      expect(r.status, q).toBe(422);
      const detail = r.json().detail as Array<{ loc: string[]; msg: string }>;
      expect(detail[0]!.loc, q).toEqual(['query', field]);
      expect(detail[0]!.msg.length).toBeGreaterThan(5);
    }
  });

  it('answers 409 while the source audio does not exist yet', async () => {
    const mediaId = await uploadOk(h, u, await makeSilentVideo({ seconds: 1 }));
    const fresh = await seedProject(h, u, { mediaId, status: 'translation_done' });
    const r = await peaks(h, u, fresh, 'track=source');
    expect(r.status).toBe(409);
    expect(r.json().detail).toBe('The source audio is not ready yet: wait until the video is processed');
  });
});
