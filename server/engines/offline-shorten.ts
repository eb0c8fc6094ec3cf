// Offline shortening of a translated line (issue 29, "Length that fits"): the cheap rewrites that need no model,
// for the built-in MT and for the editor's Shorten without an LLM. Pure, no I/O. In order, each only while the
// line is over its budget (all of them when no budget is given):
//   1. contractions the language writes anyway ("de el" -> "del", "à le" -> "au", "em o" -> "no"...);
//   2. fillers that carry no meaning ("bueno,", "o sea", "en realidad", "eh"...);
//   3. wordy connectives with a shorter equivalent of the same meaning ("sin embargo" -> "pero");
//   4. parenthetical asides: "(...)", "[...]" and a pair of dashes " - ... - " inside the sentence.
// A rewrite never touches a dictionary term: any change overlapping a kept text (the glossary targets) is skipped.
//
// Synonyms from Apertium's dictionaries: the installed pairs (apertium-eng-spa, apertium-eng-cat) ship compiled
// transducers only (*.autobil.bin, *.autolex.bin) and no lttoolbox printer (lt-print/lt-expand) is installed, so
// the alternatives of the bilingual dictionary cannot be listed offline; the lexical-selection rules pick one
// translation by context, not by length. The shorter equivalents below are a short hand-written list instead.

export interface OfflineShortening {
  text: string;
  /** The rewrites that fired, in order (e.g. "contraction:del", "filler:o sea", "aside"). */
  rules: string[];
}

type Pair = readonly [from: string, to: string];

/** Contractions a language writes obligatorily or always may (whole words, case-insensitive, case kept). */
const CONTRACTIONS: Record<string, readonly Pair[]> = {
  es: [['de el', 'del'], ['a el', 'al']],
  ca: [['de el', 'del'], ['a el', 'al'], ['per el', 'pel'], ['de els', 'dels'], ['a els', 'als'], ['per els', 'pels']],
  fr: [['de le', 'du'], ['de les', 'des'], ['à le', 'au'], ['à les', 'aux']],
  pt: [
    ['de o', 'do'], ['de a', 'da'], ['de os', 'dos'], ['de as', 'das'], ['em o', 'no'], ['em a', 'na'], ['em os', 'nos'], ['em as', 'nas'],
    ['por o', 'pelo'], ['por a', 'pela'], ['a o', 'ao'], ['a os', 'aos'], ['a a', 'à'], ['em um', 'num'], ['em uma', 'numa'],
  ],
  it: [
    ['di il', 'del'], ['di lo', 'dello'], ['di la', 'della'], ['di i', 'dei'], ['di gli', 'degli'], ['di le', 'delle'],
    ['a il', 'al'], ['a lo', 'allo'], ['a la', 'alla'], ['a i', 'ai'], ['a gli', 'agli'], ['a le', 'alle'],
    ['in il', 'nel'], ['in la', 'nella'], ['in i', 'nei'], ['su il', 'sul'], ['su la', 'sulla'], ['da il', 'dal'], ['da la', 'dalla'],
  ],
  de: [['an dem', 'am'], ['in dem', 'im'], ['von dem', 'vom'], ['zu dem', 'zum'], ['zu der', 'zur'], ['in das', 'ins'], ['an das', 'ans']],
  en: [['do not', "don't"], ['does not', "doesn't"], ['is not', "isn't"], ['are not', "aren't"], ['cannot', "can't"], ['will not', "won't"], ['it is', "it's"], ['that is', "that's"]],
};

/** Fillers: spoken words that add no meaning (dropped with the comma that goes with them). */
const FILLERS: Record<string, readonly string[]> = {
  es: ['bueno', 'bien', 'pues', 'o sea', 'en realidad', 'realmente', 'básicamente', 'simplemente', 'de hecho', 'la verdad es que', 'eh', 'digamos', 'por así decirlo', 'en fin'],
  ca: ['bé', 'doncs', 'o sigui', 'en realitat', 'realment', 'bàsicament', 'simplement', 'de fet', 'eh', 'diguem'],
  fr: ['bon', 'ben', 'euh', 'en fait', 'vraiment', 'en gros', 'du coup', 'genre', 'quoi', 'disons', 'tout simplement'],
  pt: ['bem', 'bom', 'tipo', 'na verdade', 'realmente', 'basicamente', 'simplesmente', 'de fato', 'né', 'digamos', 'então'],
  it: ['allora', 'cioè', 'insomma', 'in realtà', 'davvero', 'praticamente', 'semplicemente', 'diciamo', 'ecco', 'beh', 'ehm'],
  de: ['also', 'naja', 'eigentlich', 'halt', 'eben', 'sozusagen', 'quasi', 'ähm', 'äh'],
  en: ['well', 'you know', 'i mean', 'basically', 'actually', 'really', 'just', 'kind of', 'sort of', 'um', 'uh'],
};

/** Wordy connectives and their shorter equivalents (same meaning, same register); '^': only opening a sentence. */
const SHORTER: Record<string, readonly Pair[]> = {
  es: [
    ['^sin embargo', 'pero'], ['a pesar de que', 'aunque'], ['en este momento', 'ahora'], ['en la actualidad', 'hoy'], ['por lo tanto', 'así que'],
    ['con el fin de', 'para'], ['a fin de', 'para'], ['debido a que', 'porque'], ['de nuevo', 'otra vez'],
    ['una gran cantidad de', 'mucho'], ['en relación con', 'sobre'], ['con respecto a', 'sobre'], ['a continuación', 'luego'],
    ['en primer lugar', 'primero'], ['al mismo tiempo', 'a la vez'], ['es decir', 'o sea'], ['tiene que', 'debe'], ['tienen que', 'deben'],
  ],
  ca: [['^tanmateix', 'però'], ['malgrat que', 'encara que'], ['en aquest moment', 'ara'], ['per tant', 'així'], ['amb la finalitat de', 'per'], ['a causa que', 'perquè']],
  fr: [['^cependant', 'mais'], ['bien que', 'quoique'], ['en ce moment', 'maintenant'], ['à l’heure actuelle', 'aujourd’hui'], ['afin de', 'pour'], ['par conséquent', 'donc']],
  pt: [['^no entanto', 'mas'], ['apesar de que', 'embora'], ['neste momento', 'agora'], ['por isso', 'então'], ['a fim de', 'para'], ['devido a', 'por']],
  it: [['^tuttavia', 'ma'], ['nonostante che', 'benché'], ['in questo momento', 'ora'], ['al fine di', 'per'], ['a causa di', 'per'], ['per questo motivo', 'perciò']],
  de: [['^allerdings', 'aber'], ['in diesem Moment', 'jetzt'], ['aus diesem Grund', 'daher']],
  en: [['in order to', 'to'], ['at this point in time', 'now'], ['due to the fact that', 'because'], ['a large number of', 'many'], ['^however', 'but']],
};

const baseLang = (lang: string) => lang.toLowerCase().split(/[-_]/)[0]!;
const escape = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
const W = '[\\p{L}\\p{N}_]';

/** Spans of `text` the rewrites must not touch: every occurrence of a kept text (case-insensitive). */
function keptSpans(text: string, keep: readonly string[]): Array<[number, number]> {
  const out: Array<[number, number]> = [];
  const lower = text.toLowerCase();
  for (const k of keep) {
    const t = k.trim().toLowerCase();
    if (!t) continue;
    for (let at = lower.indexOf(t); at >= 0; at = lower.indexOf(t, at + 1)) out.push([at, at + t.length]);
  }
  return out;
}

const overlaps = (spans: ReadonlyArray<[number, number]>, a: number, b: number) => spans.some(([x, y]) => a < y && x < b);

/** `to` with the case of `from`'s first letter (Sin embargo -> Pero; DE EL -> DEL). */
function withCase(from: string, to: string): string {
  if (from.length > 1 && from === from.toUpperCase() && from !== from.toLowerCase()) return to.toUpperCase();
  const f = from.charAt(0);
  return f !== f.toLowerCase() ? to.charAt(0).toUpperCase() + to.slice(1) : to;
}

/** Spacing and punctuation left tidy after words were dropped. */
function tidy(text: string, capitalise: boolean): string {
  let t = text
    .replace(/\s+/g, ' ')
    .replace(/\s+([,.;:!?…)\]])/g, '$1')
    .replace(/([(¿¡[])\s+/g, '$1')
    .replace(/,(\s*,)+/g, ',')
    .replace(/([¿¡])\s*,\s*/g, '$1')
    .replace(/,\s*([.;:!?…])/g, '$1')
    .replace(/^[\s,;:]+/, '')
    .trim();
  if (capitalise) t = t.replace(/^([¿¡"«]?)(\p{Ll})/u, (_, p: string, c: string) => p + c.toUpperCase());
  return t;
}

interface Step {
  apply(text: string, keep: readonly string[]): { text: string; fired: string[] };
}

/**
 * Replaces each whole-word, case-insensitive occurrence of `from` (spaces tolerant) outside the kept texts. A `from`
 * starting with '^' matches only opening a sentence, and takes the comma after it ("Sin embargo, ..." -> "Pero ...").
 */
function replaceWords(text: string, from: string, to: string, keep: readonly string[]): { text: string; n: number } {
  const start = from.startsWith('^');
  const body = from.replace(/^\^/, '').split(/\s+/).map(escape).join('\\s+');
  const re = start
    ? new RegExp(`(?:^|(?<=[.!?…]\\s+|[¿¡]))${body}(?!${W}),?`, 'giu')
    : new RegExp(`(?<!${W})${body}(?!${W})`, 'giu');
  const kept = keptSpans(text, keep);
  let n = 0;
  const out = text.replace(re, (m: string, at: number) => {
    if (overlaps(kept, at, at + m.length)) return m;
    n++;
    return withCase(m, to);
  });
  return { text: out, n };
}

/** Applies a list of replacements one after the other (kept spans found again on each new text). */
function replaceAll(pairs: readonly Pair[], tag: (p: Pair) => string): Step {
  return {
    apply(text, keep) {
      const fired: string[] = [];
      let t = text;
      for (const p of pairs) {
        const r = replaceWords(t, p[0], p[1], keep);
        if (r.n) fired.push(tag(p));
        t = r.text;
      }
      return { text: t, fired };
    },
  };
}

function steps(lang: string): Step[] {
  const d = baseLang(lang);
  const fillers = [...(FILLERS[d] ?? [])].sort((a, b) => b.length - a.length);
  return [
    replaceAll(CONTRACTIONS[d] ?? [], (p) => `contraction:${p[1]}`),
    {
      apply(text, keep) {
        const fired: string[] = [];
        let t = text;
        for (const f of fillers) {
          // a filler set off by commas, or opening/closing the sentence with one: ", bueno," / "Bueno, " / ", eh."
          const body = f.split(/\s+/).map(escape).join('\\s+');
          const re = new RegExp(`(^|[,;¿¡]\\s*|(?<=[.!?…]\\s))${body}(?!${W})\\s*(,|(?=[.!?…;]|$))`, 'giu');
          const kept = keptSpans(t, keep);
          let n = 0;
          t = t.replace(re, (m: string, lead: string, comma: string, at: number) => {
            if (overlaps(kept, at, at + m.length)) return m;
            n++;
            const l = lead.trim();
            // a filler opening a sentence goes only with its comma ("Bien." alone is an answer, not a filler)
            if (!comma && (l === '' || l === '¿' || l === '¡')) return m;
            if (l === '¿' || l === '¡') return l;
            // "hoy, o sea, ahora" -> "hoy, ahora" (one comma stays: two clauses never run together);
            // "Bueno, vamos" -> "vamos"; ", eh." -> "."; a ';' before it stays
            if (l === ';') return '; ';
            if (l === ',' && comma) return ', ';
            return comma ? ' ' : '';
          });
          if (n) fired.push(`filler:${f}`);
        }
        return { text: t, fired };
      },
    },
    replaceAll(SHORTER[d] ?? [], (p) => `shorter:${p[0].replace(/^\^/, '')}`),
    {
      apply(text, keep) {
        const kept = keptSpans(text, keep);
        let n = 0;
        const drop = (m: string, at: number) => {
          if (overlaps(kept, at, at + m.length)) return m;
          n++;
          return ' ';
        };
        let t = text.replace(/\s*\([^()]{1,200}\)/g, drop);
        t = t.replace(/\s*\[[^[\]]{1,200}\]/g, drop);
        // " – an aside – " / " -- an aside -- " between two dashes inside the sentence
        t = t.replace(/\s+(?:—|–|--?)\s+[^—–]{1,200}?\s+(?:—|–|--?)(?=\s)/g, drop);
        return { text: t, fired: n ? ['aside'] : [] };
      },
    },
  ];
}

/**
 * Shortens `text` (in `lang`) with the offline rewrites, step by step while it is longer than `budget` characters
 * (every step when no budget). `keep`: texts never changed (dictionary terms' targets). The result may still be
 * over budget: these rewrites only remove what carries no meaning.
 */
export function shortenOffline(text: string, lang: string, o: { budget?: number; keep?: readonly string[] } = {}): OfflineShortening {
  const original = text.trim();
  const capitalise = /^[¿¡"«]?\p{Lu}/u.test(original);
  let cur = original;
  const rules: string[] = [];
  const keep = (o.keep ?? []).filter((k) => k.trim());
  for (const step of steps(lang)) {
    if (o.budget !== undefined && cur.length <= o.budget) break;
    const r = step.apply(cur, keep);
    const next = tidy(r.text, capitalise);
    // never lose a kept term (a rewrite next to it could have changed its spelling or case)
    const lost = keep.some((k) => original.toLowerCase().includes(k.trim().toLowerCase()) && !next.toLowerCase().includes(k.trim().toLowerCase()));
    if (lost || !next || next.length >= cur.length) continue;
    cur = next;
    rules.push(...r.fired);
  }
  return { text: cur, rules };
}
