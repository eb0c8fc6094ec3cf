// The streaming multipart reader behind POST /api/library/media: the file goes to disk, fields stay short,
// and every malformed body is a clear MultipartError that leaves no file behind.
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { MultipartError, readMultipart } from '../../../server/domains/library/multipart';

const dir = mkdtempSync(join(tmpdir(), 'multipart-test-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
let n = 0;
const dest = () => join(dir, `file-${++n}`);

/** A body sent in several chunks (the delimiter split across two of them), as a network delivers it. */
function stream(bytes: Buffer, chunk = 7, truncate = false): ReadableStream<Uint8Array> {
  const data = truncate ? bytes.subarray(0, Math.floor(bytes.length / 2)) : bytes;
  let i = 0;
  return new ReadableStream({
    pull(c) {
      if (i >= data.length) return c.close();
      c.enqueue(new Uint8Array(data.subarray(i, i + chunk)));
      i += chunk;
    },
  });
}

async function formBody(form: FormData): Promise<{ bytes: Buffer; type: string }> {
  const r = new Response(form);
  return { bytes: Buffer.from(await r.arrayBuffer()), type: r.headers.get('content-type')! };
}

async function refusal(p: Promise<unknown>): Promise<MultipartError> {
  const e = await p.then(() => null, (x: unknown) => x);
  expect(e).toBeInstanceOf(MultipartError);
  return e as MultipartError;
}

describe('readMultipart', () => {
  it('writes the file part to disk and keeps the other fields', async () => {
    const form = new FormData();
    form.set('kind', 'video');
    const content = Buffer.alloc(100_000, 'ab\r\n--x');
    form.set('file', new Blob([content], { type: 'video/mp4' }), 'vídeo de prueba.mp4');
    const { bytes, type } = await formBody(form);
    const path = dest();
    const r = await readMultipart(stream(bytes, 4093), type, { fileField: 'file', destPath: path, maxBytes: 1_000_000 });
    expect(r.fields).toEqual({ kind: 'video' });
    expect(r.file).toMatchObject({ field: 'file', filename: 'vídeo de prueba.mp4', contentType: 'video/mp4', size: content.length, path });
    expect(readFileSync(path).equals(content)).toBe(true);
  });

  it('answers file null when no file part was sent', async () => {
    const form = new FormData();
    form.set('kind', 'audio');
    const { bytes, type } = await formBody(form);
    const r = await readMultipart(stream(bytes), type, { fileField: 'file', destPath: dest(), maxBytes: 10 });
    expect(r).toEqual({ fields: { kind: 'audio' }, file: null });
  });

  it('refuses a file over the limit with 413 and removes what was written', async () => {
    const form = new FormData();
    form.set('file', new Blob([Buffer.alloc(50_000, 1)]), 'big.mp4');
    const { bytes, type } = await formBody(form);
    const path = dest();
    const e = await refusal(readMultipart(stream(bytes, 1024), type, { fileField: 'file', destPath: path, maxBytes: 10_000, maxSizeText: '10 KB' }));
    expect(e.status).toBe(413);
    expect(e.message).toBe('File is too large (the limit is 10 KB)');
    expect(existsSync(path)).toBe(false);
  });

  it('refuses a body cut in the middle and removes the partial file', async () => {
    const form = new FormData();
    form.set('file', new Blob([Buffer.alloc(20_000, 2)]), 'cut.mp4');
    const { bytes, type } = await formBody(form);
    const path = dest();
    const e = await refusal(readMultipart(stream(bytes, 1000, true), type, { fileField: 'file', destPath: path, maxBytes: 1_000_000 }));
    expect(e.status).toBe(400);
    expect(e.message).toBe('The upload was interrupted (incomplete multipart body)');
    expect(existsSync(path)).toBe(false);
  });

  it('refuses a field over 64 KiB, two files in the file field, a body that is not multipart, and no boundary', async () => {
    const long = new FormData();
    long.set('kind', 'x'.repeat(70_000));
    const l = await formBody(long);
    const e1 = await refusal(readMultipart(stream(l.bytes, 8192), l.type, { fileField: 'file', destPath: dest(), maxBytes: 10 }));
    expect([e1.status, e1.message]).toEqual([413, 'Field kind is too long']);

    const two = new FormData();
    two.append('file', new Blob(['a']), 'a.mp4');
    two.append('file', new Blob(['b']), 'b.mp4');
    const t = await formBody(two);
    const e2 = await refusal(readMultipart(stream(t.bytes), t.type, { fileField: 'file', destPath: dest(), maxBytes: 100 }));
    expect([e2.status, e2.message]).toEqual([400, 'Only one file may be sent in the field file']);

    const e3 = await refusal(readMultipart(stream(Buffer.from('{}')), 'application/json', { fileField: 'file', destPath: dest(), maxBytes: 100 }));
    expect([e3.status, e3.message]).toEqual([415, 'Expected a multipart/form-data body']);
    const e4 = await refusal(readMultipart(stream(Buffer.from('x')), 'multipart/form-data', { fileField: 'file', destPath: dest(), maxBytes: 100 }));
    expect([e4.status, e4.message]).toEqual([400, 'The multipart body has no boundary']);
  });
});
