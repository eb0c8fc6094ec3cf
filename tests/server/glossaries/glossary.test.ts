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
import { findProject } from '../../../server/domains/projects/repository';
import { translation } from '../../../server/domains/projects/stages/translation';

let h: Harness;
let owner: TestUser; // Business
let member: TestUser; // trial, editor in the owner's space
let outsider: TestUser; // Business, not a member
let trial: TestUser;

const base = (u: TestUser, spaceId = u.defaultSpaceId) => `/api/glossary?space_id=${spaceId}`;
const entry = (source: string, target: string, extra: Record<string, unknown> = {}) => ({ source, target, ...extra });

async function create(u: TestUser, body: Record<string, unknown>, spaceId = u.defaultSpaceId) {
  return api(h, 'POST', base(u, spaceId), { token: u.token, body: { name: 'Brand', source_lang: 'en', target_lang: 'es', ...body } });
}
async function createOk(u: TestUser, body: Record<string, unknown> = {}, spaceId = u.defaultSpaceId): Promise<string> {
  const r = await create(u, body, spaceId);
  expect(r.status, JSON.stringify(r.json)).toBe(201);
  return r.json.id as string;
}
async function importCsv(u: TestUser, id: string, bytes: Uint8Array | string, asFile = true) {
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
  return { status: r.status, json: text ? JSON.parse(text) : null };
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
    expect(r.status, JSON.stringify(r.json)).toBe(201);
    expect(r.json).toMatchObject({ name: 'Product names', source_lang: 'en', target_lang: 'es', space_id: owner.defaultSpaceId, entries_count: 3 });
    expect(r.json.glossary_id).toBe(r.json.id);
    expect(r.json.entries[1]).toEqual({ source: 'dashboard', target: 'panel', do_not_translate: false, case_sensitive: false, pronunciation: 'pa-NEL' });
    const id = r.json.id as string;
    const other = await createOk(owner, { name: 'French', target_lang: 'fr' });

    const all = await api(h, 'GET', base(owner), { token: owner.token });
    expect(all.status).toBe(200);
    expect(all.json.map((g: { id: string }) => g.id)).toEqual([other, id]); // newest first
    expect(all.json[0].entries).toBeUndefined();
    const es = await api(h, 'GET', `${base(owner)}&source_lang=en&target_lang=es`, { token: owner.token });
    expect(es.json.map((g: { id: string }) => g.id)).toEqual([id]);
    // A regional code finds the dictionary of its base language.
    const esMx = await api(h, 'GET', `${base(owner)}&source_lang=en-us&target_lang=es-mx`, { token: owner.token });
    expect(esMx.json.map((g: { id: string }) => g.id)).toEqual([id]);

    const one = await api(h, 'GET', `/api/glossary/${id}`, { token: owner.token });
    expect(one.status).toBe(200);
    expect(one.json.entries).toHaveLength(3);

    const p = await api(h, 'PATCH', `/api/glossary/${id}`, { token: owner.token, body: { name: 'Renamed', entries: [entry('checkout', 'pago')] } });
    expect(p.status, JSON.stringify(p.json)).toBe(200);
    expect(p.json).toMatchObject({ name: 'Renamed', entries_count: 1, entries: [{ source: 'checkout', target: 'pago' }] });

    const d = await api(h, 'DELETE', `/api/glossary?glossary_id=${id}&space_id=${owner.defaultSpaceId}`, { token: owner.token });
    expect(d.status).toBe(200);
    expect((await api(h, 'GET', `/api/glossary/${id}`, { token: owner.token })).status).toBe(404);
  });

  it('is shared by the Teamspace: a member (trial plan of their own) reads and edits it under the Business owner', async () => {
    const id = await createOk(owner, { name: 'Shared', entries: [entry('cart', 'carrito')] });
    const list = await api(h, 'GET', base(member, owner.defaultSpaceId), { token: member.token });
    expect(list.status, JSON.stringify(list.json)).toBe(200);
    expect(list.json.map((g: { id: string }) => g.id)).toContain(id);
    const p = await api(h, 'PATCH', `/api/glossary/${id}?space_id=${owner.defaultSpaceId}`, {
      token: member.token, body: { entries: [entry('cart', 'carrito'), entry('wishlist', 'lista de deseos')] },
    });
    expect(p.status, JSON.stringify(p.json)).toBe(200);
    expect(p.json.entries_count).toBe(2);
    // Without the space_id the member's call still runs under the dictionary's space (the owner's plan).
    const g = await api(h, 'GET', `/api/glossary/${id}`, { token: member.token });
    expect(g.status).toBe(200);
  });

  it('refuses users without access: another space, no token, and a trial plan (403 feature refusal)', async () => {
    const id = await createOk(owner, { name: 'Private' });
    for (const [method, path, body] of [
      ['GET', `/api/glossary/${id}`, undefined],
      ['PATCH', `/api/glossary/${id}`, { name: 'Taken' }],
      ['DELETE', `/api/glossary?glossary_id=${id}`, undefined],
      ['GET', `/api/glossary/${id}/export`, undefined],
      ['GET', base(outsider, owner.defaultSpaceId), undefined],
      ['POST', base(outsider, owner.defaultSpaceId), { name: 'Intruder', source_lang: 'en', target_lang: 'es' }],
    ] as const) {
      const r = await api(h, method, path, { token: outsider.token, body });
      expect(r.status, `${method} ${path}`).toBe(403);
      expect(r.json.detail).toBe('You have no access to this resource');
      const anon = await api(h, method, path, { body });
      expect(anon.status, `${method} ${path}`).toBe(401);
    }
    expect((await api(h, 'GET', `/api/glossary/${id}`, { token: owner.token })).json.name).toBe('Private');
    const r = await create(trial, { name: 'Mine' });
    expect(r.status).toBe(403);
    expect(r.json).toMatchObject({ detail: featureRefusalText('glossary'), feature: 'glossary', required_plan: 'business' });
    const l = await api(h, 'GET', base(trial), { token: trial.token });
    expect(l.status).toBe(403);
  });

  it('an unknown or malformed id is 404', async () => {
    expect((await api(h, 'GET', '/api/glossary/00000000-0000-4000-8000-000000000000', { token: owner.token })).status).toBe(404);
    const bad = await api(h, 'PATCH', '/api/glossary/nope', { token: owner.token, body: { name: 'x' } });
    expect(bad.status).toBe(404);
    expect(bad.json.detail).toBe('Dictionary not found');
  });
});

describe('Dictionary bad input', () => {
  it('refuses an empty term, a 10,000-character term, a missing translation and duplicate terms, naming the entry', async () => {
    const cases: Array<[unknown[], (string | number)[], RegExp]> = [
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
      expect(r.status, JSON.stringify(entries).slice(0, 80)).toBe(422);
      expect(r.json.detail[0].loc).toEqual(loc);
      expect(r.json.detail[0].msg).toMatch(msg);
    }
    // Case-sensitive terms spelled differently are two terms.
    const ok = await create(owner, { entries: [entry('Apple', 'Apple', { case_sensitive: true }), entry('apple', 'manzana', { case_sensitive: true })] });
    expect(ok.status, JSON.stringify(ok.json)).toBe(201);
  });

  it('refuses a missing name, equal languages and a malformed language', async () => {
    expect((await create(owner, { name: '' })).status).toBe(422);
    const same = await create(owner, { target_lang: 'en' });
    expect(same.status).toBe(422);
    expect(same.json.detail[0].msg).toBe('The source and target languages must differ');
    expect((await create(owner, { source_lang: 'english!' })).status).toBe(422);
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
    expect(r.status, JSON.stringify(r.json)).toBe(200);
    expect(r.json.added).toBe(2); // Acme, total
    expect(r.json.updated).toBe(1); // cart -> carrito
    expect(r.json.errors.map((e: { line: number }) => e.line)).toEqual([3, 5, 6, 8, 9]);
    expect(r.json.errors[0].msg).toMatch(/term is empty/);
    expect(r.json.errors[1].msg).toMatch(/translation of "checkout" is empty/);
    expect(r.json.errors[2].msg).toMatch(/too long/);
    expect(r.json.errors[3].msg).toMatch(/appears earlier in the file/);
    expect(r.json.errors[4].msg).toMatch(/do_not_translate must be true or false/);
    const g = await api(h, 'GET', `/api/glossary/${id}`, { token: owner.token });
    expect(g.json.entries).toEqual([
      { source: 'Cart', target: 'carrito', do_not_translate: false, case_sensitive: false, pronunciation: null },
      { source: 'Acme', target: '', do_not_translate: true, case_sensitive: false, pronunciation: null },
      { source: 'total', target: 'total, con IVA', do_not_translate: false, case_sensitive: true, pronunciation: null },
    ]);
  });

  it('reads a file without a header row, a UTF-8 BOM and a UTF-16 file, as a form field or a text/csv body', async () => {
    const id = await createOk(owner, { name: 'Encodings' });
    const a = await importCsv(owner, id, '\uFEFFcafé,café\nniño,niño\n', false);
    expect(a.status, JSON.stringify(a.json)).toBe(200);
    expect(a.json.added).toBe(2);
    const text = '\uFEFFsource,target\nmañana,tomorrow\n';
    const utf16 = new Uint8Array(text.length * 2);
    for (let i = 0; i < text.length; i++) {
      utf16[i * 2] = text.charCodeAt(i) & 0xff;
      utf16[i * 2 + 1] = text.charCodeAt(i) >> 8;
    }
    const b = await importCsv(owner, id, new Uint8Array([0xff, 0xfe, ...utf16.subarray(2)]));
    expect(b.status, JSON.stringify(b.json)).toBe(200);
    expect(b.json.glossary.entries.map((e: { source: string }) => e.source)).toEqual(['café', 'niño', 'mañana']);
  });

  it('refuses a file in the wrong encoding (Latin-1) and a binary file, with a clear error and no change', async () => {
    const id = await createOk(owner, { name: 'Latin', entries: [entry('one', 'uno')] });
    const latin1 = new Uint8Array([...new TextEncoder().encode('source,target\ncaf'), 0xe9, ...new TextEncoder().encode(',coffee\n')]);
    const r = await importCsv(owner, id, latin1);
    expect(r.status).toBe(415);
    expect(r.json.detail).toBe('The file is not UTF-8 text. Save it as "CSV UTF-8 (comma delimited)" and import it again');
    const bin = await importCsv(owner, id, new Uint8Array([0x50, 0x4b, 0x03, 0x04, 0x00, 0x00, 0x41]));
    expect(bin.status).toBe(415);
    expect(bin.json.detail).toBe('The file is not a CSV text file');
    const empty = await importCsv(owner, id, '\n\n');
    expect(empty.status).toBe(400);
    expect((await api(h, 'GET', `/api/glossary/${id}`, { token: owner.token })).json.entries_count).toBe(1);
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
    expect(imp.status, JSON.stringify(imp.json)).toBe(200);
    expect(imp.json.errors).toEqual([]);
    expect(imp.json.glossary.entries).toEqual(entries.map((e) => ({ do_not_translate: false, case_sensitive: false, pronunciation: null, ...e })));
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
    const other = await api(h, 'PATCH', `/api/project/${project}/glossary?glossary_id=${theirs}`, { token: owner.token });
    expect(other.status).toBe(404);
    expect(other.json.detail).toBe('Glossary not found');
    const fr = await api(h, 'PATCH', `/api/project/${project}/glossary?glossary_id=${french}`, { token: owner.token });
    expect(fr.status).toBe(400);
    const ok = await api(h, 'PATCH', `/api/project/${project}/glossary?glossary_id=${mine}`, { token: owner.token });
    expect(ok.status, JSON.stringify(ok.json)).toBe(200);
    expect(ok.json.glossary_id).toBe(mine);
    const created = await api(h, 'POST', `/api/project/create_transcript?space_id=${owner.defaultSpaceId}`, {
      token: owner.token, body: { name: 'With theirs', src_lang: 'en', dst_lang: 'es', media_id: media, glossary_id: theirs },
    });
    expect(created.status).toBe(404);
    // Deleting the dictionary leaves the project without one.
    await api(h, 'DELETE', `/api/glossary?glossary_id=${mine}`, { token: owner.token });
    const p = await api(h, 'GET', `/api/project/${project}`, { token: owner.token });
    expect(p.json.glossary_id).toBeNull();
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
    expect((await api(h, 'PATCH', `/api/project/${project}/glossary?glossary_id=${gid}`, { token: owner.token })).status).toBe(200);
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
    const t0 = await api(h, 'GET', `/api/project/${project}/transcript`, { token: owner.token });
    const second = t0.json.segments[1];
    const patched = await api(h, 'PATCH', `/api/project/${project}/transcript`, {
      token: owner.token, body: { segments: [{ ...second, dst: { ...second.dst, text: 'La cesta está vacía.' } }] },
    });
    expect(patched.status, JSON.stringify(patched.json)).toBe(200);
    const t = await api(h, 'GET', `/api/project/${project}/transcript`, { token: owner.token });
    expect(t.json.segments[0].terms.missing).toEqual([]);
    expect(t.json.segments[1].terms).toEqual({ expected: [{ source: 'cart', target: 'carrito' }], missing: [{ source: 'cart', target: 'carrito' }] });
    // Without a dictionary there is no check.
    await api(h, 'PATCH', `/api/project/${project}/glossary?glossary_id=null`, { token: owner.token });
    const none = await api(h, 'GET', `/api/project/${project}/transcript`, { token: owner.token });
    expect(none.json.segments[0].terms).toBeUndefined();
  }, 120_000);
});
