// A word list typed or pasted by a user (one entry a line): the words speech recognition should know (issue 33).
// The same limits as the server's (contract/schemas/project.ts); the server checks them again.
import { ASR_WORD_MAX_CHARS, ASR_WORDS_MAX } from '../../contract/schemas/project';

export interface ParsedWordList {
  /** Entries trimmed, inner spaces as one, blanks and repeats (case-insensitive) dropped. */
  words: string[];
  /** Why the list cannot be saved, or null. */
  error: string | null;
}

export function parseWordList(text: string): ParsedWordList {
  const seen = new Set<string>();
  const words: string[] = [];
  for (const line of text.split(/\r?\n/)) {
    const w = line.trim().replace(/\s+/g, ' ');
    if (!w || seen.has(w.toLowerCase())) continue;
    seen.add(w.toLowerCase());
    words.push(w);
  }
  const long = words.find((w) => w.length > ASR_WORD_MAX_CHARS);
  const error =
    words.length > ASR_WORDS_MAX
      ? `At most ${ASR_WORDS_MAX} words (this list has ${words.length})`
      : long
        ? `Each line has at most ${ASR_WORD_MAX_CHARS} characters ("${long.slice(0, 20)}…" is longer)`
        : null;
  return { words, error };
}

/** The list as the text of a field (one entry a line). */
export const wordListText = (words: readonly string[]): string => words.join('\n');
