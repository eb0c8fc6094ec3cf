// DeepL adapter against the fake DeepL API: request shapes, formality, glossaries created from the
// dictionary and reused by content hash, capabilities, and failures.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createDeepLMt, deeplBaseUrl, glossaryEntries, glossaryName } from '../../../../server/engines/adapters/deepl';
import { EngineAdapterError, EngineAuthError, EngineResponseError } from '../../../../server/engines/adapters/errors';
import { toDeepLTarget } from '../../../../server/engines/adapters/capabilities';
import { FakeDeepL } from '../../../fakes/deepl';
import { caught, collectLog, recordingSleep } from '../../../fakes/util';

const KEY = 'fake-deepl-key-7f3a9c:fx';
let fake: FakeDeepL;
const mk = (o: { key?: string; formality?: 'more' | 'less' | 'default'; log?: (l: string) => void } = {}) =>
  createDeepLMt({
    apiKey: o.key ?? KEY,
    baseUrl: fake.url,
    formality: o.formality,
    http: { sleep: recordingSleep().sleep, log: o.log ?? (() => {}), retry: { maxAttempts: 3 }, timeoutMs: 5000 },
  });

beforeAll(async () => {
  fake = await new FakeDeepL({ apiKey: KEY }).start();
});
afterAll(() => fake.close());
beforeEach(() => {
  fake.reset();
  fake.opts.notReadyChecks = 0;
});

describe('POST /v2/translate', () => {
  it('sends text[], source_lang, target_lang and formality with the DeepL-Auth-Key header', async () => {
    const mt = mk({ formality: 'more' });
    const out = await mt.translate(['Hello world', '', 'How are you?'], 'en', 'de');
    expect(out).toEqual(['DE:Hello world', '', 'DE:How are you?']);
    expect(fake.violations()).toEqual([]);
    expect(fake.requests).toHaveLength(1);
    const r = fake.requests[0]!;
    expect(r.method).toBe('POST');
    expect(r.path).toBe('/v2/translate');
    expect(r.headers.authorization).toBe(`DeepL-Auth-Key ${KEY}`);
    expect(r.headers['content-type']).toMatch(/^application\/json/);
    expect(r.json).toEqual({
      text: ['Hello world', 'How are you?'],
      context: 'Hello world\nHow are you?',
      source_lang: 'EN',
      target_lang: 'DE',
      formality: 'more',
    });
  });

  it('translates each line as its own text with the neighbouring lines as context', async () => {
    const mt = mk();
    const lines = Array.from({ length: 60 }, (_, i) => `line ${i} of the white`);
    const out = await mt.translate(lines, 'en', 'es');
    expect(out).toEqual(lines.map((l) => `ES:${l}`));
    const reqs = fake.requestsTo('POST', '/v2/translate').map((r) => r.json as { text: string[]; context?: string });
    expect(reqs.map((r) => r.text.length)).toEqual([50, 10]);
    // the second request knows the two lines before it
    expect(reqs[1]!.context!.split('\n').slice(0, 3)).toEqual(['line 48 of the white', 'line 49 of the white', 'line 50 of the white']);
    expect(reqs[0]!.context!.split('\n')).toHaveLength(52);
    // one text alone has no context
    fake.reset();
    await mt.translate(['alone'], 'en', 'es');
    expect(fake.requests[0]!.json).not.toHaveProperty('context');
  });

  it('leaves formality out where the target does not support it, and picks regional variants', async () => {
    const mt = mk({ formality: 'more' });
    await mt.translate(['Hallo'], 'de', 'en');
    await mt.translate(['Hallo'], 'de', 'pt');
    await mt.translate(['Hello'], 'en', 'zh');
    expect(fake.violations()).toEqual([]);
    expect(fake.requests.map((r) => r.json)).toEqual([
      { text: ['Hallo'], source_lang: 'DE', target_lang: 'EN-US' },
      { text: ['Hallo'], source_lang: 'DE', target_lang: 'PT-BR', formality: 'more' },
      { text: ['Hello'], source_lang: 'EN', target_lang: 'ZH-HANS' },
    ]);
    expect(toDeepLTarget('en-gb')).toBe('EN-GB');
    expect(toDeepLTarget('pt-pt')).toBe('PT-PT');
    expect(toDeepLTarget('es-419')).toBe('ES-419');
    expect(toDeepLTarget('zh-tw')).toBe('ZH-HANT');
  });

  it('splits more than 50 texts into several requests, keeping the order', async () => {
    const mt = mk();
    const texts = Array.from({ length: 120 }, (_, i) => `t${i}`);
    const out = await mt.translate(texts, 'en', 'fr');
    expect(out[0]).toBe('FR:t0');
    expect(out[119]).toBe('FR:t119');
    expect(fake.requests.map((r) => (r.json as { text: string[] }).text.length)).toEqual([50, 50, 20]);
  });

  it('403 is a credentials error naming the engine, without the key', async () => {
    const bad = 'bad-deepl-key-0000-secret:fx';
    const { log, lines } = collectLog();
    const mt = mk({ key: bad, log });
    const err = await mt.translate(['Hi'], 'en', 'de').catch(caught);
    expect(err).toBeInstanceOf(EngineAuthError);
    expect(err.message).toContain('engine deepl rejected the credentials');
    expect(err.message).not.toContain(bad);
    expect(lines.join('\n')).not.toContain(bad);
    expect(fake.requests).toHaveLength(1);
  });

  it('456 is a quota failure (not retried)', async () => {
    fake.fail({ kind: 'status', status: 456, body: { message: 'Quota exceeded' } });
    const err = await mk().translate(['Hi'], 'en', 'de').catch(caught);
    expect(err).toBeInstanceOf(EngineAdapterError);
    expect(err.reason).toBe('quota');
    expect(err.message).toContain('engine deepl quota exceeded');
    expect(fake.requests).toHaveLength(1);
  });

  it('429 with Retry-After is retried', async () => {
    fake.fail({ kind: 'status', status: 429, headers: { 'Retry-After': '1' }, body: { message: 'Too many requests' } });
    expect(await mk().translate(['Hi'], 'en', 'de')).toEqual(['DE:Hi']);
    expect(fake.requests).toHaveLength(2);
  });

  it('a wrong number of translations is an unusable response', async () => {
    fake.fail({ kind: 'raw', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ translations: [{ text: 'x' }] }) });
    const err = await mk().translate(['a', 'b'], 'en', 'de').catch(caught);
    expect(err).toBeInstanceOf(EngineResponseError);
    expect(err.message).toContain('1 translations for 2 texts');
  });

  it('unsupported languages are refused before any request', async () => {
    await expect(mk().translate(['x'], 'en', 'xh')).rejects.toMatchObject({ code: 'unsupported_language' });
    expect(fake.requests).toHaveLength(0);
  });
});

describe('glossaries from the project dictionary', () => {
  const terms = [
    { source: 'dubbing', target: 'Synchronisation' },
    { source: 'Studio', target: 'Atelier' },
  ];

  it('creates a TSV glossary once and uses its id; the same terms reuse it', async () => {
    const mt = mk();
    const out = await mt.translate(['The dubbing Studio'], 'en', 'de', { glossary: terms });
    expect(out).toEqual(['DE:The Synchronisation Atelier']);
    const creates = fake.requestsTo('POST', '/v2/glossaries');
    expect(creates).toHaveLength(1);
    const body = creates[0]!.json as Record<string, string>;
    expect(body).toEqual({
      name: glossaryName('en', 'de', glossaryEntries(terms)),
      source_lang: 'en',
      target_lang: 'de',
      entries: 'dubbing\tSynchronisation\nStudio\tAtelier',
      entries_format: 'tsv',
    });
    const id = [...fake.glossaries.keys()][0]!;
    expect((fake.requestsTo('POST', '/v2/translate')[0]!.json as Record<string, string>).glossary_id).toBe(id);

    await mt.translate(['More dubbing'], 'en', 'de', { glossary: [...terms] });
    expect(fake.requestsTo('POST', '/v2/glossaries')).toHaveLength(1);
    expect(fake.violations()).toEqual([]);
  });

  it('after a restart the glossary with the same content hash is found and reused', async () => {
    await mk().translate(['dubbing'], 'en', 'de', { glossary: terms });
    const fresh = mk(); // a new process: empty cache
    await fresh.translate(['dubbing'], 'en', 'de', { glossary: terms });
    expect(fake.requestsTo('POST', '/v2/glossaries')).toHaveLength(1);
    expect(fake.requestsTo('GET', '/v2/glossaries')).toHaveLength(2);
    expect(fake.glossaries.size).toBe(1);
  });

  it('changed terms make a new glossary', async () => {
    const mt = mk();
    await mt.translate(['dubbing'], 'en', 'de', { glossary: terms });
    await mt.translate(['dubbing'], 'en', 'de', { glossary: [{ source: 'dubbing', target: 'Vertonung' }] });
    expect(fake.glossaries.size).toBe(2);
  });

  it('cleans entries: tabs, blanks and duplicate sources', () => {
    expect(
      glossaryEntries([
        { source: ' a\tb ', target: 'c' },
        { source: '', target: 'x' },
        { source: 'a b', target: 'dup' },
        { source: 'e', target: '  ' },
      ]),
    ).toEqual([['a b', 'c']]);
  });

  it('waits for a glossary that is not ready yet', async () => {
    fake.opts.notReadyChecks = 2;
    expect(await mk().translate(['dubbing'], 'en', 'de', { glossary: terms })).toEqual(['DE:Synchronisation']);
    expect(fake.requests.filter((r) => r.method === 'GET' && r.path.startsWith('/v2/glossaries/'))).toHaveLength(2);
  });

  it('a glossary deleted at DeepL is made again', async () => {
    const mt = mk();
    await mt.translate(['dubbing'], 'en', 'de', { glossary: terms });
    fake.glossaries.clear();
    expect(await mt.translate(['dubbing'], 'en', 'de', { glossary: terms })).toEqual(['DE:Synchronisation']);
    expect(fake.requestsTo('POST', '/v2/glossaries')).toHaveLength(2);
  });

  it('terms that do not occur in the texts create nothing; unsupported pairs translate without one', async () => {
    const mt = mk();
    await mt.init!();
    expect(await mt.translate(['hello'], 'en', 'de', { glossary: terms })).toEqual(['DE:hello']);
    expect(mt.glossaryPairs()).not.toContainEqual(['en', 'ko']);
    expect(await mt.translate(['dubbing'], 'en', 'ko', { glossary: terms })).toEqual(['KO:dubbing']);
    expect(fake.requestsTo('POST', '/v2/glossaries')).toHaveLength(0);
  });
});

describe('capabilities', () => {
  it('init() reads /v2/languages and /v2/glossary-language-pairs', async () => {
    const mt = mk();
    await mt.init!();
    expect(mt.lastInitError()).toBeNull();
    expect(fake.requestsTo('GET', '/v2/languages').map((r) => r.query.get('type'))).toEqual(['source', 'target']);
    expect(mt.pairs()).toContainEqual(['en', 'ja']);
    expect(mt.pairs()).not.toContainEqual(['en', 'he']); // the fake does not list Hebrew
    expect(mt.formalityTargets()).toContain('de');
    expect(mt.formalityTargets()).not.toContain('en');
    expect(mt.glossaryPairs()).toContainEqual(['en', 'de']);
  });

  it('a failing init keeps the documented lists and records the redacted reason', async () => {
    const bad = 'another-bad-deepl-key-123';
    const { log, lines } = collectLog();
    const mt = mk({ key: bad, log });
    await mt.init!();
    expect(mt.lastInitError()).toContain('engine deepl rejected the credentials');
    expect(mt.pairs()).toContainEqual(['en', 'he']);
    expect(lines.join('\n')).not.toContain(bad);
  });

  it('free keys go to api-free.deepl.com, others to api.deepl.com', () => {
    expect(deeplBaseUrl('abc:fx')).toBe('https://api-free.deepl.com');
    expect(deeplBaseUrl('abc')).toBe('https://api.deepl.com');
    expect(deeplBaseUrl('abc', 'http://localhost:1/')).toBe('http://localhost:1');
  });
});
