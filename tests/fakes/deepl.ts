// A fake DeepL API v2:
//   POST /v2/translate                 JSON {text:[...], target_lang, source_lang?, formality?, glossary_id?}
//   POST /v2/glossaries                JSON {name, source_lang, target_lang, entries, entries_format:'tsv'|'csv'}
//   GET  /v2/glossaries, GET /v2/glossaries/{id}, DELETE /v2/glossaries/{id}
//   GET  /v2/languages?type=source|target, GET /v2/glossary-language-pairs
// Auth: `Authorization: DeepL-Auth-Key <key>` (403 otherwise, as DeepL answers). "Translation" is
// `<TARGET>:<text>` with glossary terms applied, so tests can see what the service was asked to do.
import { randomUUID } from 'node:crypto';
import { FakeServer, ShapeError, header, type RecordedRequest, type Reply, type Route } from './base';

const SOURCES = ['AR', 'BG', 'CS', 'DA', 'DE', 'EL', 'EN', 'ES', 'ET', 'FI', 'FR', 'HU', 'ID', 'IT', 'JA', 'KO', 'LT', 'LV', 'NB', 'NL', 'PL', 'PT', 'RO', 'RU', 'SK', 'SL', 'SV', 'TR', 'UK', 'ZH'];
const TARGETS = [
  ...SOURCES.filter((l) => !['EN', 'PT', 'ZH'].includes(l)),
  'EN-GB', 'EN-US', 'PT-BR', 'PT-PT', 'ZH', 'ZH-HANS', 'ZH-HANT', 'ES-419',
];
const FORMALITY = ['DE', 'ES', 'FR', 'IT', 'JA', 'NL', 'PL', 'PT-BR', 'PT-PT', 'RU'];
const GLOSSARY_LANGS = ['de', 'en', 'es', 'fr', 'it', 'ja', 'nl', 'pl', 'pt', 'ru', 'zh'];

interface Glossary {
  glossary_id: string;
  name: string;
  ready: boolean;
  source_lang: string;
  target_lang: string;
  creation_time: string;
  entry_count: number;
  entries: Array<[string, string]>;
}

export interface FakeDeepLOptions {
  apiKey?: string;
  /** New glossaries report ready:false for this many status checks. */
  notReadyChecks?: number;
}

export class FakeDeepL extends FakeServer {
  readonly glossaries = new Map<string, Glossary>();
  readonly opts: Required<FakeDeepLOptions>;
  private pendingChecks = new Map<string, number>();

  constructor(opts: FakeDeepLOptions = {}) {
    super();
    this.opts = { apiKey: 'fake-deepl-key-7f3a9c:fx', notReadyChecks: 0, ...opts };
  }

  reset(): void {
    this.clearFaults();
    this.requests.length = 0;
    this.glossaries.clear();
  }

  protected authorize(req: RecordedRequest): Reply | null {
    if (header(req, 'authorization') === `DeepL-Auth-Key ${this.opts.apiKey}`) return null;
    return { status: 403, json: { message: 'Wrong endpoint. Use https://api.deepl.com' } };
  }

  protected routes(): Route[] {
    return [
      { method: 'POST', path: '/v2/translate', handler: (r) => this.translate(r) },
      { method: 'POST', path: '/v2/glossaries', handler: (r) => this.createGlossary(r) },
      { method: 'GET', path: '/v2/glossaries', handler: () => ({ json: { glossaries: [...this.glossaries.values()].map(pub) } }) },
      { method: 'GET', path: '/v2/glossaries/:id', handler: (_r, p) => this.glossaryStatus(p.id!) },
      {
        method: 'DELETE',
        path: '/v2/glossaries/:id',
        handler: (_r, p) => (this.glossaries.delete(p.id!) ? { status: 204 } : { status: 404, json: { message: 'Glossary not found' } }),
      },
      { method: 'GET', path: '/v2/languages', handler: (r) => this.languages(r) },
      {
        method: 'GET',
        path: '/v2/glossary-language-pairs',
        handler: () => ({
          json: {
            supported_languages: GLOSSARY_LANGS.flatMap((s) => GLOSSARY_LANGS.filter((t) => t !== s).map((t) => ({ source_lang: s, target_lang: t }))),
          },
        }),
      },
    ];
  }

  private translate(req: RecordedRequest): Reply {
    const b = req.json as Record<string, unknown> | undefined;
    if (!b) throw new ShapeError('translate expects a JSON body');
    if (!Array.isArray(b.text) || b.text.length === 0 || b.text.length > 50 || !b.text.every((t) => typeof t === 'string')) {
      throw new ShapeError("'text' must be an array of 1..50 strings", 400, { message: "Parameter 'text' not specified." });
    }
    if (req.body.length > 128 * 1024) throw new ShapeError('request body over 128 KiB', 413, { message: 'Request Entity Too Large' });
    const target = String(b.target_lang ?? '').toUpperCase();
    if (!TARGETS.includes(target)) throw new ShapeError(`target_lang ${target} not supported`, 400, { message: "Value for 'target_lang' not supported." });
    const source = b.source_lang === undefined ? undefined : String(b.source_lang).toUpperCase();
    if (source !== undefined && !SOURCES.includes(source)) throw new ShapeError(`source_lang ${source} not supported`, 400, { message: "Value for 'source_lang' not supported." });
    if (b.formality !== undefined) {
      if (!['default', 'more', 'less', 'prefer_more', 'prefer_less'].includes(String(b.formality))) throw new ShapeError('bad formality');
      if (!String(b.formality).startsWith('prefer') && b.formality !== 'default' && !FORMALITY.includes(target)) {
        throw new ShapeError(`formality not supported for ${target}`, 400, { message: "'formality' is not supported for given 'target_lang'." });
      }
    }
    let glossary: Glossary | undefined;
    if (b.glossary_id !== undefined) {
      if (!source) throw new ShapeError('glossary_id requires source_lang', 400, { message: "Use of a glossary requires the 'source_lang' parameter to be specified." });
      glossary = this.glossaries.get(String(b.glossary_id));
      if (!glossary) throw new ShapeError('unknown glossary', 404, { message: 'Glossary not found' });
      if (glossary.source_lang !== source.toLowerCase() || glossary.target_lang !== target.split('-')[0]!.toLowerCase()) {
        throw new ShapeError('glossary language pair does not match', 400, { message: "Glossary language pair doesn't match the requested language pair." });
      }
      if (!glossary.ready) throw new ShapeError('glossary not ready', 400, { message: 'Glossary is not ready yet.' });
    }
    const translations = (b.text as string[]).map((t) => {
      let text = t;
      for (const [s, d] of glossary?.entries ?? []) text = text.split(s).join(d);
      return { detected_source_language: source ?? 'EN', text: `${target}:${text}` };
    });
    return { json: { translations } };
  }

  private createGlossary(req: RecordedRequest): Reply {
    const b = req.json as Record<string, unknown> | undefined;
    if (!b) throw new ShapeError('glossaries expects a JSON body');
    for (const k of ['name', 'source_lang', 'target_lang', 'entries', 'entries_format']) {
      if (typeof b[k] !== 'string' || !b[k]) throw new ShapeError(`missing '${k}'`);
    }
    const s = String(b.source_lang);
    const t = String(b.target_lang);
    if (!GLOSSARY_LANGS.includes(s) || !GLOSSARY_LANGS.includes(t) || s === t) {
      throw new ShapeError(`unsupported glossary pair ${s}-${t}`, 400, { message: 'Unsupported glossary source and target language pair.' });
    }
    if (b.entries_format !== 'tsv') throw new ShapeError('entries_format must be tsv');
    const entries: Array<[string, string]> = [];
    for (const line of String(b.entries).split(/\r?\n/)) {
      if (!line) continue;
      const parts = line.split('\t');
      if (parts.length !== 2 || !parts[0]!.trim() || !parts[1]!.trim()) throw new ShapeError(`bad TSV entry: ${JSON.stringify(line)}`, 400, { message: 'Invalid glossary entries provided' });
      if (entries.some(([a]) => a === parts[0])) throw new ShapeError(`duplicate source entry ${parts[0]}`, 400, { message: 'Invalid glossary entries provided' });
      entries.push([parts[0]!, parts[1]!]);
    }
    const g: Glossary = {
      glossary_id: randomUUID(),
      name: String(b.name),
      ready: this.opts.notReadyChecks === 0,
      source_lang: s,
      target_lang: t,
      creation_time: new Date().toISOString(),
      entry_count: entries.length,
      entries,
    };
    this.glossaries.set(g.glossary_id, g);
    if (!g.ready) this.pendingChecks.set(g.glossary_id, this.opts.notReadyChecks);
    return { status: 201, json: pub(g) };
  }

  private glossaryStatus(id: string): Reply {
    const g = this.glossaries.get(id);
    if (!g) return { status: 404, json: { message: 'Glossary not found' } };
    const left = this.pendingChecks.get(id);
    if (left !== undefined) {
      if (left <= 1) {
        g.ready = true;
        this.pendingChecks.delete(id);
      } else this.pendingChecks.set(id, left - 1);
    }
    return { json: pub(g) };
  }

  private languages(req: RecordedRequest): Reply {
    const type = req.query.get('type') ?? 'source';
    if (type !== 'source' && type !== 'target') throw new ShapeError(`bad type ${type}`);
    const names = new Intl.DisplayNames(['en'], { type: 'language' });
    const list = type === 'source' ? SOURCES : TARGETS;
    return {
      json: list.map((l) => ({
        language: l,
        name: names.of(l.toLowerCase()) ?? l,
        ...(type === 'target' ? { supports_formality: FORMALITY.includes(l) } : {}),
      })),
    };
  }
}

function pub(g: Glossary) {
  const { entries: _e, ...rest } = g;
  return rest;
}
