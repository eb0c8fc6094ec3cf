// /api/batch: batches of videos dubbed into several languages (issue 31). Parse -> service -> shape.
import { Readable } from 'node:stream';
import { ZipArchive } from 'archiver';
import { Hono } from 'hono';
import { CreateBatchRequest } from '../../../contract/schemas/batch';
import { spaceIdFromQuery } from '../../http/access';
import type { AppEnv } from '../../http/env';
import { jsonBody } from '../../http/validate';
import * as svc from './service';
import { routeFacts, SPACE_Q } from '../../http/route-facts';

export const batchRoutes = new Hono<AppEnv>();

batchRoutes.post('/', routeFacts({
  summary: 'Create a batch: many videos (uploads, links or a CSV) into several languages; each video is one multi-language project. 402 when the whole batch needs more minutes than the Teamspace has',
  body: 'CreateBatchRequest',
  response: 'Batch',
  status: 201,
  query: [SPACE_Q],
  example: { name: 'Spring catalogue', src_lang: 'en', dst_langs: ['es', 'de'], items: [{ media_id: '0b6f3c8e-3f4b-4f0a-9d55-5f2c1c7d8e90' }, { link: 'https://youtu.be/dQw4w9WgXcQ' }], generate: true },
  errors: { 400: 'No video in the batch', 402: 'Not enough minutes in the Teamspace for the whole batch' },
  gates: [
    { feature: 'multilanguage', scope: 'space', note: 'a batch: many videos dubbed into several languages in one go' },
  ],
  creates: { startsJob: true },
}), async (c) => {
  const body = await jsonBody(c, CreateBatchRequest);
  return c.json(await svc.createBatch(c.get('deps'), c.get('user'), spaceIdFromQuery(c), body), 201);
});

batchRoutes.get('/', routeFacts({ summary: 'Batches of a Teamspace, newest first', response: 'BatchList', query: [SPACE_Q] }), async (c) => c.json(await svc.listBatches(c.get('deps'), c.get('user'), spaceIdFromQuery(c))));

batchRoutes.get('/:id', routeFacts({ summary: 'A batch with the status of each video and language', response: 'Batch' }), async (c) => c.json(await svc.getBatch(c.get('deps'), c.get('user'), c.req.param('id'))));

batchRoutes.post('/:id/cancel', routeFacts({
  summary: 'Cancel every job of the batch still running (their dubs get their minutes back)',
  response: 'Batch',
}), async (c) => c.json(await svc.cancelBatch(c.get('deps'), c.get('user'), c.req.param('id'))));

batchRoutes.post('/:id/items/:item/retry', routeFacts({
  summary: 'Retry the failed languages of one video of the batch',
  response: 'Batch',
  errors: { 402: 'Not enough minutes to dub a failed language again' },
}), async (c) =>
  c.json(await svc.retryItem(c.get('deps'), c.get('user'), c.req.param('id'), c.req.param('item'))),
);

// The finished dubbed videos as one ZIP, streamed: one stored file read at a time, never the whole archive in memory
// (stored, not compressed: MP4s do not compress).
batchRoutes.get('/:id/download', routeFacts({
  summary: 'The finished dubbed videos of the batch as one ZIP (streamed)',
  binary: 'application/zip',
}), async (c) => {
  const deps = c.get('deps');
  const { batch, entries } = await svc.zipEntries(deps, c.get('user'), c.req.param('id'));
  const zip = new ZipArchive({ store: true });
  const log = deps.logger.child({ batch: batch.id });
  zip.on('warning', (e) => log.warn({ err: e.message }, 'batch zip warning'));
  zip.on('error', (e) => log.error({ err: e.message }, 'batch zip failed'));
  void (async () => {
    for (const e of entries) {
      if (zip.destroyed) return;
      const done = new Promise<void>((resolve) => zip.once('entry', () => resolve()));
      zip.append(await deps.storage.read(e.key), { name: e.name });
      await done;
    }
    await zip.finalize();
  })().catch((e: unknown) => {
    log.error({ err: e instanceof Error ? e.message : String(e) }, 'batch zip failed');
    zip.destroy(e instanceof Error ? e : new Error(String(e)));
  });
  return new Response(Readable.toWeb(zip) as ReadableStream<Uint8Array>, {
    headers: {
      'content-type': 'application/zip',
      'content-disposition': `attachment; filename="${svc.zipFileName(batch)}"`,
      'cache-control': 'no-store',
    },
  });
});
