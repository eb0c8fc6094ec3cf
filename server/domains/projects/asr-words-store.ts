// A project's word list for speech recognition (issue 33), as stored: cleaning, and reading the row of project_asr_words
// (its SQL in repository.ts).
// Kept apart from asr-words.ts (which checks who may) so that project creation can store the list in its own
// transaction without an import cycle.
import type { Db } from '../../db/index';
import { findAsrWords, upsertAsrWords } from './repository';

/** Trimmed, blank entries and repeats (case-insensitive) dropped, inner white space as one space. */
export function cleanWords(words: readonly string[]): string[] {
  const seen = new Set<string>();
  const out: string[] = [];
  for (const w of words) {
    const t = w.trim().replace(/\s+/g, ' ');
    const k = t.toLowerCase();
    if (!t || seen.has(k)) continue;
    seen.add(k);
    out.push(t);
  }
  return out;
}

export async function asrWordsOf(db: Db, projectId: string): Promise<string[]> {
  const stored = await findAsrWords(db, projectId);
  const w = typeof stored === 'string' ? (JSON.parse(stored) as unknown) : stored;
  return Array.isArray(w) ? w.filter((x): x is string => typeof x === 'string') : [];
}

/** Stores the project's list (cleaned) in place of the one it had; returns what was stored. */
export async function saveAsrWords(db: Db, projectId: string, words: readonly string[]): Promise<string[]> {
  const clean = cleanWords(words);
  await upsertAsrWords(db, projectId, clean);
  return clean;
}
