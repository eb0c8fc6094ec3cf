// CSV exports that stream: the header first, then one page of rows at a time (keyset pagination), so a large
// export never sits in memory whole and the first bytes leave before the last rows are read.
import { csvField } from './service';

export const CSV_PAGE_ROWS = 1000;

export interface CsvPage<C> {
  rows: unknown[][];
  /** Where the next page starts; null after the last page. */
  next: C | null;
}

const enc = new TextEncoder();
const line = (cells: readonly unknown[]) => `${cells.map(csvField).join(',')}\r\n`;

/** A byte stream of `header` and the pages `page(cursor)` returns, until it returns next: null. */
export function csvStream<C>(header: readonly string[], page: (cursor: C | null) => Promise<CsvPage<C>>): ReadableStream<Uint8Array> {
  let cursor: C | null = null;
  let started = false;
  let done = false;
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      if (!started) {
        started = true;
        controller.enqueue(enc.encode(line(header)));
        return;
      }
      if (done) {
        controller.close();
        return;
      }
      const p = await page(cursor);
      if (p.rows.length > 0) controller.enqueue(enc.encode(p.rows.map(line).join('')));
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
