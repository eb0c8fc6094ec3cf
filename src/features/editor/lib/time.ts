// Time fields of the editor (spec section 5): hh:mm:ss,mmm (contract/timecodes.ts). Segment times are seconds.
import { formatSrtTime as formatTimestamp, parseSrtTimeStrict as parseTimestamp } from '../../../../contract/timecodes';

export const TIME_FORMAT_ERROR = 'Use the format hh:mm:ss,mmm';

export interface TimeCheck {
  start: number | null;
  end: number | null;
  startError: string | null;
  endError: string | null;
}

/**
 * Validates the start/end texts of a segment: both in hh:mm:ss,mmm, start before end, end within the
 * video when its duration is known.
 */
export function checkSegmentTimes(startText: string, endText: string, durationSec?: number | null): TimeCheck {
  const start = parseTimestamp(startText);
  const end = parseTimestamp(endText);
  let startError: string | null = start === null ? TIME_FORMAT_ERROR : null;
  let endError: string | null = end === null ? TIME_FORMAT_ERROR : null;
  if (start !== null && end !== null && !(start < end)) {
    endError = 'End must be after start';
  }
  if (end !== null && !endError && durationSec != null && durationSec > 0 && end > durationSec + 0.0005) {
    endError = `End is after the end of the video (${formatTimestamp(durationSec)})`;
  }
  if (start !== null && !startError && durationSec != null && durationSec > 0 && start >= durationSec) {
    startError = `Start is after the end of the video (${formatTimestamp(durationSec)})`;
  }
  return { start, end, startError, endError };
}

/** Short m:ss label for the player clock. */
export function formatClock(seconds: number): string {
  const t = Math.max(0, Math.floor(Number.isFinite(seconds) ? seconds : 0));
  const h = Math.floor(t / 3600);
  const m = Math.floor(t / 60) % 60;
  const s = t % 60;
  return h > 0 ? `${h}:${String(m).padStart(2, '0')}:${String(s).padStart(2, '0')}` : `${m}:${String(s).padStart(2, '0')}`;
}
