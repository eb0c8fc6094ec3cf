// The Dictionary (glossaries, spec section 7): /api/glossary. A glossary belongs to a Teamspace, has a name, a
// source and a target language and its entries (terms).
import * as v from 'valibot';

/** Longest term, translation or pronunciation (characters). */
export const GLOSSARY_MAX_TERM = 200;
/** Most entries in one dictionary (and rows in one CSV import: a larger file is refused with a 422). */
export const GLOSSARY_MAX_ENTRIES = 200_000;
/** Largest CSV file the import accepts (bytes). */
export const GLOSSARY_CSV_MAX_BYTES = 8 * 1024 * 1024;
/** The 422 message of an import that would take a dictionary past GLOSSARY_MAX_ENTRIES terms. */
export const glossaryTooLarge = (n: number) =>
  `A dictionary holds at most ${GLOSSARY_MAX_ENTRIES.toLocaleString('en-US')} terms: this import would make it ${n.toLocaleString('en-US')}. Split the file or remove terms first`;
export const GLOSSARY_MAX_NAME = 120;

const Lang = v.pipe(
  v.string('The language must be a string'),
  v.trim(),
  v.toLowerCase(),
  v.regex(/^[a-z]{2,3}([-_][a-z0-9]{2,8})?$/, 'The language must be a code such as "en" or "es"'),
);

const Term = (what: string) =>
  v.pipe(
    v.string(`The ${what} must be a string`),
    v.trim(),
    v.maxLength(GLOSSARY_MAX_TERM, `The ${what} is too long: at most ${GLOSSARY_MAX_TERM} characters`),
    v.regex(/^[^\r\n\t]*$/, `The ${what} must be on one line`),
  );

export const GlossaryEntryInput = v.object({
  source: v.pipe(Term('term'), v.nonEmpty('The term is empty')),
  /** Required unless do_not_translate (then the term itself is kept). */
  target: v.optional(Term('translation'), ''),
  do_not_translate: v.optional(v.boolean('do_not_translate must be true or false'), false),
  case_sensitive: v.optional(v.boolean('case_sensitive must be true or false'), false),
  /** How the voice should say the target term (written as it sounds), optional. */
  pronunciation: v.optional(v.nullable(Term('pronunciation')), null),
});
export type GlossaryEntryInput = v.InferInput<typeof GlossaryEntryInput>;
export type GlossaryEntry = v.InferOutput<typeof GlossaryEntryInput>;

const norm = (s: string) => s.trim().replace(/\s+/g, ' ');

/** Two entries are the same term: equal ignoring case, unless both are case-sensitive and spelled differently. */
export function sameTerm(a: Pick<GlossaryEntry, 'source' | 'case_sensitive'>, b: Pick<GlossaryEntry, 'source' | 'case_sensitive'>): boolean {
  const x = norm(a.source);
  const y = norm(b.source);
  if (x.toLowerCase() !== y.toLowerCase()) return false;
  return !(a.case_sensitive && b.case_sensitive && x !== y);
}

/**
 * Rules across entries (index -> message): a translation is needed unless the term is kept as it is, and a term
 * appears once.
 */
export function entryProblems(entries: readonly GlossaryEntry[]): Array<{ index: number; field: 'source' | 'target'; msg: string }> {
  const out: Array<{ index: number; field: 'source' | 'target'; msg: string }> = [];
  const groups = new Map<string, GlossaryEntry[]>();
  entries.forEach((e, i) => {
    if (!e.do_not_translate && e.target.trim() === '') out.push({ index: i, field: 'target', msg: `The translation of "${e.source}" is empty` });
    const low = norm(e.source).toLowerCase();
    const group = groups.get(low) ?? [];
    if (group.some((o) => sameTerm(o, e))) out.push({ index: i, field: 'source', msg: `The term "${e.source}" is already in the dictionary` });
    else groups.set(low, [...group, e]);
  });
  return out;
}

const Entries = v.pipe(
  v.array(GlossaryEntryInput, 'entries must be a list'),
  v.maxLength(GLOSSARY_MAX_ENTRIES, `A dictionary holds at most ${GLOSSARY_MAX_ENTRIES} terms`),
);

const Name = v.pipe(
  v.string('The name must be a string'),
  v.trim(),
  v.nonEmpty('Field is required'),
  v.maxLength(GLOSSARY_MAX_NAME, `The name is too long: at most ${GLOSSARY_MAX_NAME} characters`),
);

export const CreateGlossaryRequest = v.pipe(
  v.object({
    name: Name,
    source_lang: Lang,
    target_lang: Lang,
    entries: v.optional(Entries, []),
  }),
  v.check((b) => b.source_lang !== b.target_lang, 'The source and target languages must differ'),
);
export type CreateGlossaryRequest = v.InferInput<typeof CreateGlossaryRequest>;

export const UpdateGlossaryRequest = v.object({
  name: v.optional(Name),
  entries: v.optional(Entries),
});
export type UpdateGlossaryRequest = v.InferInput<typeof UpdateGlossaryRequest>;

export const Glossary = v.object({
  id: v.string(),
  glossary_id: v.string(),
  space_id: v.string(),
  name: v.string(),
  source_lang: v.string(),
  target_lang: v.string(),
  entries_count: v.number(),
  /** Absent in lists (GET /api/glossary); present in GET {id}, POST and PATCH answers. */
  entries: v.optional(v.array(v.object({
    source: v.string(), target: v.string(), do_not_translate: v.boolean(), case_sensitive: v.boolean(), pronunciation: v.nullable(v.string()),
  }))),
  created_at: v.string(),
  updated_at: v.string(),
});
export type Glossary = v.InferOutput<typeof Glossary>;

/** POST /api/glossary/{id}/import: rows added or updated, rows refused (1-based line numbers of the file). */
/** DELETE /api/glossary: the dictionary that was deleted. */
export const GlossaryDeleted = v.object({ glossary_id: v.string(), status: v.literal('deleted') });
export const GlossaryImportResult = v.object({
  added: v.number(),
  updated: v.number(),
  errors: v.array(v.object({ line: v.number(), msg: v.string() })),
  glossary: Glossary,
});
export type GlossaryImportResult = v.InferOutput<typeof GlossaryImportResult>;

/** Columns of the CSV export and import (header row). */
export const GLOSSARY_CSV_COLUMNS = ['source', 'target', 'do_not_translate', 'case_sensitive', 'pronunciation'] as const;
