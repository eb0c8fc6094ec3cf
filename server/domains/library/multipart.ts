// A streaming multipart/form-data reader: the file part goes straight to disk (bounded by a size limit),
// other fields are kept as short strings. Large videos never sit in memory.
import { createWriteStream, type WriteStream } from 'node:fs';
import { rm } from 'node:fs/promises';

export class MultipartError extends Error {
  override readonly name = 'MultipartError';
  constructor(message: string, readonly status: 400 | 413 | 415 = 400) {
    super(message);
  }
}

export interface MultipartFile {
  field: string;
  filename: string;
  contentType: string | null;
  size: number;
  path: string;
}

export interface MultipartResult {
  fields: Record<string, string>;
  file: MultipartFile | null;
}

function boundaryOf(contentType: string | undefined): string {
  const ct = contentType ?? '';
  if (!/^multipart\/form-data/i.test(ct)) throw new MultipartError('Expected a multipart/form-data body', 415);
  const m = /boundary=(?:"([^"]+)"|([^;\s]+))/i.exec(ct);
  const b = m?.[1] ?? m?.[2];
  if (!b || b.length > 200) throw new MultipartError('The multipart body has no boundary');
  return b;
}

function parseHeaders(block: string): { name: string | null; filename: string | null; contentType: string | null } {
  let name: string | null = null;
  let filename: string | null = null;
  let contentType: string | null = null;
  for (const line of block.split('\r\n')) {
    const i = line.indexOf(':');
    if (i < 0) continue;
    const k = line.slice(0, i).trim().toLowerCase();
    const v = line.slice(i + 1).trim();
    if (k === 'content-disposition') {
      name = /\bname="([^"]*)"/i.exec(v)?.[1] ?? /\bname=([^;\s]+)/i.exec(v)?.[1] ?? null;
      const star = /\bfilename\*=(?:UTF-8'')?([^;]+)/i.exec(v)?.[1];
      filename = star ? safeDecode(star.replace(/^"|"$/g, '')) : (/\bfilename="([^"]*)"/i.exec(v)?.[1] ?? /\bfilename=([^;\s]+)/i.exec(v)?.[1] ?? null);
    } else if (k === 'content-type') {
      contentType = v;
    }
  }
  return { name, filename, contentType };
}
function safeDecode(s: string): string {
  try {
    return decodeURIComponent(s);
  } catch {
    return s;
  }
}

function writeChunk(ws: WriteStream, chunk: Buffer): Promise<void> {
  return new Promise((resolve) => {
    if (ws.write(chunk)) return resolve();
    const done = () => {
      ws.off('drain', done);
      ws.off('error', done);
      resolve();
    };
    ws.on('drain', done);
    ws.on('error', done);
  });
}
function endStream(ws: WriteStream): Promise<void> {
  return new Promise((resolve, reject) => {
    ws.once('error', reject);
    ws.once('close', () => resolve());
    ws.end();
  });
}

/**
 * Reads a multipart body. The part named `fileField` is written to `destPath` (at most `maxBytes`, else a
 * 413 MultipartError); other parts become fields (at most 64 KiB each). A missing file part gives file null.
 */
export async function readMultipart(
  body: ReadableStream<Uint8Array> | null,
  contentType: string | undefined,
  o: { fileField: string; destPath: string; maxBytes: number; maxSizeText?: string },
): Promise<MultipartResult> {
  const boundary = boundaryOf(contentType);
  if (!body) throw new MultipartError('The request has no body');
  const delim = Buffer.from(`\r\n--${boundary}`);
  const fields: Record<string, string> = {};
  let file: MultipartFile | null = null;
  let ws: WriteStream | null = null;
  let writeError: Error | null = null;

  // "\r\n" first, so the opening boundary looks like every other delimiter.
  let buf: Buffer = Buffer.from('\r\n');
  type State = 'preamble' | 'afterDelim' | 'headers' | 'body' | 'done';
  let state: State = 'preamble';
  let part: { name: string | null; filename: string | null; contentType: string | null } | null = null;
  let fieldChunks: Buffer[] = [];
  let fieldSize = 0;

  const sink = async (chunk: Buffer) => {
    if (chunk.length === 0 || !part) return;
    if (part.name === o.fileField && part.filename !== null && ws && file) {
      file.size += chunk.length;
      if (file.size > o.maxBytes) throw new MultipartError(`File is too large (the limit is ${o.maxSizeText ?? `${o.maxBytes} bytes`})`, 413);
      if (writeError) throw writeError;
      await writeChunk(ws, chunk);
    } else {
      fieldSize += chunk.length;
      if (fieldSize > 64 * 1024) throw new MultipartError(`Field ${part.name ?? ''} is too long`, 413);
      fieldChunks.push(chunk);
    }
  };
  const closePart = async () => {
    if (!part) return;
    if (part.name === o.fileField && part.filename !== null && ws) {
      await endStream(ws);
      ws = null;
      if (writeError) throw writeError;
    } else if (part.name) {
      fields[part.name] = Buffer.concat(fieldChunks).toString('utf8');
    }
    part = null;
    fieldChunks = [];
    fieldSize = 0;
  };

  const reader = body.getReader();
  try {
    for (;;) {
      const { value, done } = await reader.read();
      if (value && value.length) buf = buf.length ? Buffer.concat([buf, Buffer.from(value)]) : Buffer.from(value);
      // Process as much of buf as possible.
      for (;;) {
        if (state === 'preamble') {
          const i = buf.indexOf(delim);
          if (i < 0) {
            if (buf.length > delim.length) buf = buf.subarray(buf.length - delim.length);
            break;
          }
          buf = buf.subarray(i + delim.length);
          state = 'afterDelim';
        } else if (state === 'afterDelim') {
          if (buf.length < 2) break;
          if (buf[0] === 0x2d && buf[1] === 0x2d) {
            state = 'done';
            break;
          }
          // skip transport padding then CRLF
          const nl = buf.indexOf('\r\n');
          if (nl < 0) break;
          buf = buf.subarray(nl + 2);
          state = 'headers';
        } else if (state === 'headers') {
          const end = buf.indexOf('\r\n\r\n');
          if (end < 0) {
            if (buf.length > 16 * 1024) throw new MultipartError('Multipart part headers are too long');
            break;
          }
          part = parseHeaders(buf.subarray(0, end).toString('utf8'));
          buf = buf.subarray(end + 4);
          if (part.name === o.fileField && part.filename !== null) {
            if (file) throw new MultipartError(`Only one file may be sent in the field ${o.fileField}`);
            file = { field: o.fileField, filename: part.filename, contentType: part.contentType, size: 0, path: o.destPath };
            ws = createWriteStream(o.destPath);
            // Errors surface through writeChunk/endStream; a late one after destroy() is ignored.
            ws.on('error', (e) => {
              writeError ??= e;
            });
          }
          state = 'body';
        } else if (state === 'body') {
          const i = buf.indexOf(delim);
          if (i >= 0) {
            await sink(buf.subarray(0, i));
            buf = buf.subarray(i + delim.length);
            await closePart();
            state = 'afterDelim';
          } else {
            // Keep a tail that could be the start of a split delimiter.
            const keep = delim.length - 1;
            if (buf.length > keep) {
              await sink(buf.subarray(0, buf.length - keep));
              buf = Buffer.from(buf.subarray(buf.length - keep));
            }
            break;
          }
        } else {
          break;
        }
      }
      if ((state as State) === 'done') {
        await reader.cancel().catch(() => {});
        break;
      }
      if (done) {
        if ((state as State) !== 'done') throw new MultipartError('The upload was interrupted (incomplete multipart body)');
        break;
      }
    }
  } catch (e) {
    await reader.cancel().catch(() => {});
    const w = ws as WriteStream | null;
    if (w) w.destroy();
    await rm(o.destPath, { force: true });
    throw e;
  }
  return { fields, file };
}
