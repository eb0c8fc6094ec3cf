// Waveform peaks for the timeline: GET /api/project/{id}/peaks in chunks of PEAKS_CHUNK buckets (only the chunks
// of the visible window are asked for), kept in a small cache shared by the timelines of the page.
import { PEAKS_HEADERS, PEAKS_MAX_COUNT, PEAKS_RESOLUTIONS, type PeaksTrack } from '../../../../contract/peaks';
import { callWithResponse, client } from '../../../lib/api/client';
import { PEAKS_CHUNK } from './view';

export interface PeaksChunk {
  /** First bucket. */
  from: number;
  /** min,max pairs. */
  data: Int8Array;
  /** Buckets of the whole track at this resolution. */
  total: number;
}

export interface PeaksRequest {
  projectId: string;
  track: PeaksTrack;
  /** Changes when the track changes (a new dub): old chunks are not used. */
  version: string;
  resolution: number;
  /** Chunk index, or 'all' for the whole track. */
  chunk: number | 'all';
}

/** One request of peaks. */
export async function fetchPeaks(r: Omit<PeaksRequest, 'version'>): Promise<PeaksChunk> {
  const from = r.chunk === 'all' ? 0 : r.chunk * PEAKS_CHUNK;
  const count = r.chunk === 'all' ? PEAKS_MAX_COUNT : PEAKS_CHUNK;
  const query = { track: r.track, resolution: String(r.resolution), from: String(from), count: String(count) };
  const { data: bytes, response: res } = await callWithResponse(
    client.GET('/api/project/{id}/peaks', { params: { path: { id: r.projectId }, query }, parseAs: 'arrayBuffer' }),
  );
  // An empty answer (Content-Length 0) comes as undefined: no buckets.
  const data = new Int8Array(bytes ?? 0);
  return { from: Number(res.headers.get(PEAKS_HEADERS.from) ?? from), data, total: Number(res.headers.get(PEAKS_HEADERS.total) ?? 0) };
}

const keyOf = (r: PeaksRequest) => `${r.projectId}|${r.track}|${r.version}|${r.resolution}|${r.chunk}`;

type Entry = { state: 'loading' } | { state: 'ok'; chunk: PeaksChunk } | { state: 'error'; error: unknown };

/** Loaded chunks (least recently used dropped past `limit`), loads in flight, and who to tell when one lands. */
export class PeaksCache {
  private entries = new Map<string, Entry>();
  private listeners = new Set<() => void>();
  constructor(
    private readonly load: (r: PeaksRequest) => Promise<PeaksChunk> = fetchPeaks,
    private readonly limit = 256,
  ) {}

  subscribe(fn: () => void): () => void {
    this.listeners.add(fn);
    return () => this.listeners.delete(fn);
  }

  /** The chunk if loaded; starts loading it otherwise (an error is kept: it is not asked again). */
  get(r: PeaksRequest): PeaksChunk | null {
    const k = keyOf(r);
    const e = this.entries.get(k);
    if (e) {
      if (e.state === 'ok') {
        this.entries.delete(k);
        this.entries.set(k, e);
        return e.chunk;
      }
      return null;
    }
    this.entries.set(k, { state: 'loading' });
    this.load(r).then(
      (chunk) => this.settle(k, { state: 'ok', chunk }),
      (error: unknown) => this.settle(k, { state: 'error', error }),
    );
    return null;
  }

  /** The failure of a request, if it failed. */
  error(r: PeaksRequest): unknown {
    const e = this.entries.get(keyOf(r));
    return e?.state === 'error' ? e.error : null;
  }

  private settle(k: string, e: Entry): void {
    if (!this.entries.has(k)) return;
    this.entries.set(k, e);
    while (this.entries.size > this.limit) {
      const oldest = this.entries.keys().next().value as string;
      this.entries.delete(oldest);
    }
    for (const l of this.listeners) l();
  }
}

/** The whole coarsest level: drawn when zoomed out, and its loudest bucket scales the waveform. */
export const OVERVIEW_RESOLUTION = PEAKS_RESOLUTIONS[0];

/**
 * min/max of buckets [b0, b1) of a resolution from the loaded chunks (`chunkAt` gives a chunk or null); null
 * when none of them is loaded.
 */
export function rangeMinMax(chunkAt: (index: number) => PeaksChunk | null, b0: number, b1: number): [number, number] | null {
  let lo = 127;
  let hi = -127;
  let any = false;
  let b = b0;
  while (b < b1) {
    const ci = Math.floor(b / PEAKS_CHUNK);
    const chunk = chunkAt(ci);
    const chunkEnd = (ci + 1) * PEAKS_CHUNK;
    const stop = Math.min(b1, chunkEnd);
    if (chunk) {
      const d = chunk.data;
      const n = d.length >> 1;
      for (let i = b - chunk.from; i < stop - chunk.from && i < n; i++) {
        if (i < 0) continue;
        const a = d[i * 2]!;
        const c = d[i * 2 + 1]!;
        if (a < lo) lo = a;
        if (c > hi) hi = c;
        any = true;
      }
    }
    b = stop;
  }
  return any ? [lo, hi] : null;
}
