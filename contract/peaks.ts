// Waveform peaks of a project's audio (the timeline editor): GET /api/project/{id}/peaks answers min/max pairs,
// one pair per bucket, as signed bytes (-127..127) in an application/octet-stream body. No I/O here.
import * as v from 'valibot';

/** The tracks: the source audio, and the dubbed voices once generated. */
export const PEAKS_TRACKS = ['source', 'dub'] as const;
export type PeaksTrack = (typeof PEAKS_TRACKS)[number];

/** Resolutions kept on the server, in buckets per second (coarse to fine). */
export const PEAKS_RESOLUTIONS = [5, 50, 500] as const;
export type PeaksResolution = (typeof PEAKS_RESOLUTIONS)[number];

/** Most buckets one request may ask for (2 bytes each). */
export const PEAKS_MAX_COUNT = 1 << 20;

/** Answer headers: the resolution, the first bucket and the number of buckets in the body, and how many the track has. */
export const PEAKS_HEADERS = {
  resolution: 'x-peaks-resolution',
  from: 'x-peaks-from',
  count: 'x-peaks-count',
  total: 'x-peaks-total',
} as const;

const intText = (name: string, min: number, max: number) =>
  v.pipe(v.string(), v.regex(/^\d+$/, `${name} must be a whole number`), v.toNumber(), v.minValue(min, `${name} must be at least ${min}`), v.maxValue(max, `${name} must be at most ${max}`));

/** Query of GET /api/project/{id}/peaks. */
export const PeaksQuery = v.object({
  track: v.picklist(PEAKS_TRACKS, `track must be one of ${PEAKS_TRACKS.join(', ')}`),
  resolution: v.pipe(
    v.optional(v.string(), String(PEAKS_RESOLUTIONS[0])),
    v.check((s) => (PEAKS_RESOLUTIONS as readonly number[]).includes(Number(s)), `resolution must be one of ${PEAKS_RESOLUTIONS.join(', ')} (buckets per second)`),
    v.transform((s) => Number(s) as PeaksResolution),
  ),
  from: v.optional(intText('from', 0, Number.MAX_SAFE_INTEGER), '0'),
  count: v.optional(intText('count', 1, PEAKS_MAX_COUNT), String(PEAKS_MAX_COUNT)),
});
