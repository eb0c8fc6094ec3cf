// A project's word list for speech recognition (issue 33), as stored: cleaning and the row of project_asr_words.
// Kept apart from asr-words.ts (which checks who may) so that project creation can store the list in its own
// transaction without an import cycle.
import type { Db } from '../../db/index';

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
  const r = await db.maybeOne<{ words: unknown }>(`SELECT words FROM project_asr_words WHERE project_id = $1`, [projectId]);
  const w = typeof r?.words === 'string' ? (JSON.parse(r.words) as unknown) : r?.words;
  return Array.isArray(w) ? w.filter((x): x is string => typeof x === 'string') : [];
}

/** Stores the project's list (cleaned) in place of the one it had; returns what was stored. */
export async function saveAsrWords(db: Db, projectId: string, words: readonly string[]): Promise<string[]> {
  const clean = cleanWords(words);
  await db.query(
    `INSERT INTO project_asr_words (project_id, words, updated_at) VALUES ($1, $2::jsonb, now())
     ON CONFLICT (project_id) DO UPDATE SET words = EXCLUDED.words, updated_at = now()`,
    [projectId, JSON.stringify(clean)],
  );
  return clean;
}
