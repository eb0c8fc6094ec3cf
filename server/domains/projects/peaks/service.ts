// Waveform peaks of a project (the timeline editor): computed once per track with ffmpeg (server/media/peaks.ts)
// on the first request, at every resolution of contract/peaks.ts, and kept with the project's files:
//   source: projects/<id>/peaks/source/<resolution>.i8 (from the extracted 16 kHz audio, else the source file);
//   dub:    <voice-only track key>.peaks/<resolution>.i8 (next to this generation's outputs, so a new generate
//           makes new peaks and the old ones go with the old outputs).
// Each file is min,max signed-byte pairs, one per bucket; a request reads one range of it.
import type { Readable } from 'node:stream';
import { PEAKS_RESOLUTIONS, type PeaksResolution, type PeaksTrack } from '../../../../contract/peaks';
import { flights } from '../../../cache/flights';
import type { AppDeps } from '../../../deps';
import { computePeaks } from '../../../media/peaks';
import { MediaError } from '../../../media/errors';
import { projectKey } from '../../../storage/index';
import { conflict } from '../../../errors';
import type { ProjectRow } from '../repository';
import { A } from '../stages/common';

export interface PeaksSlice {
  resolution: PeaksResolution;
  from: number;
  /** Total buckets of the track at this resolution. */
  total: number;
  /** min,max pairs of buckets [from, from + data.length / 2). */
  data: Buffer;
}

/** Where a track's peaks are kept (one file per resolution), and the audio they are made from. */
async function trackSource(deps: AppDeps, project: ProjectRow, track: PeaksTrack): Promise<{ input: string; peaksKey: (r: number) => string }> {
  if (track === 'dub') {
    const voice = project.voiceover ?? project.translated_audio;
    if (!voice) throw conflict('There is no dub yet: generate the video first');
    return { input: voice, peaksKey: (r) => `${voice}.peaks/${r}.i8` };
  }
  const extracted = projectKey(project.id, A.audio16k);
  const input = (await deps.storage.exists(extracted)) ? extracted : (project.media_info?.sourceKey ?? project.original_video);
  if (!input) throw conflict('The source audio is not ready yet: wait until the video is processed');
  return { input, peaksKey: (r) => projectKey(project.id, `peaks/source/${r}.i8`) };
}

/** Tracks whose peaks this app is making (app state, server/cache). */
const MAKING = flights<void>('projects.peaks');

/** Makes every resolution of a track once (concurrent requests share one run). */
async function ensurePeaks(deps: AppDeps, project: ProjectRow, src: { input: string; peaksKey: (r: number) => string }): Promise<void> {
  const last = src.peaksKey(PEAKS_RESOLUTIONS[0]);
  if (await deps.storage.exists(last)) return;
  await deps.db.state.of(MAKING).run(last, async () => {
    const local = await deps.storage.localFile(src.input);
    let levels: Map<number, Int8Array>;
    try {
      levels = await computePeaks(local, PEAKS_RESOLUTIONS, { durationSec: project.duration });
    } catch (e) {
      if (e instanceof MediaError && (e.code === 'no_audio' || e.code === 'corrupt')) throw conflict(`The audio could not be read for the waveform: ${e.message}`);
      throw e;
    }
    // The coarsest is written last: its presence means every resolution is there.
    for (const r of [...PEAKS_RESOLUTIONS].reverse()) {
      const data = levels.get(r)!;
      await deps.storage.putBuffer(src.peaksKey(r), Buffer.from(data.buffer, data.byteOffset, data.byteLength), { contentType: 'application/octet-stream' });
    }
  });
}

async function readAll(s: Readable): Promise<Buffer> {
  const parts: Buffer[] = [];
  for await (const c of s) parts.push(c as Buffer);
  return Buffer.concat(parts);
}

/** Buckets [from, from + count) of a track at a resolution (fewer at the end of the track); the caller checked access. */
export async function projectPeaks(
  deps: AppDeps,
  project: ProjectRow,
  q: { track: PeaksTrack; resolution: PeaksResolution; from: number; count: number },
): Promise<PeaksSlice> {
  const src = await trackSource(deps, project, q.track);
  await ensurePeaks(deps, project, src);
  const key = src.peaksKey(q.resolution);
  const st = await deps.storage.stat(key);
  const total = Math.floor((st?.size ?? 0) / 2);
  const from = Math.min(q.from, total);
  const end = Math.min(total, from + q.count);
  const data = end > from ? await readAll(await deps.storage.read(key, { start: from * 2, end: end * 2 - 1 })) : Buffer.alloc(0);
  return { resolution: q.resolution, from, total, data };
}
