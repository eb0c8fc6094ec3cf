// Pure dictionary checks on text (no I/O), shared by the translation stage, the transcript answers, the
// voiceover (pronunciations) and the quality report:
// - termsFor: the MT engines' view of the entries (a "do not translate" term's target is the term itself);
// - checkSegmentTerms: which terms a segment's source holds (expected) and which of their translations its
//   target holds (found), so a segment with a missing term can be marked;
// - applyPronunciations: the target text with each term's pronunciation in its place, for the voice only.
import type { GlossaryEntry } from '../../../contract/schemas/glossary';

export type TermEntry = Pick<GlossaryEntry, 'source' | 'target'> & Partial<Omit<GlossaryEntry, 'source' | 'target'>>;

export interface TermHit {
  source: string;
  /** The text expected in the translation (the term itself when it is not translated). */
  target: string;
}

export interface SegmentTermCheck {
  expected: TermHit[];
  found: TermHit[];
  missing: TermHit[];
}

const escape = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** A whole-word, whitespace-tolerant matcher of `term` (case-insensitive unless `caseSensitive`). */
function matcher(term: string, caseSensitive: boolean, global = false): RegExp | null {
  const t = term.trim();
  if (!t) return null;
  const body = t.split(/\s+/).map(escape).join('\\s+');
  return new RegExp(`(?<![\\p{L}\\p{N}_])${body}(?![\\p{L}\\p{N}_])`, `u${caseSensitive ? '' : 'i'}${global ? 'g' : ''}`);
}

/** The text a term must appear as in the translation. */
export function expectedTarget(e: TermEntry): string {
  return (e.do_not_translate || !e.target.trim() ? e.source : e.target).trim();
}

/** Entries as the MT engines take them ({source, target}), "do not translate" terms mapped to themselves. */
export function termsFor(entries: readonly TermEntry[]): Array<{ source: string; target: string }> {
  return entries.filter((e) => e && typeof e.source === 'string' && e.source.trim()).map((e) => ({ source: e.source.trim(), target: expectedTarget(e) }));
}

/** Does `text` contain `term` as a whole word? */
export function containsTerm(text: string, term: string, caseSensitive = false): boolean {
  return matcher(term, caseSensitive)?.test(text) ?? false;
}

/** Expected, found and missing dictionary terms of one segment. */
export function checkSegmentTerms(src: string, dst: string, entries: readonly TermEntry[]): SegmentTermCheck {
  const expected: TermHit[] = [];
  const found: TermHit[] = [];
  const missing: TermHit[] = [];
  for (const e of entries) {
    if (!e?.source?.trim() || !containsTerm(src, e.source, !!e.case_sensitive)) continue;
    const hit = { source: e.source.trim(), target: expectedTarget(e) };
    expected.push(hit);
    // The translation is compared case-insensitively unless the term is case-sensitive (sentence starts).
    if (containsTerm(dst, hit.target, !!e.case_sensitive)) found.push(hit);
    else missing.push(hit);
  }
  return { expected, found, missing };
}

/** The target text with the pronunciation of each term that has one (longest terms first), for TTS only. */
export function applyPronunciations(text: string, entries: readonly TermEntry[]): string {
  const withSay = entries
    .filter((e) => e?.pronunciation?.trim() && expectedTarget(e))
    .sort((a, b) => expectedTarget(b).length - expectedTarget(a).length);
  let out = text;
  for (const e of withSay) {
    const re = matcher(expectedTarget(e), !!e.case_sensitive, true);
    if (re) out = out.replace(re, e.pronunciation!.trim());
  }
  return out;
}
