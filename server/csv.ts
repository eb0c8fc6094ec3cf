// THE CSV writer of every export (dictionary, admin users / feedback / survey, quality report): one cell rule
// (quoted when needed; text a spreadsheet would run as a formula is kept as text), whole files (csvText) and
// exports that stream: the header first, then one page of rows at a time (keyset pagination), so a large
// export never sits in memory whole and the first bytes leave before the last rows are read.

/**
 * One CSV cell: empty for null, lists joined with "; ", numbers as written; text starting with = + - @ or a tab
 * or carriage return (a spreadsheet formula) is neutralised with a leading quote; quoted when it holds , " ' or
 * a line break.
 */
export function csvCell(value: unknown): string {
  if (typeof value === 'number' || typeof value === 'bigint') return String(value);
  let s = value === null || value === undefined ? '' : Array.isArray(value) ? value.join('; ') : String(value);
  if (/^[=+\-@\t\r]/.test(s)) s = `'${s}`;
  return /[",\r\n']/.test(s) ? `"${s.replace(/"/g, '""')}"` : s;
}

/** One CSV line (CRLF-terminated). */
export const csvLine = (cells: readonly unknown[]) => `${cells.map(csvCell).join(',')}\r\n`;

/** A whole CSV file of `rows` (the header is a row too), optionally with a UTF-8 BOM for spreadsheet programs. */
export function csvText(rows: ReadonlyArray<readonly unknown[]>, o: { bom?: boolean } = {}): string {
  return (o.bom ? '\uFEFF' : '') + rows.map(csvLine).join('');
}

export const CSV_PAGE_ROWS = 1000;

export interface CsvPage<C> {
  rows: unknown[][];
  /** Where the next page starts; null after the last page. */
  next: C | null;
}

const enc = new TextEncoder();

/** A byte stream of `header` and the pages `page(cursor)` returns, until it returns next: null. */
export function csvStream<C>(header: readonly string[], page: (cursor: C | null) => Promise<CsvPage<C>>): ReadableStream<Uint8Array> {
  let cursor: C | null = null;
  let started = false;
  let done = false;
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      if (!started) {
        started = true;
        controller.enqueue(enc.encode(csvLine(header)));
        return;
      }
      if (done) {
        controller.close();
        return;
      }
      const p = await page(cursor);
      if (p.rows.length > 0) controller.enqueue(enc.encode(p.rows.map(csvLine).join('')));
      cursor = p.next;
      if (p.next === null) {
        done = true;
        controller.close();
      }
    },
  });
}

export function csvHeaders(filename: string): Record<string, string> {
  return {
    'content-type': 'text/csv; charset=utf-8',
    'content-disposition': `attachment; filename="${filename}"`,
    'cache-control': 'no-store',
  };
}
