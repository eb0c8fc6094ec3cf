// Timing a user can fix line by line (issue 29): a segment borrows the pause after it (its end moves into the
// silence before the next speech, so its voice needs less speed-up), or keeps the original audio (not dubbed:
// the source's speech and background play over its span). Both are transcript edits: the project becomes
// transcript_edited and the next dub re-voices only what changed (the fitted clips are cached by content hash).
import type { SegmentTimingResponse } from '../../../../contract/schemas/project';
import type { AppDeps } from '../../../deps';
import type { UserRow } from '../../../caller';
import { conflict, notFound } from '../../../errors';
import { loadProject } from '../service';
import { estimateNaturalDuration } from '../stages/fit';
import * as repo from './repository';
import { editable, markEdited, shapeSegments } from './service';

/** Silence left before the next speech (the fit's guard is 0.05 s: a little more, so voices never touch). */
export const BORROW_GAP_SEC = 0.1;
/** At most this much is borrowed in one call: a pause is kept a pause. */
export const BORROW_MAX_SEC = 2;
/** Less than this is not worth a new dub. */
const BORROW_MIN_SEC = 0.05;

const r3 = (x: number) => Math.round(x * 1000) / 1000;

/**
 * How far a segment's end may move: up to the next speech (the start of the next segment of any speaker, or its
 * first recognised word if that comes earlier) minus a small gap, at most BORROW_MAX_SEC, never past the video's
 * end; and only as far as the voice needs to speak at its natural pace (from the last dub's speed factor and
 * overflow, else the text's estimated length), with the speed and overflow that slot should give (kept on the segment
 * until the next dub measures them). The reason instead when there is nothing to borrow.
 */
export function borrowTarget(
  cur: Pick<repo.SegmentRow, 'id' | 'start_sec' | 'end_sec' | 'dst_text' | 'speed_factor' | 'overflow_sec'>,
  others: ReadonlyArray<Pick<repo.SegmentRow, 'id' | 'start_sec' | 'end_sec' | 'words'>>,
  o: { durationSec: number | null; dstLang: string },
): { end: number; speedFactor: number; overflowSec: number } | { reason: string } {
  let nextSpeech = o.durationSec ?? cur.end_sec + BORROW_MAX_SEC + BORROW_GAP_SEC;
  let gapEnd = o.durationSec ?? Infinity;
  for (const s of others) {
    if (s.id === cur.id) continue;
    // speech that is still going on at the segment's end: the pause is not silent
    if (s.start_sec < cur.end_sec && s.end_sec > cur.end_sec) return { reason: 'Another segment is still speaking when this one ends: there is no pause to borrow' };
    if (s.start_sec > cur.start_sec) {
      const firstWord = s.words?.find((w) => Number.isFinite(w.start))?.start;
      const speech = Math.min(s.start_sec, firstWord !== undefined && firstWord > cur.start_sec ? firstWord : s.start_sec);
      nextSpeech = Math.min(nextSpeech, speech);
      gapEnd = Math.min(gapEnd, s.start_sec);
    }
  }
  const limit = Math.min(nextSpeech - (nextSpeech === o.durationSec ? 0 : BORROW_GAP_SEC), gapEnd, cur.end_sec + BORROW_MAX_SEC);
  // What the voice needs at its natural pace.
  const slot = cur.end_sec - cur.start_sec;
  const needed =
    cur.speed_factor !== null && cur.speed_factor > 0
      ? slot * cur.speed_factor + Math.max(0, cur.overflow_sec ?? 0)
      : estimateNaturalDuration(cur.dst_text, o.dstLang).seconds;
  if (needed <= slot + BORROW_MIN_SEC / 2) return { reason: 'The line already fits its slot: it needs no pause' };
  if (limit - cur.end_sec < BORROW_MIN_SEC) return { reason: 'The next segment starts right after this one: there is no pause to borrow' };
  // a little past the need (the fit keeps its own tolerance), within the limit
  const end = r3(Math.min(limit, cur.start_sec + needed + BORROW_MIN_SEC));
  // The speed the voice should need in the longer slot (an estimate until the next dub measures it).
  const newSlot = end - cur.start_sec;
  const speed = needed / newSlot;
  return {
    end,
    speedFactor: r3(Math.min(MAX_SPEED, Math.max(MIN_SPEED, speed))),
    overflowSec: r3(Math.max(0, needed - newSlot * MAX_SPEED)),
  };
}

/** The fit's bounds (stages/fit.ts: rate 0.9 to 1.6, tempo up to 1.25). */
const MIN_SPEED = 0.9;
const MAX_SPEED = 1.6 * 1.25;

export async function borrowPause(deps: AppDeps, user: UserRow, projectId: string, segmentId: string): Promise<SegmentTimingResponse> {
  const { project } = await loadProject(deps, user, projectId);
  const { row, borrowed } = await deps.db.tx(async (t) => {
    const p = await editable(t, project.id);
    const all = await repo.segmentsOf(t, p.id);
    const cur = all.find((s) => s.id === segmentId);
    if (!cur) throw notFound(`Segment not found: ${segmentId}`);
    if (cur.keep_original) throw conflict('This segment keeps the original audio: it is not dubbed, so it needs no pause');
    const target = borrowTarget(cur, all, { durationSec: p.duration ?? null, dstLang: p.dst_lang });
    if ('reason' in target) throw conflict(target.reason);
    const updated = (await repo.updateSegment(t, p.id, cur.id, {
      end_sec: target.end,
      speed_factor: target.speedFactor,
      overflow_sec: target.overflowSec,
      status: 'updated',
    }))!;
    await markEdited(t, p);
    return { row: updated, borrowed: r3(target.end - cur.end_sec) };
  });
  const [segment] = await shapeSegments(deps, project, [row]);
  return { segment: segment!, borrowed_sec: borrowed };
}

/** `readKeep` reads the request's choice, after access is checked (an outsider learns nothing from a bad body). */
export async function keepOriginal(
  deps: AppDeps,
  user: UserRow,
  projectId: string,
  segmentId: string,
  readKeep: () => Promise<boolean>,
): Promise<SegmentTimingResponse> {
  const { project } = await loadProject(deps, user, projectId);
  const keep = await readKeep();
  const row = await deps.db.tx(async (t) => {
    const p = await editable(t, project.id);
    const [cur] = await repo.segmentsOf(t, p.id, [segmentId]);
    if (!cur) throw notFound(`Segment not found: ${segmentId}`);
    if (cur.keep_original === keep) return cur;
    const updated = (await repo.updateSegment(t, p.id, cur.id, { keep_original: keep, status: 'updated' }))!;
    await markEdited(t, p);
    return updated;
  });
  const [segment] = await shapeSegments(deps, project, [row]);
  return { segment: segment! };
}
