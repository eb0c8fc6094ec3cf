// The quality report of a dub (issue 15): figures measured from audio files (a voice-only track, the final
// soundtrack, the source), the glossary matcher, the CSV, and GET /api/project/{id}/quality over HTTP.
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as v from 'valibot';
import { QualityReport } from '../../../contract/schemas/quality';
import { analyseQuality, matchGlossary, measureQuality, qualityCsv, qualityKey, type Envelope } from '../../../server/domains/projects/quality';
import { synthAudio } from '../../../server/media/ffmpeg';
import { tempDir, makeSilentVideo } from '../../fixtures/media';
import { createHarness, type Harness } from '../harness';
import { typedClient } from '../typed-client';
import { newUser, seedProject, uploadOk, type TestUser } from './projects-fixtures';

const HOP = 0.02;
/** An envelope of `seconds` with `level` inside the given spans and silence elsewhere. */
function env(seconds: number, spans: Array<[number, number]>, level = 0.2, floor = 0): Envelope {
  const rms = new Float32Array(Math.round(seconds / HOP)).fill(floor);
  for (const [a, b] of spans) for (let f = Math.round(a / HOP); f < Math.round(b / HOP); f++) rms[f] = level;
  return { hopSec: HOP, rms };
}
const seg = (id: string, start: number, end: number, o: { src?: string; dst?: string; speed?: number | null; speaker?: string; words?: unknown } = {}) => ({
  id, start_sec: start, end_sec: end, speaker: o.speaker ?? 'SPEAKER_0', src_text: o.src ?? 'Hello', dst_text: o.dst ?? 'Hola',
  speed_factor: o.speed === undefined ? 1 : o.speed, words: (o.words ?? null) as never,
});

describe('analyseQuality (measured envelopes)', () => {
  it('finds overflow, borrowed gap, missing speech, drift, overlap and coverage from where the voice is heard', () => {
    const r = analyseQuality({
      projectId: 'p', generation: 2, duration: 10,
      segments: [
        seg('a', 1, 2),                       // voice 1.0-2.4: 0.4 s past its slot, all of it in the gap before 3.0
        seg('b', 3, 4, { speed: 1.5 }),       // no voice at all: missing speech; fast
        seg('c', 5, 6.5, { speaker: 'S1' }),  // voice starts late (5.5): drift 0.5
        seg('d', 6, 7, { speaker: 'S2' }),    // slots of c and d overlap (6-6.5) while voice sounds
      ],
      glossary: [],
      voice: env(10, [[1, 2.4], [5.5, 7]]),
      output: env(10, [[1, 2.4], [5.5, 7]], 0.2, 0.01),
      source: env(10, [[1, 2], [3, 4], [5, 7]], 0.2, 0.01),
      loudnessLufs: -16.04, sourceLoudnessLufs: -23.2,
    });
    const by = new Map(r.segments.map((s) => [s.id, s]));
    expect(by.get('a')).toMatchObject({ dub_start: 1, dub_end: 2.4, ended_within_slot: false, overflow_sec: 0.4, borrowed_gap_sec: 0.4, issues: ['overflow'] });
    expect(by.get('b')).toMatchObject({ dub_start: null, ended_within_slot: true, overflow_sec: 0, issues: ['fast_speech', 'missing_speech'] });
    expect(by.get('c')).toMatchObject({ drift_sec: 0.5 });
    expect(by.get('c')!.issues).toEqual(expect.arrayContaining(['drift', 'overlap']));
    expect(by.get('c')!.overlap_sec).toBeCloseTo(0.5, 2);
    expect(r.max_drift_sec).toBe(0.5);
    expect(r.attention.map((a) => `${a.segment_id}:${a.kind}`)).toEqual([
      'a:overflow', 'b:fast_speech', 'b:missing_speech', 'c:overlap', 'c:drift', 'd:overlap',
    ]);
    expect(r.attention.every((a) => a.reason.length > 10 && a.action.length > 10)).toBe(true);
    // Slots: 1-2, 3-4, 5-7 (4 s); voice heard in 1-2 and 5.5-7 (2.5 s).
    expect(r.speech_coverage).toBeCloseTo(0.625, 2);
    expect(r).toMatchObject({ loudness_lufs: -16, source_loudness_lufs: -23.2, background_kept: true, background_level_db: -40, source_background_level_db: -40 });
  });

  it('a background muted in the output is reported as not kept', () => {
    const r = analyseQuality({
      projectId: 'p', generation: 1, duration: 6, segments: [seg('a', 1, 2)], glossary: [],
      voice: env(6, [[1, 2]]), output: env(6, [[1, 2]], 0.2, 0.0005), source: env(6, [[1, 2]], 0.2, 0.05),
      loudnessLufs: -16, sourceLoudnessLufs: -20,
    });
    expect(r.background_kept).toBe(false);
    expect(r.source_background_level_db).toBeCloseTo(-26, 0);
  });

  it('reports the glossary terms expected and found, and the ASR confidence of the source words', () => {
    const r = analyseQuality({
      projectId: 'p', generation: 1, duration: 4,
      segments: [seg('a', 0.5, 2, { src: 'Welcome to Acme Cloud, the best cloud.', dst: 'Bienvenidos a la nube de Acme.', words: [{ text: 'x', start: 0, end: 1, confidence: 0.4 }, { text: 'y', start: 1, end: 2, confidence: 0.6 }] })],
      glossary: [{ source: 'Acme Cloud', target: 'Acme Cloud' }, { source: 'cloud', target: 'nube' }, { source: 'missing', target: 'nada' }],
      voice: env(4, [[0.5, 2]]), output: null, source: null, loudnessLufs: null, sourceLoudnessLufs: null,
    });
    expect(r.segments[0]).toMatchObject({ glossary_expected: ['Acme Cloud', 'nube'], glossary_found: ['nube'], asr_confidence: 0.5 });
    expect(r.segments[0]!.issues).toEqual(['glossary', 'low_asr_confidence']);
    expect(matchGlossary('the cloudy day', 'x', [{ source: 'cloud', target: 'nube' }]).expected).toEqual([]);
  });

  it('exports CSV with the project figures and one line per segment; text cells cannot run as formulas', () => {
    const r = analyseQuality({
      projectId: 'p', generation: 1, duration: 4, segments: [seg('a', 0.5, 2, { speaker: '=HYPERLINK("x")' })], glossary: [],
      voice: env(4, [[0.5, 2]]), output: null, source: null, loudnessLufs: -16, sourceLoudnessLufs: null,
    });
    const lines = qualityCsv(r).split('\r\n');
    expect(lines[0]).toMatch(/^project_id,generation,created_at,stale,duration,max_drift_sec,loudness_lufs,/);
    expect(lines[1]).toMatch(/^p,1,/);
    expect(lines[2]).toBe('');
    expect(lines[3]).toBe('id,start,end,speaker,speed_factor,dub_start,dub_end,ended_within_slot,overflow_sec,borrowed_gap_sec,overlap_sec,drift_sec,glossary_expected,glossary_found,asr_confidence,speech_under_dub_db,background_dip_db,issues,doubtful_words');
    expect(lines[4]).toBe(`a,0.5,2,"'=HYPERLINK(""x"")",1,0.5,2,true,0,0,0,0,,,,,,,0`);
  });
});

describe('measureQuality (real files, ffmpeg)', () => {
  it('measures loudness (EBU R128) and where the voice is heard in the output files', async () => {
    const dir = tempDir('quality-');
    const voice = join(dir, 'voice.m4a');
    const output = join(dir, 'output.m4a');
    const source16k = join(dir, 'source.wav');
    const tone = 'if(between(t\\,1\\,2.4)\\,0.3*sin(2*PI*440*t)\\,0)';
    await synthAudio(voice, { seconds: 5, source: `aevalsrc=${tone}:s=48000:d=5` });
    await synthAudio(output, { seconds: 5, source: `aevalsrc=${tone}+0.02*sin(2*PI*90*t):s=48000:d=5` });
    await synthAudio(source16k, { seconds: 5, source: `aevalsrc=0.02*sin(2*PI*90*t)+if(between(t\\,1\\,2)\\,0.3*sin(2*PI*300*t)\\,0):s=16000:d=5`, sampleRate: 16000 });
    const r = await measureQuality(
      { voice, output, source16k, sourceFull: source16k, tmp: dir },
      { projectId: 'p', generation: 1, duration: 5, segments: [seg('a', 1, 2)], glossary: [] },
    );
    v.parse(QualityReport, r);
    expect(r.segments[0]!.dub_start).toBeCloseTo(1, 1);
    expect(r.segments[0]!.dub_end).toBeCloseTo(2.4, 1);
    expect(r.segments[0]!.overflow_sec).toBeCloseTo(0.4, 1);
    expect(r.loudness_lufs).toBeGreaterThan(-30);
    expect(r.loudness_lufs).toBeLessThan(-5);
    expect(r.source_loudness_lufs).toBeLessThan(r.loudness_lufs! + 5);
    expect(r.background_kept).toBe(true);
    expect(r.background_level_db).toBeCloseTo(r.source_background_level_db!, -1);
  }, 180_000);
});

describe('GET /api/project/{id}/quality', () => {
  let h: Harness;
  let u: TestUser;
  let id: string;
  beforeAll(async () => {
    h = await createHarness();
    u = await newUser(h, 'q');
    const mediaId = await uploadOk(h, u, await makeSilentVideo({ seconds: 1 }));
    id = await seedProject(h, u, { mediaId, status: 'merging_done', name: 'Talk' });
  }, 240_000);
  afterAll(async () => {
    await h?.close();
  });
  const quality = (token = u.token, format?: string) =>
    typedClient(h, token).GET('/api/project/{id}/quality', { params: { path: { id }, ...(format ? { query: { format } } : {}) } });

  it('answers 404 with a reason before the first generate', async () => {
    const r = await quality();
    expect(r.response.status).toBe(404);
    expect(r.error!.detail).toBe('No quality report yet: it is made when the dubbed video is generated');
  });

  it('returns the report (stale once the project changed) and its CSV; refuses an unknown format', async () => {
    const gen = (await h.deps.db.one<{ generation: number }>('SELECT generation FROM projects WHERE id = $1', [id])).generation;
    const report = analyseQuality({
      projectId: id, generation: gen, duration: 10, segments: [seg('a', 0.5, 2.5)], glossary: [],
      voice: env(10, [[0.5, 2]]), output: null, source: null, loudnessLufs: -16, sourceLoudnessLufs: -21,
    });
    await h.deps.storage.putBuffer(qualityKey(id), JSON.stringify(report));
    const r = await quality();
    expect(r.response.status).toBe(200);
    expect(v.parse(QualityReport, r.data)).toMatchObject({ stale: false, loudness_lufs: -16, source_loudness_lufs: -21, generation: gen });
    const csv = await h.request('GET', `/api/project/${id}/quality?format=csv`, { token: u.token });
    expect(csv.status).toBe(200);
    expect(csv.headers.get('content-type')).toBe('text/csv; charset=utf-8');
    expect(csv.headers.get('content-disposition')).toBe('attachment; filename="Talk_es_quality.csv"');
    expect((await csv.text()).split('\r\n')[4]).toMatch(/^a,0.5,2.5,SPEAKER_0,/);
    expect((await quality(u.token, 'xls')).response.status).toBe(422);
    await h.deps.db.query('UPDATE projects SET generation = generation + 1 WHERE id = $1', [id]);
    expect((await quality()).data!.stale).toBe(true);
    const stranger = await newUser(h, 'other');
    expect((await quality(stranger.token)).response.status).toBe(403);
  });
});
