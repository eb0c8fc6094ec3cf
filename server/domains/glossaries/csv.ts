// Dictionary CSV import and export (papaparse). Columns: source, target, do_not_translate, case_sensitive,
// pronunciation; a header row naming them is optional (without one the columns are taken in that order).
// The file must be UTF-8 (a BOM is fine) or UTF-16 with a BOM; anything else is refused with a clear error.
import Papa from 'papaparse';
import { csvText } from '../../csv';
import * as v from 'valibot';
import { GLOSSARY_CSV_COLUMNS, GlossaryEntryInput, type GlossaryEntry } from '../../../contract/schemas/glossary';

export const NOT_UTF8 = 'The file is not UTF-8 text. Save it as "CSV UTF-8 (comma delimited)" and import it again';
export const NOT_CSV = 'The file is not a CSV text file';

export class CsvFileError extends Error {}

/** Bytes -> text: UTF-16 with a BOM, else strict UTF-8 (BOM dropped). Throws CsvFileError otherwise. */
export function decodeCsv(bytes: Uint8Array): string {
  let text: string;
  try {
    if (bytes[0] === 0xff && bytes[1] === 0xfe) text = new TextDecoder('utf-16le', { fatal: true }).decode(bytes.subarray(2));
    else if (bytes[0] === 0xfe && bytes[1] === 0xff) text = new TextDecoder('utf-16be', { fatal: true }).decode(bytes.subarray(2));
    else text = new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    throw new CsvFileError(NOT_UTF8);
  }
  if (text.includes('\u0000')) throw new CsvFileError(NOT_CSV);
  return text.replace(/^\uFEFF/, '');
}

const TRUE = new Set(['true', 'yes', 'y', '1', 'x']);
const FALSE = new Set(['', 'false', 'no', 'n', '0']);

function flag(raw: string | undefined, name: string): boolean {
  const s = (raw ?? '').trim().toLowerCase();
  if (TRUE.has(s)) return true;
  if (FALSE.has(s)) return false;
  throw new Error(`${name} must be true or false, not "${raw}"`);
}

export interface CsvRow {
  line: number;
  entry: GlossaryEntry;
}

export interface ParsedCsv {
  rows: CsvRow[];
  errors: Array<{ line: number; msg: string }>;
  /** More than `maxRows` rows hold an entry (parsing stopped there). */
  tooMany: boolean;
}

/**
 * Rows that hold an entry, and the rows refused with their 1-based line in the file. Linear in the file's size
 * (line numbers counted incrementally); stops once `maxRows` is passed.
 */
export function parseGlossaryCsv(text: string, maxRows = Infinity): ParsedCsv {
  let tooMany = false;
  const rows: CsvRow[] = [];
  const errors: Array<{ line: number; msg: string }> = [];
  let columns: string[] = [...GLOSSARY_CSV_COLUMNS];
  let first = true;
  let prevCursor = 0;
  let lineAt = 1; // line where the next row starts
  Papa.parse<string[]>(text, {
    skipEmptyLines: false,
    step: (r, parser) => {
      const line = lineAt;
      const end = r.meta.cursor;
      lineAt += countLineBreaks(text, prevCursor, end);
      prevCursor = end;
      if (rows.length > maxRows) {
        tooMany = true;
        parser.abort();
        return;
      }
      const cells = r.data;
      if (cells.every((c) => c.trim() === '')) return;
      if (first) {
        first = false;
        const names = cells.map((c) => c.trim().toLowerCase().replace(/[\s-]+/g, '_'));
        if (names.includes('source') || names.includes('term')) {
          columns = names.map((n) => (n === 'term' ? 'source' : n === 'translation' ? 'target' : n));
          return;
        }
      }
      const get = (k: string) => {
        const i = columns.indexOf(k);
        return i >= 0 ? cells[i] : undefined;
      };
      try {
        const parsed = v.safeParse(GlossaryEntryInput, {
          source: get('source') ?? '',
          target: get('target') ?? '',
          do_not_translate: flag(get('do_not_translate'), 'do_not_translate'),
          case_sensitive: flag(get('case_sensitive'), 'case_sensitive'),
          pronunciation: (get('pronunciation') ?? '').trim() || null,
        });
        if (!parsed.success) throw new Error(parsed.issues[0].message);
        const e = parsed.output;
        if (!e.do_not_translate && e.target === '') throw new Error(`The translation of "${e.source}" is empty`);
        rows.push({ line, entry: e });
      } catch (err) {
        errors.push({ line, msg: (err as Error).message });
      }
    },
  });
  return { rows, errors, tooMany };
}

/** Line breaks (\r\n, \r or \n) in text[from, to), without copying it. */
function countLineBreaks(text: string, from: number, to: number): number {
  let n = 0;
  for (let i = from; i < to; i++) {
    const c = text.charCodeAt(i);
    if (c === 10) n++;
    else if (c === 13) {
      n++;
      if (text.charCodeAt(i + 1) === 10 && i + 1 < to) i++;
    }
  }
  return n;
}

/** A CSV file parsed (decode + parse): what the import's worker thread runs (csv-thread.mjs). */
export function parseCsvFile(bytes: Uint8Array, maxRows: number): ParsedCsv | { fileError: string } {
  try {
    return parseGlossaryCsv(decodeCsv(bytes), maxRows);
  } catch (e) {
    if (e instanceof CsvFileError) return { fileError: e.message };
    throw e;
  }
}

/** The dictionary as CSV (UTF-8 with a BOM so spreadsheet programs read accents right), header first; cells by the shared writer. */
export function glossaryCsv(entries: readonly GlossaryEntry[]): string {
  return csvText(
    [[...GLOSSARY_CSV_COLUMNS], ...entries.map((e) => [e.source, e.target, e.do_not_translate ? 'true' : 'false', e.case_sensitive ? 'true' : 'false', e.pronunciation ?? ''])],
    { bom: true },
  );
}
