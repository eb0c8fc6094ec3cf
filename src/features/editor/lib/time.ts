// Subtitle timestamps (spec section 5): hh:mm:ss,mmm. Segment times are seconds (numbers).

const TIMESTAMP_RE = /^(\d{2,}):([0-5]\d):([0-5]\d),(\d{3})$/;

export const TIME_FORMAT_ERROR = 'Use the format hh:mm:ss,mmm';

/** Seconds -> 'hh:mm:ss,mmm' (rounded to the millisecond; negatives clamp to 0). */
export function formatTimestamp(seconds: number): string {
  const totalMs = Math.max(0, Math.round((Number.isFinite(seconds) ? seconds : 0) * 1000));
  const ms = totalMs % 1000;
  const totalSec = Math.floor(totalMs / 1000);
  const s = totalSec % 60;
  const m = Math.floor(totalSec / 60) % 60;
  const h = Math.floor(totalSec / 3600);
  return `${String(h).padStart(2, '0')}:${String(m).padStart(2, '0')}:${String(s).padStart(2, '0')},${String(ms).padStart(3, '0')}`;
}

/** 'hh:mm:ss,mmm' -> seconds, or null when the text is not in that exact format. */
export function parseTimestamp(text: string): number | null {
  const m = TIMESTAMP_RE.exec(text.trim());
  if (!m) return null;
  const [, h, mm, ss, ms] = m;
  return (Number(h) * 3600 * 1000 + Number(mm) * 60 * 1000 + Number(ss) * 1000 + Number(ms)) / 1000;
}

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
