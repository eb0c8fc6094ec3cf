// The waveform peaks of the source and dub tracks for the timeline: which chunks the view needs, asked from the
// shared cache (a re-render when one lands), and whether a track's peaks failed to load.
import { useCallback, useEffect, useState } from 'react';
import { OVERVIEW_RESOLUTION, PeaksCache, type PeaksChunk } from './peaks';
import { chunksFor } from './view';
import type { ChunkAccess } from './draw';

export type Track = 'source' | 'dub';

const sharedCache = new PeaksCache();

export function useTrackPeaks(o: {
  /** Peaks source (tests); the page's shared cache by default. */
  cache: PeaksCache | undefined;
  projectId: string;
  sourceReady: boolean;
  dubVersion: string | null;
  resolution: number;
  /** The visible window (seconds). */
  t0: number;
  t1: number;
}) {
  const { projectId, sourceReady, dubVersion, resolution, t0, t1 } = o;
  const cache = o.cache ?? sharedCache;

  // Peaks arrive asynchronously: redraw when one lands.
  const [, setLanded] = useState(0);
  useEffect(() => cache.subscribe(() => setLanded((n) => n + 1)), [cache]);

  const overviewReq = useCallback(
    (track: Track, version: string) => ({ projectId, track, version, resolution: OVERVIEW_RESOLUTION, chunk: 'all' as const }),
    [projectId],
  );
  const trackVersion = useCallback((track: Track) => (track === 'source' ? (sourceReady ? 'source' : null) : dubVersion), [sourceReady, dubVersion]);
  /** The loaded chunk accessor of a track at the current resolution, asking for the visible chunks. */
  const chunkAccess = useCallback(
    (track: Track): ChunkAccess | null => {
      const version = trackVersion(track);
      if (!version) return null;
      const overview = cache.get(overviewReq(track, version));
      if (resolution === OVERVIEW_RESOLUTION) return { at: () => overview, overview };
      const loaded = new Map<number, PeaksChunk | null>();
      const totalAtRes = overview ? Math.ceil((overview.total * resolution) / OVERVIEW_RESOLUTION) : null;
      for (const c of chunksFor(resolution, t0, t1, totalAtRes)) {
        loaded.set(c, cache.get({ projectId, track, version, resolution, chunk: c }));
      }
      return { at: (i) => loaded.get(i) ?? null, overview };
    },
    [cache, overviewReq, trackVersion, resolution, t0, t1, projectId],
  );

  const sourceError = sourceReady ? cache.error(overviewReq('source', 'source')) : null;
  const dubError = dubVersion ? cache.error(overviewReq('dub', dubVersion)) : null;
  return { chunkAccess, sourceError, dubError };
}
