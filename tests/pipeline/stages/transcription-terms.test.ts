// The customer's words reach the recognizer (issue 33): the transcription stage gives the speech recognition engine
// the project's word list (given on create as asr_words) followed by its dictionary's source terms, on every decode;
// a project with neither gives none. The engine here records the options it is called with and returns a fixed
// hypothesis (no decoding), so the test is about the wiring, not about recognition.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AsrCallOptions, AsrEngine } from '../../../server/engines/types';
import { makeSpeechVideo } from '../../fixtures/media';
import { createHarness, type Harness } from '../../server/harness';
import { createTyped, newUser, replacePipeline, uploadOk, waitForStatus, type TestUser } from '../../server/projects/projects-fixtures';
import { typedClient } from '../../server/typed-client';
import type { components } from '../../../src/lib/api/schema';
import { grantPlan } from '../../server/spaces/spaces-fixtures';

let h: Harness;
let u: TestUser;
let mediaId: string;
/** The terms of each transcribe call (one project at a time: the list is emptied before each). */
const seen: Array<{ wav: string; terms: string[] | undefined }> = [];

beforeAll(async () => {
  h = await createHarness();
  u = await newUser(h, 'asr-terms-stage');
  await grantPlan(h, u.id, 'business'); // the Dictionary is a Business feature
  mediaId = await uploadOk(h, u, await makeSpeechVideo({ seconds: 6 }));
  const engines = h.deps.engines;
  const realAsrFor = engines.asrFor.bind(engines);
  engines.asrFor = async (lang) => {
    const real = await realAsrFor(lang);
    if (!real) return real;
    const fake: AsrEngine = Object.create(real) as AsrEngine;
    fake.transcribe = async (wav, regions, _l, o?: AsrCallOptions) => {
      seen.push({ wav, terms: o?.terms ? [...o.terms] : undefined });
      return regions.map((r) => ({ start: r.start, end: r.end, text: 'We flew to Zephyrix', words: [] }));
    };
    return fake;
  };
  const p = await replacePipeline(h);
  await p.startWorker(1);
}, 180_000);
afterAll(async () => {
  await h?.close();
});

const settled = (s: string) => s === 'translation_done' || /failed|^no_/.test(s);

async function create(body: Pick<components['schemas']['CreateTranscriptRequest'], 'name' | 'asr_words' | 'glossary_id'>): Promise<string> {
  const r = await createTyped(h, u, { src_lang: 'en', dst_lang: 'es', media_id: mediaId, ...body });
  expect(r.response.status, JSON.stringify(r.error)).toBe(200);
  return r.data!.id;
}

describe('transcription and the customer\'s words', () => {
  it('gives the recognizer the word list, then the dictionary\'s source terms; none when there are none', async () => {
    const g = await h.deps.db.one<{ id: string }>(
      `INSERT INTO glossaries (space_id, name, src_lang, dst_lang, terms) VALUES ($1, 'Brand', 'en', 'es',
        '[{"source":"Quillbrook","target":"Quillbrook"},{"source":"zephyrix","target":"Zephyrix"}]') RETURNING id`,
      [u.defaultSpaceId],
    );
    seen.length = 0;
    const id = await create({ name: 'With words', asr_words: ['Zephyrix', ' Ouarzazate '], glossary_id: g.id });
    const done = await waitForStatus(h, u, id, settled, 240_000);
    expect(done.status).toBe('translation_done');
    const mine = [...seen];
    expect(mine.length).toBeGreaterThan(0);
    for (const c of mine) expect(c.terms).toEqual(['Zephyrix', 'Ouarzazate', 'Quillbrook']);
    const t = await typedClient(h, u.token).GET('/api/project/{id}/transcript', { params: { path: { id } } });
    expect(t.response.status, JSON.stringify(t.error)).toBe(200);
    expect(t.data!.segments.map((s) => s.src.text)).toContain('We flew to Zephyrix');

    seen.length = 0;
    const plain = await create({ name: 'Without words' });
    expect((await waitForStatus(h, u, plain, settled, 240_000)).status).toBe('translation_done');
    const others = [...seen];
    expect(others.length).toBeGreaterThan(0);
    for (const c of others) expect(c.terms ?? []).toEqual([]);
  }, 600_000);
});
