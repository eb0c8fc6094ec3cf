// A dictionary CSV import never freezes the others (issue 26 §2): the file is parsed in a worker thread and
// merged in slices, so GET /api/health is answered while a large import runs; a file of more terms than a
// dictionary may hold is refused whole with a clear 422. (Figures: bench/stalls.ts, not timed here.)
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GLOSSARY_MAX_ENTRIES } from '../../../contract/schemas/glossary';
import { csvThreadsRunning } from '../../../server/domains/glossaries/parse';
import { createHarness, type Harness } from '../harness';
import { newUser, type TestUser } from '../projects/projects-fixtures';
import { grantPlan } from '../spaces/spaces-fixtures';
import { typedClient } from '../typed-client';

let h: Harness;
let owner: TestUser;

async function createDictionary(name: string): Promise<string> {
  const r = await typedClient(h, owner.token).POST('/api/glossary', {
    params: { query: { space_id: owner.defaultSpaceId } }, body: { name, source_lang: 'en', target_lang: 'es' },
  });
  expect(r.response.status, JSON.stringify(r.error)).toBe(201);
  return r.data!.id;
}

/** POST {id}/import with a raw text/csv body, which the typed client does not send. */
function importCsv(id: string, csv: string): Promise<Response> {
  return Promise.resolve(h.app.request(`/api/glossary/${id}/import?space_id=${owner.defaultSpaceId}`, {
    method: 'POST', headers: { authorization: `Bearer ${owner.token}`, 'content-type': 'text/csv' }, body: csv,
  }));
}

const rowsCsv = (n: number) => {
  const lines = ['source,target'];
  for (let i = 0; i < n; i++) lines.push(`term${i},término${i}`);
  return `${lines.join('\n')}\n`;
};

beforeAll(async () => {
  h = await createHarness();
  owner = await newUser(h, 'owner');
  await grantPlan(h, owner.id, 'business');
}, 240_000);
afterAll(async () => {
  await h?.close();
});

describe('dictionary CSV import', () => {
  it(`refuses a file of more than ${GLOSSARY_MAX_ENTRIES} terms with a 422 naming the limit, and changes nothing`, async () => {
    const id = await createDictionary('Too big');
    const r = await importCsv(id, rowsCsv(GLOSSARY_MAX_ENTRIES + 1));
    const body = await r.json();
    expect(r.status, JSON.stringify(body).slice(0, 300)).toBe(422);
    expect(JSON.stringify(body.detail)).toContain(`at most ${GLOSSARY_MAX_ENTRIES.toLocaleString('en-US')} terms`);
    const g = await typedClient(h, owner.token).GET('/api/glossary/{id}', { params: { path: { id } } });
    expect(g.data!.entries_count).toBe(0);
  }, 120_000);

  it('imports 50,000 rows in a worker thread while GET /api/health keeps being answered', async () => {
    const id = await createDictionary('Large');
    let finished = false;
    let sawThread = false;
    let healthAnswered = 0;
    const imp = importCsv(id, rowsCsv(50_000)).then(async (r) => {
      finished = true;
      return { status: r.status, json: await r.json() };
    });
    // Health checks run one after another until the import answers: each needs the event loop free.
    while (!finished) {
      if (csvThreadsRunning() > 0) sawThread = true;
      const res = await h.app.request('/api/health');
      expect(res.status).toBe(200);
      await res.text();
      if (!finished) healthAnswered++;
      // In-process requests may settle on microtasks alone: leave the loop its other work (timers, I/O).
      await new Promise((r) => setTimeout(r, 5));
    }
    const r = await imp;
    expect(r.status, JSON.stringify(r.json).slice(0, 300)).toBe(200);
    expect(r.json.added).toBe(50_000);
    expect(r.json.errors).toEqual([]);
    expect(r.json.glossary.entries_count).toBe(50_000);
    expect(r.json.glossary.entries[49_999]).toMatchObject({ source: 'term49999', target: 'término49999' });
    expect(sawThread).toBe(true);
    expect(healthAnswered).toBeGreaterThanOrEqual(3);

    // Importing the same file again updates every term (found by key, not by a scan per row).
    const again = await importCsv(id, rowsCsv(50_000));
    const json = await again.json();
    expect(again.status).toBe(200);
    expect(json).toMatchObject({ added: 0, updated: 50_000, errors: [] });
  }, 180_000);

  it('exports a term starting with = + - @ as a guarded cell (the shared CSV writer)', async () => {
    const r = await typedClient(h, owner.token).POST('/api/glossary', {
      params: { query: { space_id: owner.defaultSpaceId } },
      body: { name: 'Formulas', source_lang: 'en', target_lang: 'es', entries: [{ source: '=1+2', target: '@sum' }, { source: '-minus', target: '+plus' }] },
    });
    expect(r.response.status).toBe(201);
    const res = await h.app.request(`/api/glossary/${r.data!.id}/export?space_id=${owner.defaultSpaceId}`, { headers: { authorization: `Bearer ${owner.token}` } });
    expect(res.status).toBe(200);
    const lines = (await res.text()).replace(/^\uFEFF/, '').split('\r\n');
    expect(lines[1]).toBe(`"'=1+2","'@sum",false,false,`);
    expect(lines[2]).toBe(`"'-minus","'+plus",false,false,`);
  });
});
