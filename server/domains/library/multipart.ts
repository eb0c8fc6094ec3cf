// A streaming multipart/form-data reader on busboy: the file part goes straight to disk (bounded by a size
// limit), other fields are kept as short strings. Large videos never sit in memory.
import busboy from 'busboy';
import { createWriteStream, type WriteStream } from 'node:fs';
import { rm } from 'node:fs/promises';
import { Readable } from 'node:stream';
import type { ReadableStream as NodeWebStream } from 'node:stream/web';

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

const MAX_FIELD_BYTES = 64 * 1024;

/**
 * Reads a multipart body. The part named `fileField` is written to `destPath` (at most `maxBytes`, else a
 * 413 MultipartError); other parts become fields (at most 64 KiB each). A missing file part gives file null.
 */
export async function readMultipart(
  body: ReadableStream<Uint8Array> | null,
  contentType: string | undefined,
  o: { fileField: string; destPath: string; maxBytes: number; maxSizeText?: string },
): Promise<MultipartResult> {
  const ct = contentType ?? '';
  if (!/^multipart\/form-data/i.test(ct)) throw new MultipartError('Expected a multipart/form-data body', 415);
  if (!/boundary=/i.test(ct)) throw new MultipartError('The multipart body has no boundary');
  if (!body) throw new MultipartError('The request has no body');
  let bb: busboy.Busboy;
  try {
    bb = busboy({
      headers: { 'content-type': ct },
      defParamCharset: 'utf8',
      limits: { fileSize: o.maxBytes, fieldSize: MAX_FIELD_BYTES, headerPairs: 100, parts: 1000 },
    });
  } catch (e) {
    throw new MultipartError(e instanceof Error && /boundary/i.test(e.message) ? 'The multipart body has no boundary' : 'Malformed multipart body');
  }
  const input = Readable.fromWeb(body as unknown as NodeWebStream<Uint8Array>);
  const fields: Record<string, string> = {};
  let file: MultipartFile | null = null;
  let ws: WriteStream | null = null;
  const written: Array<Promise<void>> = [];

  const result = new Promise<MultipartResult>((resolve, reject) => {
    let failed = false;
    const fail = (e: Error) => {
      if (failed) return;
      failed = true;
      input.unpipe(bb);
      input.destroy();
      ws?.destroy();
      reject(e);
    };
    bb.on('file', (name, stream, info) => {
      if (name !== o.fileField || failed) {
        stream.resume(); // other files are not kept
        return;
      }
      if (file) {
        stream.resume();
        fail(new MultipartError(`Only one file may be sent in the field ${o.fileField}`));
        return;
      }
      const f: MultipartFile = { field: o.fileField, filename: info.filename ?? '', contentType: info.mimeType || null, size: 0, path: o.destPath };
      file = f;
      const out = createWriteStream(o.destPath);
      ws = out;
      stream.on('data', (d: Buffer) => {
        f.size += d.length;
      });
      stream.on('error', () => fail(new MultipartError('The upload was interrupted (incomplete multipart body)')));
      stream.on('limit', () => fail(new MultipartError(`File is too large (the limit is ${o.maxSizeText ?? `${o.maxBytes} bytes`})`, 413)));
      written.push(
        new Promise<void>((res, rej) => {
          out.on('error', rej);
          out.on('close', () => res());
          stream.pipe(out);
        }).catch((e: Error) => fail(e)),
      );
    });
    bb.on('field', (name, value, info) => {
      if (info.valueTruncated) fail(new MultipartError(`Field ${name} is too long`, 413));
      else fields[name] = value;
    });
    bb.on('partsLimit', () => fail(new MultipartError('Too many parts in the multipart body', 413)));
    bb.on('error', (e: Error) =>
      fail(/Unexpected end of form/i.test(e.message) ? new MultipartError('The upload was interrupted (incomplete multipart body)') : new MultipartError(`Malformed multipart body: ${e.message}`)),
    );
    input.on('error', () => fail(new MultipartError('The upload was interrupted (incomplete multipart body)')));
    bb.on('close', () => {
      if (failed) return;
      void Promise.all(written).then(() => {
        if (!failed) resolve({ fields, file });
      });
    });
  });
  input.pipe(bb);
  try {
    return await result;
  } catch (e) {
    await rm(o.destPath, { force: true });
    throw e;
  }
}
