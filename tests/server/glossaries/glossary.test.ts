// The Dictionary over HTTP (/api/glossary): CRUD shared by a Teamspace, the Business gate, refused users (no
// access, another space, trial plan, no token), bad input (empty / 10,000-character term, duplicates, missing
// translation), CSV import (bad rows reported by line, good rows kept, wrong encoding refused) and export, and a
// dictionary of another space refused on a project.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { featureRefusalText } from '../../../contract/features';
import { makeSpeechVideo } from '../../fixtures/media';
import { createHarness, type Harness } from '../harness';
import { api, newUser, seedProject, uploadOk, type TestUser } from '../projects/projects-fixtures';
import { grantPlan } from '../spaces/spaces-fixtures';
import { issuesOf, typedClient } from '../typed-client';
import type { components } from '../../../src/lib/api/schema';
import { findProject } from '../../../server/domains/projects/repository';
import { translation } from '../../../server/domains/projects/stages/translation';

let h: Harness;
let owner: TestUser; // Business
let member: TestUser; // trial, editor in the owner's space
let outsider: TestUser; // Business, not a member
let trial: TestUser;

type CreateBody = components['schemas']['CreateGlossaryRequest'];
type EntryInput = NonNullable<CreateBody['entries']>[number];
type ImportResult = components['schemas']['GlossaryImportResult'];

const entry = (source: string, target: string, extra: Partial<EntryInput> = {}): EntryInput => ({ source, target, ...extra });
const as = (u: TestUser | null) => typedClient(h, u?.token);
/** GET /api/glossary of a space (the caller's own by default), filtered by languages when given. */
const listOf = (u: TestUser, spaceId = u.defaultSpaceId, langs: { source_lang?: string; target_lang?: string } = {}) =>
  as(u).GET('/api/glossary', { params: { query: { space_id: spaceId, ...langs } } });
const getOne = (u: TestUser, id: string) => as(u).GET('/api/glossary/{id}', { params: { path: { id } } });
const remove = (u: TestUser, id: string) => as(u).DELETE('/api/glossary', { params: { query: { glossary_id: id } } });
const useOn = (u: TestUser, project: string, glossaryId: string) =>
  as(u).PATCH('/api/project/{id}/glossary', { params: { path: { id: project }, query: { glossary_id: glossaryId } } });

async function create(u: TestUser, body: Partial<CreateBody>, spaceId = u.defaultSpaceId) {
  return as(u).POST('/api/glossary', { params: { query: { space_id: spaceId } }, body: { name: 'Brand', source_lang: 'en', target_lang: 'es', ...body } });
}
async function createOk(u: TestUser, body: Partial<CreateBody> = {}, spaceId = u.defaultSpaceId): Promise<string> {
  const r = await create(u, body, spaceId);
  expect(r.response.status, JSON.stringify(r.error)).toBe(201);
  return r.data!.id;
}
/** POST {id}/import: a raw body (a multipart form or a text/csv body), which the typed client does not send. */
async function importCsv(u: TestUser, id: string, bytes: Uint8Array | string, asFile = true): Promise<{ status: number; data?: ImportResult; error?: components['schemas']['Error'] }> {
  const data = new Uint8Array(typeof bytes === 'string' ? new TextEncoder().encode(bytes) : bytes) as Uint8Array<ArrayBuffer>;
  let body: BodyInit;
  const headers: Record<string, string> = { authorization: `Bearer ${u.token}` };
  if (asFile) {
    const form = new FormData();
    form.set('file', new Blob([data], { type: 'text/csv' }), 'terms.csv');
    body = form;
  } else {
    body = data;
    headers['content-type'] = 'text/csv';
  }
  const r = await h.app.request(`/api/glossary/${id}/import?space_id=${owner.defaultSpaceId}`, { method: 'POST', headers, body });
  const text = await r.text();
  const json: unknown = text ? JSON.parse(text) : null;
  return r.ok ? { status: r.status, data: json as ImportResult } : { status: r.status, error: json as components['schemas']['Error'] };
}

beforeAll(async () => {
  h = await createHarness();
  owner = await newUser(h, 'owner');
  await grantPlan(h, owner.id, 'business');
  member = await newUser(h, 'member');
  await h.deps.db.query(`INSERT INTO space_members (space_id, user_id, role) VALUES ($1, $2, 'editor')`, [owner.defaultSpaceId, member.id]);
  outsider = await newUser(h, 'outsider');
  await grantPlan(h, outsider.id, 'business');
  trial = await newUser(h, 'trial');
}, 240_000);
afterAll(async () => {
  await h?.close();
});

describe('Dictionary CRUD', () => {
  it('creates, lists (filtered by languages), reads, edits and deletes a dictionary', async () => {
    const r = await create(owner, {
      name: 'Product names',
      entries: [entry('Acme Cloud', '', { do_not_translate: true }), entry('dashboard', 'panel', { pronunciation: 'pa-NEL' }), entry('iOS', 'iOS', { case_sensitive: true })],
    });
    expect(r.response.status, JSON.stringify(r.error)).toBe(201);
    expect(r.data).toMatchObject({ name: 'Product names', source_lang: 'en', target_lang: 'es', space_id: owner.defaultSpaceId, entries_count: 3 });
    expect(r.data!.glossary_id).toBe(r.data!.id);
    expect(r.data!.entries![1]).toEqual({ source: 'dashboard', target: 'panel', do_not_translate: false, case_sensitive: false, pronunciation: 'pa-NEL' });
    const id = r.data!.id;
    const other = await createOk(owner, { name: 'French', target_lang: 'fr' });

    const all = await listOf(owner);
    expect(all.response.status).toBe(200);
    expect(all.data!.map((g) => g.id)).toEqual([other, id]); // newest first
    expect(all.data![0]!.entries).toBeUndefined();
    const es = await listOf(owner, owner.defaultSpaceId, { source_lang: 'en', target_lang: 'es' });
    expect(es.data!.map((g) => g.id)).toEqual([id]);
    // A regional code finds the dictionary of its base language.
    const esMx = await listOf(owner, owner.defaultSpaceId, { source_lang: 'en-us', target_lang: 'es-mx' });
    expect(esMx.data!.map((g) => g.id)).toEqual([id]);

    const one = await getOne(owner, id);
    expect(one.response.status).toBe(200);
    expect(one.data!.entries).toHaveLength(3);

    const p = await as(owner).PATCH('/api/glossary/{id}', { params: { path: { id } }, body: { name: 'Renamed', entries: [entry('checkout', 'pago')] } });
    expect(p.response.status, JSON.stringify(p.error)).toBe(200);
    expect(p.data).toMatchObject({ name: 'Renamed', entries_count: 1, entries: [{ source: 'checkout', target: 'pago' }] });

    const d = await remove(owner, id);
    expect(d.response.status).toBe(200);
    expect(d.data).toEqual({ glossary_id: id, status: 'deleted' });
    expect((await getOne(owner, id)).response.status).toBe(404);
  });

  it('is shared by the Teamspace: a member (trial plan of their own) reads and edits it under the Business owner', async () => {
    const id = await createOk(owner, { name: 'Shared', entries: [entry('cart', 'carrito')] });
    const list = await listOf(member, owner.defaultSpaceId);
    expect(list.response.status, JSON.stringify(list.error)).toBe(200);
    expect(list.data!.map((g) => g.id)).toContain(id);
    // PATCH and GET {id} take no space_id: the member's call runs under the dictionary's space (the owner's plan).
    const p = await as(member).PATCH('/api/glossary/{id}', {
      params: { path: { id } }, body: { entries: [entry('cart', 'carrito'), entry('wishlist', 'lista de deseos')] },
    });
    expect(p.response.status, JSON.stringify(p.error)).toBe(200);
    expect(p.data!.entries_count).toBe(2);
    const g = await getOne(member, id);
    expect(g.response.status).toBe(200);
  });

  it('refuses users without access: another space, no token, and a trial plan (403 feature refusal)', async () => {
    const id = await createOk(owner, { name: 'Private' });
    const space = owner.defaultSpaceId;
    const calls: Array<[string, (u: TestUser | null) => Promise<{ response: Response; error?: components['schemas']['Error'] }>]> = [
      ['GET {id}', (u) => as(u).GET('/api/glossary/{id}', { params: { path: { id } } })],
      ['PATCH {id}', (u) => as(u).PATCH('/api/glossary/{id}', { params: { path: { id } }, body: { name: 'Taken' } })],
      ['DELETE', (u) => as(u).DELETE('/api/glossary', { params: { query: { glossary_id: id } } })],
      ['GET {id}/export', (u) => as(u).GET('/api/glossary/{id}/export', { params: { path: { id } } })],
      ['GET list', (u) => as(u).GET('/api/glossary', { params: { query: { space_id: space } } })],
      ['POST', (u) => as(u).POST('/api/glossary', { params: { query: { space_id: space } }, body: { name: 'Intruder', source_lang: 'en', target_lang: 'es' } })],
    ];
    for (const [what, call] of calls) {
      const r = await call(outsider);
      expect(r.response.status, what).toBe(403);
      expect(r.error!.detail).toBe('You have no access to this resource');
      const anon = await call(null);
      expect(anon.response.status, what).toBe(401);
    }
    expect((await getOne(owner, id)).data!.name).toBe('Private');
    const r = await create(trial, { name: 'Mine' });
    expect(r.response.status).toBe(403);
    expect(r.error).toMatchObject({ detail: featureRefusalText('glossary'), feature: 'glossary', required_plan: 'business' });
    const l = await listOf(trial);
    expect(l.response.status).toBe(403);
  });

  it('an unknown or malformed id is 404', async () => {
    expect((await getOne(owner, '00000000-0000-4000-8000-000000000000')).response.status).toBe(404);
    const bad = await as(owner).PATCH('/api/glossary/{id}', { params: { path: { id: 'nope' } }, body: { name: 'x' } });
    expect(bad.response.status).toBe(404);
    expect(bad.error!.detail).toBe('Dictionary not found');
  });
});

describe('Dictionary bad input', () => {
  it('refuses an empty term, a 10,000-character term, a missing translation and duplicate terms, naming the entry', async () => {
    const cases: Array<[EntryInput[], (string | number)[], RegExp]> = [
      [[entry('', 'x')], ['body', 'entries', 0, 'source'], /term is empty/],
      [[entry('   ', 'x')], ['body', 'entries', 0, 'source'], /term is empty/],
      [[entry('ok', 'bien'), entry('x'.repeat(10_000), 'y')], ['body', 'entries', 1, 'source'], /too long/],
      [[entry('ok', 'y'.repeat(10_000))], ['body', 'entries', 0, 'target'], /too long/],
      [[entry('ok', '')], ['body', 'entries', 0, 'target'], /translation of "ok" is empty/],
      [[entry('Cart', 'carrito'), entry('cart', 'cesta')], ['body', 'entries', 1, 'source'], /already in the dictionary/],
      [[entry('line\nbreak', 'x')], ['body', 'entries', 0, 'source'], /one line/],
    ];
    for (const [entries, loc, msg] of cases) {
      const r = await create(owner, { entries });
      expect(r.response.status, JSON.stringify(entries).slice(0, 80)).toBe(422);
      expect(issuesOf(r.error)[0]!.loc).toEqual(loc);
      expect(issuesOf(r.error)[0]!.msg).toMatch(msg);
    }
    // Case-sensitive terms spelled differently are two terms.
    const ok = await create(owner, { entries: [entry('Apple', 'Apple', { case_sensitive: true }), entry('apple', 'manzana', { case_sensitive: true })] });
    expect(ok.response.status, JSON.stringify(ok.error)).toBe(201);
  });

  it('refuses a missing name, equal languages and a malformed language', async () => {
    expect((await create(owner, { name: '' })).response.status).toBe(422);
    const same = await create(owner, { target_lang: 'en' });
    expect(same.response.status).toBe(422);
    expect(issuesOf(same.error)[0]!.msg).toBe('The source and target languages must differ');
    expect((await create(owner, { source_lang: 'english!' })).response.status).toBe(422);
    // Untyped: the required space_id left out on purpose.
    const noSpace = await api(h, 'POST', '/api/glossary', { token: owner.token, body: { name: 'x', source_lang: 'en', target_lang: 'es' } });
    expect(noSpace.status).toBe(422);
  });
});

describe('CSV import and export', () => {
  it('keeps the good rows, reports each bad row by its line, and updates terms already there', async () => {
    const id = await createOk(owner, { name: 'Import', entries: [entry('cart', 'cesta')] });
    const csv = [
      'source,target,do_not_translate,case_sensitive,pronunciation',
      'Cart,carrito,false,false,',
      ',vacío,,,',
      'Acme,,true,,',
      'checkout,,,,',
      `${'x'.repeat(10_000)},y,,,`,
      'total,"total, con IVA",no,yes,',
      'Total,suma,,,',
      'dashboard,panel,maybe,,',
      '',
    ].join('\r\n');
    const r = await importCsv(owner, id, csv);
    expect(r.status, JSON.stringify(r.error)).toBe(200);
    expect(r.data!.added).toBe(2); // Acme, total
    expect(r.data!.updated).toBe(1); // cart -> carrito
    expect(r.data!.errors.map((e) => e.line)).toEqual([3, 5, 6, 8, 9]);
    expect(r.data!.errors[0]!.msg).toMatch(/term is empty/);
    expect(r.data!.errors[1]!.msg).toMatch(/translation of "checkout" is empty/);
    expect(r.data!.errors[2]!.msg).toMatch(/too long/);
    expect(r.data!.errors[3]!.msg).toMatch(/appears earlier in the file/);
    expect(r.data!.errors[4]!.msg).toMatch(/do_not_translate must be true or false/);
    const g = await getOne(owner, id);
    expect(g.data!.entries).toEqual([
      { source: 'Cart', target: 'carrito', do_not_translate: false, case_sensitive: false, pronunciation: null },
      { source: 'Acme', target: '', do_not_translate: true, case_sensitive: false, pronunciation: null },
      { source: 'total', target: 'total, con IVA', do_not_translate: false, case_sensitive: true, pronunciation: null },
    ]);
  });

  it('reads a file without a header row, a UTF-8 BOM and a UTF-16 file, as a form field or a text/csv body', async () => {
    const id = await createOk(owner, { name: 'Encodings' });
    const a = await importCsv(owner, id, '\uFEFFcafé,café\nniño,niño\n', false);
    expect(a.status, JSON.stringify(a.error)).toBe(200);
    expect(a.data!.added).toBe(2);
    const text = '\uFEFFsource,target\nmañana,tomorrow\n';
    const utf16 = new Uint8Array(text.length * 2);
    for (let i = 0; i < text.length; i++) {
      utf16[i * 2] = text.charCodeAt(i) & 0xff;
      utf16[i * 2 + 1] = text.charCodeAt(i) >> 8;
    }
    const b = await importCsv(owner, id, new Uint8Array([0xff, 0xfe, ...utf16.subarray(2)]));
    expect(b.status, JSON.stringify(b.error)).toBe(200);
    expect(b.data!.glossary.entries!.map((e) => e.source)).toEqual(['café', 'niño', 'mañana']);
  });

  it('refuses a file in the wrong encoding (Latin-1) and a binary file, with a clear error and no change', async () => {
    const id = await createOk(owner, { name: 'Latin', entries: [entry('one', 'uno')] });
    const latin1 = new Uint8Array([...new TextEncoder().encode('source,target\ncaf'), 0xe9, ...new TextEncoder().encode(',coffee\n')]);
    const r = await importCsv(owner, id, latin1);
    expect(r.status).toBe(415);
    expect(r.error!.detail).toBe('The file is not UTF-8 text. Save it as "CSV UTF-8 (comma delimited)" and import it again');
    const bin = await importCsv(owner, id, new Uint8Array([0x50, 0x4b, 0x03, 0x04, 0x00, 0x00, 0x41]));
    expect(bin.status).toBe(415);
    expect(bin.error!.detail).toBe('The file is not a CSV text file');
    const empty = await importCsv(owner, id, '\n\n');
    expect(empty.status).toBe(400);
    expect((await getOne(owner, id)).data!.entries_count).toBe(1);
  });

  it('exports the dictionary as CSV that imports back to the same entries', async () => {
    const entries = [
      entry('Acme, Inc.', '', { do_not_translate: true }),
      entry('say "hi"', 'di "hola"', { pronunciation: 'dee OH-la' }),
      entry('iPhone', 'iPhone', { case_sensitive: true }),
    ];
    const id = await createOk(owner, { name: 'Export me', entries });
    const r = await h.request('GET', `/api/glossary/${id}/export`, { token: owner.token });
    expect(r.status).toBe(200);
    expect(r.headers.get('content-type')).toMatch(/text\/csv/);
    expect(r.headers.get('content-disposition')).toBe('attachment; filename="Export_me.csv"');
    const csv = new Uint8Array(await r.arrayBuffer());
    const copy = await createOk(owner, { name: 'Copy' });
    const imp = await importCsv(owner, copy, csv);
    expect(imp.status, JSON.stringify(imp.error)).toBe(200);
    expect(imp.data!.errors).toEqual([]);
    expect(imp.data!.glossary.entries).toEqual(entries.map((e) => ({ do_not_translate: false, case_sensitive: false, pronunciation: null, ...e })));
    const outsiderExport = await h.request('GET', `/api/glossary/${id}/export`, { token: outsider.token });
    expect(outsiderExport.status).toBe(403);
  });
});

describe('a dictionary on a project', () => {
  it('is refused when it belongs to another space or to other languages, accepted from the same space', async () => {
    const video = await makeSpeechVideo({ seconds: 3 });
    const media = await uploadOk(h, owner, video);
    const project = await seedProject(h, owner, { mediaId: media });
    const mine = await createOk(owner, { name: 'Mine' });
    const theirs = await createOk(outsider, { name: 'Theirs' });
    const french = await createOk(owner, { name: 'French', target_lang: 'fr' });
    const other = await useOn(owner, project, theirs);
    expect(other.response.status).toBe(404);
    expect(other.error!.detail).toBe('Glossary not found');
    const fr = await useOn(owner, project, french);
    expect(fr.response.status).toBe(400);
    const ok = await useOn(owner, project, mine);
    expect(ok.response.status, JSON.stringify(ok.error)).toBe(200);
    expect(ok.data!.glossary_id).toBe(mine);
    const created = await as(owner).POST('/api/project/create_transcript', {
      params: { query: { space_id: owner.defaultSpaceId } }, body: { name: 'With theirs', src_lang: 'en', dst_lang: 'es', media_id: media, glossary_id: theirs },
    });
    expect(created.response.status).toBe(404);
    // Deleting the dictionary leaves the project without one.
    await remove(owner, mine);
    const p = await as(owner).GET('/api/project/{id}', { params: { path: { id: project } } });
    expect(p.data!.glossary_id).toBeNull();
  }, 240_000);
});

describe('the dictionary applied', () => {
  it('translation forces the terms (do-not-translate kept) and records the expected/found terms per segment; the transcript marks a missing term', async () => {
    const video = await makeSpeechVideo({ seconds: 3 });
    const media = await uploadOk(h, owner, video);
    const project = await seedProject(h, owner, {
      mediaId: media,
      segments: [
        { start: 0.5, end: 2.5, speaker: 'SPEAKER_0', src: 'Open the Acme dashboard.', dst: '' },
        { start: 3, end: 5, speaker: 'SPEAKER_0', src: 'The cart is empty.', dst: '' },
      ],
    });
    const gid = await createOk(owner, {
      name: 'Applied',
      entries: [entry('Acme', '', { do_not_translate: true }), entry('dashboard', 'tablero', { pronunciation: 'ta-BLE-ro' }), entry('cart', 'carrito')],
    });
    expect((await useOn(owner, project, gid)).response.status).toBe(200);
    const row = await findProject(h.deps.db, project);
    await translation({
      deps: h.deps, projectId: project, stage: 'translation', signal: new AbortController().signal, tmp: h.dataDir, log: () => {}, project: row!,
    } as Parameters<typeof translation>[0]);
    const segs = await h.deps.db.query<{ dst_text: string; glossary_check: { expected: unknown[]; found: unknown[]; missing: unknown[] } }>(
      `SELECT dst_text, glossary_check FROM segments WHERE project_id = $1 ORDER BY start_sec`, [project],
    );
    expect(segs[0]!.dst_text).toMatch(/\bAcme\b/);
    expect(segs[0]!.dst_text).toMatch(/\btablero\b/);
    expect(segs[1]!.dst_text).toMatch(/\bcarrito\b/);
    expect(segs[0]!.glossary_check).toEqual({
      expected: [{ source: 'Acme', target: 'Acme' }, { source: 'dashboard', target: 'tablero' }],
      found: [{ source: 'Acme', target: 'Acme' }, { source: 'dashboard', target: 'tablero' }],
      missing: [],
    });
    // The user rewrites the second translation without the term: the transcript marks it.
    const transcript = () => as(owner).GET('/api/project/{id}/transcript', { params: { path: { id: project } } });
    const t0 = await transcript();
    const second = t0.data!.segments[1]!;
    const patched = await as(owner).PATCH('/api/project/{id}/transcript', {
      params: { path: { id: project } }, body: { segments: [{ ...second, dst: { ...second.dst, text: 'La cesta está vacía.' } }] },
    });
    expect(patched.response.status, JSON.stringify(patched.error)).toBe(200);
    const t = await transcript();
    expect(t.data!.segments[0]!.terms!.missing).toEqual([]);
    expect(t.data!.segments[1]!.terms).toEqual({ expected: [{ source: 'cart', target: 'carrito' }], missing: [{ source: 'cart', target: 'carrito' }] });
    // Without a dictionary there is no check.
    await useOn(owner, project, 'null');
    const none = await transcript();
    expect(none.data!.segments[0]!.terms).toBeUndefined();
  }, 120_000);
});
