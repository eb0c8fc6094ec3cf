// All languages of a video in one deliverable (issue 31): MP4 and MKV probed with ffprobe (one audio track per
// finished language plus the original, ISO 639-2 tags, titles, the default track, equal durations, the video
// copied, a subtitle track per language), the HLS package's master playlist and files, the default chosen by
// query, a clear 409 without any finished language, and another Teamspace's user refused.
import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { insertProject } from '../../../server/domains/projects/repository';
import { projectKey } from '../../../server/storage/index';
import { tempDir } from '../../fixtures/media';
import { createHarness, type Harness } from '../harness';
import { newUser, type TestUser } from '../projects/projects-fixtures';
import { typedClient } from '../typed-client';

let h: Harness;
let alice: TestUser;
let tom: TestUser;
let dir: string;
let rootId: string;
let frId: string;
let lonelyId: string;
const SECONDS = 6;

function ff(args: string[]): void {
  execFileSync('ffmpeg', ['-nostdin', '-loglevel', 'error', '-y', ...args]);
}

interface Stream {
  index: number; codec_type: string; codec_name: string; duration?: string;
  tags?: Record<string, string>; disposition?: Record<string, number>;
}
function ffprobe(path: string): { streams: Stream[]; format: { duration: string } } {
  return JSON.parse(execFileSync('ffprobe', ['-v', 'error', '-show_streams', '-show_format', '-of', 'json', path], { encoding: 'utf8' }));
}
/** A stream's duration: its own (MP4) or the Matroska DURATION tag. */
function durationOf(s: Stream): number {
  if (s.duration) return Number(s.duration);
  const t = s.tags?.DURATION ?? s.tags?.duration;
  const m = /^(\d+):(\d+):([\d.]+)$/.exec(t ?? '');
  if (!m) throw new Error(`no duration on stream ${s.index}`);
  return Number(m[1]) * 3600 + Number(m[2]) * 60 + Number(m[3]);
}

async function seed(u: TestUser, o: { dstLang: string; copiedFrom?: string; status: string; dubbed: boolean; name?: string }): Promise<string> {
  const db = h.deps.db;
  const row = await insertProject(db, {
    spaceId: u.defaultSpaceId, userId: u.id, name: o.name ?? `Clip (${o.dstLang})`, srcLang: 'en', dstLang: o.dstLang, mediaId: null, link: null,
    numSpeakers: null, srcSrtMediaId: null, dstSrtMediaId: null, glossaryId: null, ttsProvider: 'espeak-ng', copiedFrom: o.copiedFrom ?? null,
    status: o.status as never, progress: 100,
  });
  const s = h.deps.storage!;
  await s.putFile(projectKey(row.id, 'source.mp4'), join(dir, 'src.mp4'));
  const fields: Record<string, string> = { original_video: projectKey(row.id, 'source.mp4') };
  if (o.dubbed) {
    await s.putFile(projectKey(row.id, 'translated_audio.m4a'), join(dir, `${o.dstLang}.m4a`));
    await s.putFile(projectKey(row.id, 'subtitles.srt'), join(dir, `${o.dstLang}.srt`));
    fields.translated_audio = projectKey(row.id, 'translated_audio.m4a');
    fields.translation_srt_path = projectKey(row.id, 'subtitles.srt');
  }
  const keys = Object.keys(fields);
  await db.query(`UPDATE projects SET duration = ${SECONDS}, ${keys.map((k, i) => `${k} = $${i + 2}`).join(', ')} WHERE id = $1`, [row.id, ...keys.map((k) => fields[k])]);
  return row.id;
}

beforeAll(async () => {
  dir = tempDir('deliver-');
  ff(['-f', 'lavfi', '-i', `testsrc=size=320x240:rate=25:duration=${SECONDS}`, '-f', 'lavfi', '-i', `sine=f=440:duration=${SECONDS}`,
    '-c:v', 'libx264', '-preset', 'ultrafast', '-g', '25', '-pix_fmt', 'yuv420p', '-c:a', 'aac', '-shortest', join(dir, 'src.mp4')]);
  for (const [lang, f] of [['es', 550], ['fr', 660], ['de', 770]] as const) {
    ff(['-f', 'lavfi', '-i', `sine=f=${f}:duration=${SECONDS}`, '-c:a', 'aac', join(dir, `${lang}.m4a`)]);
    writeFileSync(join(dir, `${lang}.srt`), `1\n00:00:00,500 --> 00:00:02,000\nLine one ${lang}\n\n2\n00:00:03,000 --> 00:00:05,000\nLine two ${lang}\n`);
  }
  h = await createHarness();
  alice = await newUser(h, 'alice');
  tom = await newUser(h, 'tom');
  rootId = await seed(alice, { dstLang: 'es', status: 'merging_done', dubbed: true, name: 'Clip' });
  frId = await seed(alice, { dstLang: 'fr', copiedFrom: rootId, status: 'merging_done', dubbed: true });
  // German is still being made: it stays out.
  await seed(alice, { dstLang: 'de', copiedFrom: rootId, status: 'translation_done', dubbed: false });
  lonelyId = await seed(alice, { dstLang: 'it', status: 'translation_done', dubbed: false, name: 'Not dubbed' });
}, 120_000);
afterAll(async () => {
  await h?.close();
});

/** POST /api/project/{id}/deliverables as `u` (anonymous with null). */
const deliver = (u: TestUser | null, id: string, query: { format?: string; default?: string }) =>
  typedClient(h, u?.token).POST('/api/project/{id}/deliverables', { params: { path: { id }, query } });
const languagesOf = (u: TestUser, id: string) => typedClient(h, u.token).GET('/api/project/{id}/deliverables', { params: { path: { id } } });

async function download(url: string, ext: string): Promise<string> {
  const r = await h.request('GET', new URL(url, 'http://x').pathname);
  expect(r.status).toBe(200);
  const out = join(dir, `out-${Math.random().toString(36).slice(2)}.${ext}`);
  writeFileSync(out, Buffer.from(await r.arrayBuffer()));
  return out;
}

describe('all languages in one file', () => {
  for (const format of ['mp4', 'mkv'] as const) {
    it(`${format}: original + each finished language, tagged, default original, video copied`, async () => {
      const r = await deliver(alice, rootId, { format });
      expect(r.response.status, JSON.stringify(r.error)).toBe(200);
      expect(r.data!.languages.map((l) => l.code)).toEqual(['eng', 'spa', 'fra']);
      const file = await download(r.data!.url, format);
      const p = ffprobe(file);
      const video = p.streams.filter((s) => s.codec_type === 'video');
      const audio = p.streams.filter((s) => s.codec_type === 'audio');
      const subs = p.streams.filter((s) => s.codec_type === 'subtitle');
      expect(video).toHaveLength(1);
      expect(video[0]!.codec_name).toBe('h264');
      expect(audio.map((s) => s.tags?.language)).toEqual(['eng', 'spa', 'fra']);
      const titles = audio.map((s) => (format === 'mp4' ? s.tags?.handler_name : s.tags?.title));
      expect(titles).toEqual(['English (original)', 'Spanish', 'French']);
      expect(audio.map((s) => s.disposition?.default)).toEqual([1, 0, 0]);
      expect(subs.map((s) => s.codec_name)).toEqual(format === 'mp4' ? ['mov_text', 'mov_text'] : ['subrip', 'subrip']);
      expect(subs.map((s) => s.tags?.language)).toEqual(['spa', 'fra']);
      for (const s of [...video, ...audio]) expect(Math.abs(durationOf(s) - SECONDS)).toBeLessThan(0.1);
      // Stream copy: the video packets are the source's, byte for byte.
      const md5 = (f: string) => execFileSync('ffmpeg', ['-nostdin', '-loglevel', 'error', '-i', f, '-map', '0:v:0', '-c', 'copy', '-f', 'md5', '-'], { encoding: 'utf8' });
      expect(md5(file)).toBe(md5(join(dir, 'src.mp4')));
    }, 60_000);
  }

  it('another language is the default when asked, from any language project of the video', async () => {
    const r = await deliver(alice, frId, { format: 'mkv', default: 'fr' });
    expect(r.response.status, JSON.stringify(r.error)).toBe(200);
    const audio = ffprobe(await download(r.data!.url, 'mkv')).streams.filter((s) => s.codec_type === 'audio');
    expect(audio.map((s) => s.disposition?.default)).toEqual([0, 0, 1]);
    const bad = await deliver(alice, rootId, { format: 'mkv', default: 'de' });
    expect(bad.response.status).toBe(422);
  }, 60_000);

  it('HLS: master with an audio and a subtitle rendition per language, served by the signed link', async () => {
    const r = await deliver(alice, rootId, { format: 'hls' });
    expect(r.response.status, JSON.stringify(r.error)).toBe(200);
    const url = new URL(r.data!.url, 'http://x').pathname;
    const master = await (await h.request('GET', url, { token: null })).text();
    const audio = master.split('\n').filter((l) => l.startsWith('#EXT-X-MEDIA:TYPE=AUDIO'));
    expect(audio.map((l) => /LANGUAGE="([^"]+)"/.exec(l)?.[1])).toEqual(['en', 'es', 'fr']);
    expect(audio.map((l) => /NAME="([^"]+)"/.exec(l)?.[1])).toEqual(['English (original)', 'Spanish', 'French']);
    expect(audio.map((l) => /DEFAULT=(\w+)/.exec(l)?.[1])).toEqual(['YES', 'NO', 'NO']);
    const subs = master.split('\n').filter((l) => l.startsWith('#EXT-X-MEDIA:TYPE=SUBTITLES'));
    expect(subs.map((l) => /LANGUAGE="([^"]+)"/.exec(l)?.[1])).toEqual(['es', 'fr']);
    expect(master).toMatch(/#EXT-X-STREAM-INF:.*AUDIO="aud",SUBTITLES="subs"\nv\.m3u8/);
    const base = url.replace(/master\.m3u8$/, '');
    const vtt = await h.request('GET', `${base}s1_0.vtt`, { token: null });
    expect(vtt.headers.get('content-type')).toContain('text/vtt');
    expect(await vtt.text()).toContain('Line one es');
    const videoList = await (await h.request('GET', `${base}v.m3u8`, { token: null })).text();
    const seg = videoList.split('\n').find((l) => l.endsWith('.ts'))!;
    const ts = await h.request('GET', `${base}${seg}`, { token: null });
    expect(ts.status).toBe(200);
    const segFile = join(dir, 'seg.ts');
    writeFileSync(segFile, Buffer.from(await ts.arrayBuffer()));
    expect(ffprobe(segFile).streams.map((s) => s.codec_name)).toEqual(['h264']);
    // Only the package's own files, behind a valid signature.
    expect((await h.request('GET', `${base}..%2Fsecret.m3u8`, { token: null })).status).toBe(404);
    expect((await h.request('GET', url.replace(/\/api\/deliverables\/hls\/(.)/, (_m, c: string) => `/api/deliverables/hls/${c === 'A' ? 'B' : 'A'}`), { token: null })).status).toBe(403);
  }, 60_000);

  it('409 with a clear message when no language is dubbed', async () => {
    const r = await deliver(alice, lonelyId, { format: 'mp4' });
    expect(r.response.status).toBe(409);
    expect(JSON.stringify(r.error)).toContain('No language of this video is dubbed yet');
    expect((await languagesOf(alice, lonelyId)).data!.languages).toEqual([]);
    const listed = await languagesOf(alice, frId);
    expect(listed.data!.languages.map((l) => l.lang)).toEqual(['en', 'es', 'fr']);
  });

  it("another Teamspace's user is refused, like the other downloads", async () => {
    const r = await deliver(tom, rootId, { format: 'mp4' });
    const ref = await typedClient(h, tom.token).POST('/api/project/{id}/media_download', { params: { path: { id: rootId } }, body: { media_type: 'video' } });
    expect(r.response.status).toBe(ref.response.status);
    expect((await languagesOf(tom, rootId)).response.status).toBe(ref.response.status);
    expect([403, 404]).toContain(r.response.status);
    expect((await deliver(null, rootId, { format: 'mp4' })).response.status).toBe(401);
    expect((await deliver(alice, rootId, { format: 'zip' })).response.status).toBe(422);
  });
});
