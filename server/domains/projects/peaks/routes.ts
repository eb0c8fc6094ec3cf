// GET /api/project/{id}/peaks?track=source|dub&resolution=5|50|500&from=&count=: waveform peaks for the timeline
// editor as min,max signed-byte pairs (application/octet-stream); the x-peaks-* headers say which buckets came.
import { Hono } from 'hono';
import { PEAKS_HEADERS, PeaksQuery } from '../../../../contract/peaks';
import type { AppEnv } from '../../../http/env';
import { queryWith } from '../../../http/validate';
import { loadProject } from '../service';
import { projectPeaks } from './service';
import { routeFacts } from '../../../http/route-facts';

export const peaksRoutes = new Hono<AppEnv>();
peaksRoutes.get('/:id/peaks', routeFacts({
  summary: 'Waveform peaks of the source audio or the dub: min,max signed-byte pairs per bucket (headers x-peaks-resolution, -from, -count, -total); 409 while the track does not exist yet',
  binary: 'application/octet-stream',
  query: [
      { name: 'track', required: true, description: 'source or dub' },
      { name: 'resolution', description: 'Buckets per second: 5, 50 or 500 (default 5)' },
      { name: 'from', description: 'First bucket (default 0)' },
      { name: 'count', description: 'Buckets wanted (default and most 1048576)' },
    ],
}), async (c) => {
  // Access first (403/404 whatever the query), then the query (422).
  const { project } = await loadProject(c.get('deps'), c.get('user'), c.req.param('id'));
  const q = queryWith(c, PeaksQuery);
  const s = await projectPeaks(c.get('deps'), project, {
    track: q.track, resolution: q.resolution, from: Number(q.from), count: Number(q.count),
  });
  return c.body(new Uint8Array(s.data), 200, {
    'content-type': 'application/octet-stream',
    'cache-control': 'private, no-cache',
    [PEAKS_HEADERS.resolution]: String(s.resolution),
    [PEAKS_HEADERS.from]: String(s.from),
    [PEAKS_HEADERS.count]: String(s.data.length / 2),
    [PEAKS_HEADERS.total]: String(s.total),
  });
});
