// Dictionary terms a segment's translation lacks, on the text as edited now: the server says which terms the
// source holds (segment.terms.expected); the check of the translation is redone here as the user types.
import type { Segment } from '../../../../contract/schemas/project';

const escape = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

function contains(text: string, term: string): boolean {
  const t = term.trim();
  if (!t) return true;
  const body = t.split(/\s+/).map(escape).join('\\s+');
  return new RegExp(`(?<![\\p{L}\\p{N}_])${body}(?![\\p{L}\\p{N}_])`, 'iu').test(text);
}

/** The expected terms whose translation is not in `dstText`. */
export function missingTerms(terms: Segment['terms'], dstText: string): Array<{ source: string; target: string }> {
  if (!terms) return [];
  return terms.expected.filter((t) => !contains(dstText, t.target));
}

/**
 * Of the missing terms, those the translation engine could not apply (it said so when it translated: the grammar or
 * the engine left no place for them), as against terms a later edit took out.
 */
export function unappliedTerms(terms: Segment['terms'], missing: ReadonlyArray<{ source: string; target: string }>): Array<{ source: string; target: string }> {
  const engine = terms?.unapplied ?? [];
  return missing.filter((m) => engine.some((u) => u.source === m.source && u.target === m.target));
}
