// The editor's full transcript read is kept serialized per version (server/domains/projects/transcript/cache.ts) with an
// ETag: a client that has the version gets a 304, and every kind of change gives the next read the new transcript:
// edits over the API, writes to the segments by anything else (the pipeline, SQL: a database trigger moves the
// revision), the dictionary's terms and the project's dictionary. Access is checked before any cached answer.
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeSpeechVideo } from '../../../fixtures/media';
import { insertGlossary, updateGlossary } from '../../../../server/domains/glossaries/repository';
import { updateProjectFields } from '../../../../server/domains/projects/repository';
import { createHarness, type Harness } from '../../harness';
import { typedClient } from '../../typed-client';
import { newUser, seedProject, uploadOk, type TestUser } from '../projects-fixtures';

let h: Harness;
let u: TestUser;
let other: TestUser;
let mediaId: string;

beforeAll(async () => {
  h = await createHarness();
  u = await newUser(h, 'cache');
  other = await newUser(h, 'stranger');
  mediaId = await uploadOk(h, u, await makeSpeechVideo({ seconds: 4 }));
}, 120_000);
afterAll(async () => {
  await h?.close();
});

const path = (id: string) => `/api/project/${id}/transcript`;
const at = (id: string) => ({ params: { path: { id } } });
const read = (id: string, etag?: string, token: string | null = u.token) =>
  typedClient(h, token).GET('/api/project/{id}/transcript', { ...at(id), headers: etag ? { 'if-none-match': etag } : {} });
const texts = (r: Awaited<ReturnType<typeof read>>) => r.data!.segments.map((s) => s.dst.text);

describe('the cached transcript read', () => {
  it('answers 304 to the version the client has, and the new transcript after an edit over the API', async () => {
    const id = await seedProject(h, u, { mediaId });
    const first = await read(id);
    expect(first.response.status).toBe(200);
    expect(first.response.headers.get('content-type')).toMatch(/application\/json/);
    expect(first.response.headers.get('cache-control')).toBe('private, no-cache');
    const etag = first.response.headers.get('etag')!;
    expect(etag).toMatch(/^W\/"t-[\w-]+"$/);
    expect(texts(first)).toEqual(['Hola.', '¿Cómo estás?', 'Bien.']);

    const again = await read(id, etag);
    expect(again.response.status).toBe(304);
    // No body: openapi-fetch reads the empty body of a non-2xx answer as ''.
    expect(again.data).toBeUndefined();
    expect(again.error).toBe('');
    expect(again.response.headers.get('etag')).toBe(etag);
    // The same version without If-None-Match: the same body.
    const same = await read(id);
    expect(same.response.status).toBe(200);
    expect(same.data).toEqual(first.data);
    expect(same.response.headers.get('etag')).toBe(etag);

    const segId = first.data!.segments[1]!.id;
    const p = await typedClient(h, u.token).PATCH('/api/project/{id}/transcript', { ...at(id), body: { segments: [{ id: segId, dst: { text: '¿Qué tal?' } }] } });
    expect(p.response.status, JSON.stringify(p.error)).toBe(200);
    const after = await read(id, etag);
    expect(after.response.status).toBe(200);
    expect(texts(after)).toEqual(['Hola.', '¿Qué tal?', 'Bien.']);
    expect(after.response.headers.get('etag')).not.toBe(etag);

    const del = await typedClient(h, u.token).DELETE('/api/project/{id}/transcript/{segmentId}', { params: { path: { id, segmentId: segId } } });
    expect(del.response.status).toBe(200);
    expect(texts(await read(id, after.response.headers.get('etag')!))).toEqual(['Hola.', 'Bien.']);
  });

  it('sends the kept answer compressed to clients that accept it, with one ETag for every form', async () => {
    const id = await seedProject(h, u, { mediaId });
    await h.deps.db.query(`UPDATE segments SET dst_text = repeat('Una frase bastante larga. ', 20) WHERE project_id = $1`, [id]);
    const plain = await h.request('GET', path(id), { token: u.token });
    const json = await plain.text();
    expect(plain.headers.get('content-encoding')).toBeNull();
    expect(plain.headers.get('vary')).toBe('Accept-Encoding');
    const etag = plain.headers.get('etag')!;
    const forms = [
      { accept: 'gzip, deflate, br, zstd', encoding: 'br', decode: brotliDecompressSync },
      { accept: 'br;q=0, gzip', encoding: 'gzip', decode: gunzipSync },
      { accept: '*', encoding: 'br', decode: brotliDecompressSync },
    ];
    for (const f of forms) {
      for (const round of [1, 2]) {
        // The second read answers the compressed form made by the first.
        const r = await h.request('GET', path(id), { token: u.token, headers: { 'accept-encoding': f.accept } });
        expect(r.status).toBe(200);
        expect(r.headers.get('content-encoding'), `${f.accept} (read ${round})`).toBe(f.encoding);
        expect(r.headers.get('etag')).toBe(etag);
        const bytes = Buffer.from(await r.arrayBuffer());
        expect(bytes.length).toBeLessThan(json.length / 3);
        expect(f.decode(bytes).toString('utf8')).toBe(json);
      }
    }
    for (const accept of ['identity', 'gzip;q=0, br;q=0', '*;q=0']) {
      const r = await h.request('GET', path(id), { token: u.token, headers: { 'accept-encoding': accept } });
      expect(r.headers.get('content-encoding'), accept).toBeNull();
      expect(await r.text()).toBe(json);
    }
    // The strong form of the same ETag (a client that dropped W/) is the same version.
    const strong = await read(id, etag.replace(/^W\//, ''));
    expect(strong.response.status).toBe(304);
  });

  it('sees writes made outside the API (a pipeline stage, SQL) through the revision trigger', async () => {
    const id = await seedProject(h, u, { mediaId });
    const first = await read(id);
    await h.deps.db.query(`UPDATE segments SET dst_text = 'Hola de nuevo.' WHERE project_id = $1 AND start_sec < 1`, [id]);
    const second = await read(id, first.response.headers.get('etag')!);
    expect(second.response.status).toBe(200);
    expect(texts(second)).toEqual(['Hola de nuevo.', '¿Cómo estás?', 'Bien.']);
    await h.deps.db.query(`DELETE FROM segments WHERE project_id = $1 AND start_sec > 5`, [id]);
    expect(texts(await read(id))).toEqual(['Hola de nuevo.', '¿Cómo estás?']);
    await h.deps.db.query(
      `INSERT INTO segments (project_id, start_sec, end_sec, speaker, src_text, dst_text, status) VALUES ($1, 8, 9, 'SPEAKER_0', 'Bye.', 'Adiós.', 'done')`,
      [id],
    );
    expect(texts(await read(id))).toEqual(['Hola de nuevo.', '¿Cómo estás?', 'Adiós.']);
    // A write to another project leaves this one's version alone.
    const etag = (await read(id)).response.headers.get('etag')!;
    const otherId = await seedProject(h, u, { mediaId });
    await h.deps.db.query(`UPDATE segments SET dst_text = 'x' WHERE project_id = $1`, [otherId]);
    expect((await read(id, etag)).response.status).toBe(304);
  });

  it('follows the dictionary: its terms and the project choosing another one', async () => {
    const id = await seedProject(h, u, { mediaId });
    const g = await insertGlossary(h.deps.db, { spaceId: u.defaultSpaceId, userId: u.id, name: 'Terms', src: 'en', dst: 'es', entries: [] });
    const plain = await read(id);
    expect(plain.data!.segments[0]!.terms).toBeUndefined();
    await updateProjectFields(h.deps.db, id, { glossary_id: g.id });
    const chosen = await read(id, plain.response.headers.get('etag')!);
    expect(chosen.response.status).toBe(200);
    expect(chosen.data!.segments[0]!.terms).toEqual({ expected: [], missing: [] });
    await updateGlossary(h.deps.db, g.id, { entries: [{ source: 'there', target: 'allí', do_not_translate: false, case_sensitive: false, pronunciation: null }] });
    const termed = await read(id, chosen.response.headers.get('etag')!);
    expect(termed.response.status).toBe(200);
    const term = { source: 'there', target: 'allí' };
    expect(termed.data!.segments[0]!.terms).toEqual({ expected: [term], missing: [term] });
  });

  it('checks access before answering from the cache, and forgets a deleted project', async () => {
    const id = await seedProject(h, u, { mediaId });
    const mine = await read(id);
    const etag = mine.response.headers.get('etag')!;
    const theirs = await read(id, etag, other.token);
    expect([403, 404]).toContain(theirs.response.status);
    expect(theirs.data).toBeUndefined();
    expect(JSON.stringify(theirs.error)).not.toContain('Hola');
    expect((await read(id, etag, null)).response.status).toBe(401);

    expect((await h.deps.db.query(`SELECT 1 FROM transcript_revs WHERE project_id = $1`, [id])).length).toBe(1);
    expect((await typedClient(h, u.token).DELETE('/api/project/{id}', at(id))).response.status).toBe(200);
    expect((await read(id, etag)).response.status).toBe(404);
    expect(await h.deps.db.query(`SELECT 1 FROM transcript_revs WHERE project_id = $1`, [id])).toEqual([]);
  });
});
