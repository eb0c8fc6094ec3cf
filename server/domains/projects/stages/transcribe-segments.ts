// Stage 3, transcribe_segments: speech regions (VAD) cut into segments of at most MAX_SEGMENT_SEC.
import type { SpeechRegion } from '../../../engines/types';
import { StageFailure } from '../pipeline/stages';
import { A, saveJson, speechRegions, srtCues, type ProjectStageContext } from './common';

// ------------------------------------------------------------------ transcribe_segments

/** Longest region handed to ASR as one segment; longer speech is cut at its quietest gaps by the VAD already. */
export const MAX_SEGMENT_SEC = 15;

/** Regions closer than this are one segment (a breath inside a sentence). */
export const JOIN_GAP_SEC = 0.35;

/** Joins close regions and splits very long ones, so each is a subtitle-sized segment. */
export function segmentRegions(regions: readonly SpeechRegion[], maxSec = MAX_SEGMENT_SEC, joinGap = JOIN_GAP_SEC): SpeechRegion[] {
  const sorted = [...regions].filter((r) => r.end > r.start).sort((a, b) => a.start - b.start);
  const joined: SpeechRegion[] = [];
  for (const r of sorted) {
    const last = joined[joined.length - 1];
    if (last && r.start - last.end <= joinGap && r.end - last.start <= maxSec) last.end = Math.max(last.end, r.end);
    else joined.push({ start: r.start, end: r.end });
  }
  const out: SpeechRegion[] = [];
  for (const r of joined) {
    const len = r.end - r.start;
    if (len <= maxSec) {
      out.push(r);
      continue;
    }
    const n = Math.ceil(len / maxSec);
    for (let i = 0; i < n; i++) out.push({ start: r.start + (len * i) / n, end: r.start + (len * (i + 1)) / n });
  }
  return out;
}

export async function transcribeSegments(ctx: ProjectStageContext): Promise<void> {
  if (ctx.project.src_srt_media_id) {
    const cues = await srtCues(ctx, ctx.project.src_srt_media_id, 'source');
    await saveJson(ctx, A.regions, cues.map((c) => ({ start: c.start, end: c.end })));
    return;
  }
  const regions = segmentRegions(await speechRegions(ctx));
  if (regions.length === 0) throw new StageFailure('no_words', 'No speech was found in the video', 'no_speech');
  await saveJson(ctx, A.regions, regions);
}
