// Regional variants of target languages (issue 31 part 4): es-419 / es-ES, pt-BR / pt-PT, en-GB / en-US,
// fr-FR / fr-CA. The voice follows the region (espeak-ng's regional voices); the vocabulary follows where the
// engine can (DeepL's target variants, the LLM prompt naming the variant), and the built-in MT (Apertium,
// one vocabulary per language) says so on the language option. Unknown variants are refused with a message
// naming the known ones; a dictionary for "es" applies to an es-419 project.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { voiceSuggest } from '../../../server/domains/projects/stages/voice-suggest';
import { translation } from '../../../server/domains/projects/stages/translation';
import { findProject, replaceSpeakers } from '../../../server/domains/projects/repository';
import { insertSegments } from '../../../server/domains/projects/transcript/repository';
import { createDeepLMt } from '../../../server/engines/adapters/deepl';
import { createOpenAiMt } from '../../../server/engines/adapters/openai-chat';
import { canonicalLanguage } from '../../../server/engines/languages';
import { setStatus } from '../../../server/domains/projects/pipeline/stages';
import { makeSpeechVideo, tempDir } from '../../fixtures/media';
import { FakeDeepL } from '../../fakes/deepl';
import { FakeOpenAi, type ChatRequest } from '../../fakes/openai';
import { recordingSleep } from '../../fakes/util';
import { createHarness, type Harness } from '../../server/harness';
import { createProject, newUser, uploadOk, type TestUser } from '../../server/projects/projects-fixtures';
import { typedClient } from '../../server/typed-client';
import { grantPlan } from '../../server/spaces/spaces-fixtures';

const DEEPL_KEY = 'fake-deepl-key-7f3a9c:fx';
const OPENAI_KEY = 'sk-test-fake-openai-key-0123456789';
const http = () => ({ sleep: recordingSleep().sleep, log: () => {}, retry: { maxAttempts: 3 }, timeoutMs: 5000 });

let h: Harness;
let u: TestUser;
let mediaId: string;
let deepl: FakeDeepL;
let openai: FakeOpenAi;

beforeAll(async () => {
  deepl = await new FakeDeepL({ apiKey: DEEPL_KEY }).start();
  openai = await new FakeOpenAi({ apiKey: OPENAI_KEY, asrModel: 'whisper-1', ttsModel: 'tts-1', chatModel: 'gpt-4o-mini' }).start();
  h = await createHarness();
  u = await newUser(h, 'regions');
  await grantPlan(h, u.id, 'business');
  mediaId = await uploadOk(h, u, await makeSpeechVideo({ seconds: 3 }));
}, 120_000);
afterAll(async () => {
  await h?.close();
  await deepl?.close();
  await openai?.close();
});
beforeEach(() => {
  deepl.reset();
  openai.reset();
});

const at = (id: string) => ({ params: { path: { id } } });
const translationList = async () => {
  const r = await typedClient(h, u.token).GET('/api/settings');
  expect(r.response.status, JSON.stringify(r.error)).toBe(200);
  return r.data!.languages.translation;
};
const get = async (id: string) => {
  const r = await typedClient(h, u.token).GET('/api/project/{id}', at(id));
  expect(r.response.status, JSON.stringify(r.error)).toBe(200);
  return r.data!;
};

/** A project from the built-in engines' create call, its pipeline jobs dropped (the stages run by hand here). */
async function project(dst: string, extra: Record<string, unknown> = {}): Promise<string> {
  const r = await createProject(h, u, { name: `Variant ${dst}`, src_lang: 'en', dst_lang: dst, media_id: mediaId, ...extra });
  expect(r.response.status, JSON.stringify(r.error)).toBe(200);
  await h.deps.db.query(`DELETE FROM pipeline_jobs WHERE project_id = $1`, [r.data!.id]);
  return r.data!.id;
}

async function runStage(id: string, stage: typeof voiceSuggest, name: string) {
  const p = (await findProject(h.deps.db, id))!;
  await stage({
    deps: h.deps, projectId: id, stage: name, signal: new AbortController().signal, tmp: tempDir('variant-'), log: () => {}, project: p,
  } as unknown as Parameters<typeof voiceSuggest>[0]);
}

describe('the voice follows the region (built-in espeak-ng)', () => {
  it('offers only the region\'s voices, its own first', async () => {
    const latam = await h.deps.engines.voices('es-419');
    expect(latam.length).toBeGreaterThan(0);
    expect(new Set(latam.map((v) => v.dialect))).toEqual(new Set(['es-419']));
    const spain = await h.deps.engines.voices('es-ES');
    expect(new Set(spain.map((v) => v.dialect))).toEqual(new Set(['es']));
    expect((await h.deps.engines.voices('pt-BR'))[0]!.dialect).toBe('pt-br');
    expect((await h.deps.engines.voices('en-GB'))[0]!.dialect).toBe('en-gb');
    // espeak-ng has no Canadian French voice: no engine speaks fr-CA here
    expect(await h.deps.engines.voices('fr-CA')).toEqual([]);
    // a base language keeps every regional voice, its primary one first (unchanged)
    const es = await h.deps.engines.voices('es');
    expect(es[0]!.dialect).toBe('es');
    expect(es.some((v) => v.dialect === 'es-419')).toBe(true);
  });

  it('voice suggestion gives es-419 speakers a Latin American voice and es-ES speakers the Spain one', async () => {
    for (const [dst, dialect] of [['es-419', 'es-419'], ['es-ES', 'es']] as const) {
      const id = await project(dst);
      await replaceSpeakers(h.deps.db, id, [
        { id: 'SPEAKER_0', name: 'Speaker 1', gender: 'male', pitch_hz: 110 },
        { id: 'SPEAKER_1', name: 'Speaker 2', gender: 'female', pitch_hz: 210 },
      ]);
      await setStatus(h.deps.db, id, 'voice_suggest_started');
      await runStage(id, voiceSuggest, 'voice_suggest');
      const p = await get(id);
      expect(p.dst_lang).toBe(dst);
      const ids = p.speakers.map((s) => s.voice_id);
      expect(ids).toHaveLength(2);
      for (const v of ids) expect(v).toMatch(new RegExp(`^espeak:${dialect}\\+`));
      const pool = await typedClient(h, u.token).GET('/api/project/{id}/voice_pool', at(id));
      expect(pool.response.status, JSON.stringify(pool.error)).toBe(200);
      expect(new Set(pool.data!.voices.map((v) => v.dialect))).toEqual(new Set([dialect]));
    }
  });
});

describe('language list and validation', () => {
  it('lists the variants the engines can voice; Apertium says it has one vocabulary', async () => {
    const list = await translationList();
    const byValue = new Map(list.map((l) => [l.value, l]));
    // Apertium here translates English into Spanish (not into Portuguese or French)
    for (const v of ['es', 'es-ES', 'es-419', 'es-MX']) expect(byValue.has(v), v).toBe(true);
    expect(byValue.has('fr-CA')).toBe(false);
    expect(byValue.get('es-419')!.variant_note).toMatch(/speaks Spanish \(Latin America\).*one vocabulary/);
    expect(byValue.get('es-MX')!.variant_note).toMatch(/Spanish \(Mexico\)/);
    // the region the language's plain entry already stands for needs no note
    expect(byValue.get('es-ES')!.variant_note ?? null).toBeNull();
    expect(byValue.get('es')!.variant_note ?? null).toBeNull();
  });

  it('refuses an unknown regional variant with a message naming the known ones', async () => {
    const r = await createProject(h, u, { name: 'x', src_lang: 'en', dst_lang: 'es-AR', media_id: mediaId });
    expect(r.response.status).toBe(400);
    expect(JSON.stringify(r.error)).toMatch(/Unknown language variant \\?"es-AR\\?": the variants of Spanish are es-419, es-ES, es-MX/);
    const multi = await createProject(h, u, { name: 'x', src_lang: 'en', dst_langs: ['es-419', 'en-ZZ'], media_id: mediaId });
    expect(multi.response.status).toBe(400);
    expect(JSON.stringify(multi.error)).toMatch(/Unknown language variant \\?"en-ZZ\\?"/);
    const none = await createProject(h, u, { name: 'x', src_lang: 'en', dst_lang: 'de-AT', media_id: mediaId });
    expect(none.response.status).toBe(400);
    expect(JSON.stringify(none.error)).toMatch(/German has no regional variants here \(use \\?"de\\?"\)/);
    // a known variant no engine can voice is refused as before, naming the variant
    const ca = await createProject(h, u, { name: 'x', src_lang: 'en', dst_lang: 'fr-CA', media_id: mediaId });
    expect(ca.response.status).toBe(400);
    expect(canonicalLanguage('PT_br')).toEqual({ ok: true, value: 'pt-BR' });
  });

  it('a dictionary for "es" applies to an es-419 project', async () => {
    const g = await typedClient(h, u.token).POST('/api/glossary', {
      params: { query: { space_id: u.defaultSpaceId } },
      body: { name: 'Brand', source_lang: 'en', target_lang: 'es', entries: [{ source: 'Studio', target: 'Estudio' }] },
    });
    expect(g.response.status, JSON.stringify(g.error)).toBe(201);
    const glossaryId = g.data!.id;
    const id = await project('es-419', { glossary_id: glossaryId });
    expect((await get(id)).glossary_id).toBe(glossaryId);
    const list = await typedClient(h, u.token).GET('/api/glossary', { params: { query: { space_id: u.defaultSpaceId, source_lang: 'en', target_lang: 'es-419' } } });
    expect(list.response.status, JSON.stringify(list.error)).toBe(200);
    expect(list.data!.map((x) => x.id)).toContain(glossaryId);
  });
});

describe('the vocabulary follows where the engine can', () => {
  it('DeepL gets the variant as target_lang', async () => {
    const mt = createDeepLMt({ apiKey: DEEPL_KEY, baseUrl: deepl.url, http: http() });
    expect(mt.regionalVariants?.('es')).toBe(true);
    expect(mt.regionalVariants?.('fr')).toBe(false);
    const want: Array<[string, string]> = [
      ['es-419', 'ES-419'], ['es-MX', 'ES-419'], ['es-ES', 'ES'], ['es', 'ES'],
      ['pt-BR', 'PT-BR'], ['pt-PT', 'PT-PT'], ['en-GB', 'EN-GB'], ['en-US', 'EN-US'], ['fr-CA', 'FR'],
    ];
    for (const [dst, target] of want) {
      deepl.reset();
      expect(await mt.translate(['Hello'], 'de', dst)).toEqual([`${target}:Hello`]);
      expect((deepl.requestsTo('POST', '/v2/translate')[0]!.json as { target_lang: string }).target_lang).toBe(target);
    }
    expect(deepl.violations()).toEqual([]);
  });

  it('a pt-BR project round-trips over HTTP and its translation asks DeepL for PT-BR', async () => {
    const mt = createDeepLMt({ apiKey: DEEPL_KEY, baseUrl: deepl.url, http: http() });
    await mt.init?.();
    h.deps.engines.register('mt', mt, { prefer: true });
    const id = await project('pt-br');
    const p = await get(id);
    expect(p.dst_lang).toBe('pt-BR');
    const list = await typedClient(h, u.token).GET('/api/project/paginated', { params: { query: { space_id: u.defaultSpaceId } } });
    expect(list.data!.data.find((x) => x.id === id)!.dst_lang).toBe('pt-BR');
    const langs = await translationList();
    // DeepL knows Brazilian Portuguese: no note on its option
    expect(langs.find((l) => l.value === 'pt-BR')!.variant_note ?? null).toBeNull();

    await insertSegments(h.deps.db, id, [{ start: 0.2, end: 2.5, speaker: 'SPEAKER_0', src: 'Hello there.', dst: '', status: 'done' }]);
    await setStatus(h.deps.db, id, 'translation_started');
    deepl.reset();
    await runStage(id, translation, 'translation');
    const targets = deepl.requestsTo('POST', '/v2/translate').map((r) => (r.json as { target_lang: string }).target_lang);
    expect(targets.length).toBeGreaterThan(0);
    expect(new Set(targets)).toEqual(new Set(['PT-BR']));
    const t = await typedClient(h, u.token).GET('/api/project/{id}/transcript', at(id));
    expect(t.data!.segments[0]!.dst.text).toBe('PT-BR:Hello there.');
  });

  it('the LLM prompt names the variant', async () => {
    const mt = createOpenAiMt({ baseUrl: `${openai.url}/v1`, apiKey: OPENAI_KEY, model: 'gpt-4o-mini', http: http() });
    expect(await mt.translate(['Hello'], 'en', 'es-419')).toEqual(['[es-419] Hello']);
    const body = openai.requests[0]!.json as ChatRequest;
    expect(body.messages[0]!.content).toContain('into Latin American Spanish (es-419)');
    expect(body.messages[0]!.content).toMatch(/as spoken in that region/);
    openai.reset();
    await mt.translate(['Hello'], 'en', 'es');
    expect((openai.requests[0]!.json as ChatRequest).messages[0]!.content).not.toMatch(/as spoken in that region/);
  });
});
