// /api/glossary (spec section 7): GET ?source_lang&target_lang&space_id; GET {id}; POST ?space_id; PATCH {id};
// DELETE ?glossary_id. Beside them: POST {id}/import (a CSV file, multipart field "file" or a text/csv body) and
// GET {id}/export (CSV). Plan gate 'glossary' (Business and above) on every call, stated on each route.
import { Hono, type Context } from 'hono';
import * as v from 'valibot';
import { CreateGlossaryRequest, GLOSSARY_CSV_MAX_BYTES, UpdateGlossaryRequest } from '../../../contract/schemas/glossary';
import { spaceIdFromQuery } from '../../http/access';
import type { AppEnv } from '../../http/env';
import { ApiError, unprocessable } from '../../http/errors';
import { jsonBody, queryWith } from '../../http/validate';
import * as svc from './service';
import { routeFacts, SPACE_Q } from '../../http/route-facts';

export const glossaryRoutes = new Hono<AppEnv>();


const LangFilter = v.optional(
  v.pipe(v.string(), v.trim(), v.toLowerCase(), v.regex(/^([a-z]{2,3}([-_][a-z0-9]{2,8})?)?$/, 'The language must be a code such as "en" or "es"')),
);
const ListQuery = v.object({ source_lang: LangFilter, target_lang: LangFilter });

glossaryRoutes.get('/', routeFacts({
  summary: 'The dictionaries of a Teamspace (without their entries)',
  response: 'Glossary',
  list: true,
  query: [
    SPACE_Q,
    { name: 'source_lang', description: 'Only the dictionaries from this language' },
    { name: 'target_lang', description: 'Only the dictionaries into this language' },
  ],
  gates: [
    { feature: 'glossary', scope: 'space', note: 'listing the dictionaries of a Teamspace' },
  ],
}), async (c) => {
  const q = queryWith(c, ListQuery);
  const spaceId = spaceIdFromQuery(c);
  return c.json(await svc.listGlossaries(c.get('deps'), c.get('user'), spaceId, { src: q.source_lang || null, dst: q.target_lang || null }));
});

glossaryRoutes.post('/', routeFacts({
  summary: 'Create a dictionary',
  body: 'CreateGlossaryRequest',
  response: 'Glossary',
  status: 201,
  query: [SPACE_Q],
  gates: [
    { feature: 'glossary', scope: 'space', note: 'creating a dictionary' },
  ],
}), async (c) => {
  const spaceId = spaceIdFromQuery(c);
  const body = await jsonBody(c, CreateGlossaryRequest);
  return c.json(await svc.createGlossary(c.get('deps'), c.get('user'), spaceId, body), 201);
});

glossaryRoutes.delete('/', routeFacts({
  summary: 'Delete a dictionary',
  response: 'GlossaryDeleted',
  query: [{ name: 'glossary_id', required: true, description: 'The dictionary' }],
  gates: [
    { feature: 'glossary', scope: 'glossary', note: 'deleting a dictionary' },
  ],
}), async (c) => {
  const id = (c.req.query('glossary_id') ?? '').trim();
  if (!id) throw unprocessable([{ loc: ['query', 'glossary_id'], msg: 'Field is required', type: 'missing' }]);
  return c.json(await svc.deleteGlossary(c.get('deps'), c.get('user'), id));
});

glossaryRoutes.get('/:id', routeFacts({
  summary: 'A dictionary with its entries',
  response: 'Glossary',
  gates: [
    { feature: 'glossary', scope: 'glossary', note: 'reading a dictionary' },
  ],
}), async (c) => c.json(await svc.getGlossary(c.get('deps'), c.get('user'), c.req.param('id'))));

glossaryRoutes.patch('/:id', routeFacts({
  summary: 'Rename a dictionary or replace its entries',
  body: 'UpdateGlossaryRequest',
  response: 'Glossary',
  gates: [
    { feature: 'glossary', scope: 'glossary', note: 'editing a dictionary' },
  ],
}), async (c) => {
  const body = await jsonBody(c, UpdateGlossaryRequest);
  return c.json(await svc.updateGlossary(c.get('deps'), c.get('user'), c.req.param('id'), body));
});

const TOO_LARGE = `The file is too large: at most ${GLOSSARY_CSV_MAX_BYTES / 1024 / 1024} MB`;

async function csvBytes(c: Context<AppEnv>): Promise<Uint8Array> {
  const len = Number(c.req.header('content-length') ?? '0');
  if (len > GLOSSARY_CSV_MAX_BYTES + 64 * 1024) throw new ApiError(413, TOO_LARGE);
  let bytes: Uint8Array;
  if ((c.req.header('content-type') ?? '').startsWith('multipart/form-data')) {
    const form = await c.req.formData();
    const file = form.get('file');
    if (!file || typeof file === 'string') throw unprocessable([{ loc: ['body', 'file'], msg: 'Field is required', type: 'missing' }]);
    bytes = new Uint8Array(await file.arrayBuffer());
  } else {
    bytes = new Uint8Array(await c.req.arrayBuffer());
  }
  if (bytes.byteLength > GLOSSARY_CSV_MAX_BYTES) throw new ApiError(413, TOO_LARGE);
  if (bytes.byteLength === 0) throw unprocessable([{ loc: ['body', 'file'], msg: 'The file is empty', type: 'missing' }]);
  return bytes;
}

glossaryRoutes.post('/:id/import', routeFacts({
  summary: 'Import terms from a CSV file (multipart field "file", or a text/csv body): rows added or updated, refused rows by line',
  response: 'GlossaryImportResult',
  gates: [
    { feature: 'glossary', scope: 'glossary', note: 'importing dictionary terms from CSV' },
  ],
  errors: { 400: 'The file has no terms', 413: 'The file is larger than the CSV limit', 415: 'The file is not a CSV file that can be read' },
}), async (c) => {
  const bytes = await csvBytes(c);
  return c.json(await svc.importGlossaryCsv(c.get('deps'), c.get('user'), c.req.param('id'), bytes));
});

glossaryRoutes.get('/:id/export', routeFacts({
  summary: 'The dictionary as a CSV file',
  binary: 'text/csv',
  gates: [
    { feature: 'glossary', scope: 'glossary', note: 'exporting a dictionary as CSV' },
  ],
}), async (c) => {
  const { name, csv } = await svc.exportGlossaryCsv(c.get('deps'), c.get('user'), c.req.param('id'));
  const file = `${name.replace(/[^\w.-]+/g, '_').replace(/^_+|_+$/g, '') || 'dictionary'}.csv`;
  return c.body(csv, 200, {
    'content-type': 'text/csv; charset=utf-8',
    'content-disposition': `attachment; filename="${file}"`,
  });
});
