// Subtitle time codes (spec section 5): hh:mm:ss,mmm in SRT and in the editor, hh:mm:ss.mmm in WebVTT.
// One implementation for the editor's time fields and the server's SRT/VTT writer and reader. Pure.

function splitMs(sec: number): [number, number, number, number] {
  const totalMs = Math.max(0, Math.round((Number.isFinite(sec) ? sec : 0) * 1000));
  const ms = totalMs % 1000;
  const s = Math.floor(totalMs / 1000) % 60;
  const m = Math.floor(totalMs / 60000) % 60;
  const h = Math.floor(totalMs / 3600000);
  return [h, m, s, ms];
}
const p2 = (n: number) => String(n).padStart(2, '0');
const p3 = (n: number) => String(n).padStart(3, '0');

/** Seconds -> 'hh:mm:ss,mmm' (3723.5 -> '01:02:03,500'; rounded to the millisecond; negatives clamp to 0). */
export function formatSrtTime(sec: number): string {
  const [h, m, s, ms] = splitMs(sec);
  return `${p2(h)}:${p2(m)}:${p2(s)},${p3(ms)}`;
}

/** Seconds -> 'hh:mm:ss.mmm' (WebVTT). */
export function formatVttTime(sec: number): string {
  const [h, m, s, ms] = splitMs(sec);
  return `${p2(h)}:${p2(m)}:${p2(s)}.${p3(ms)}`;
}

const STRICT_RE = /^(\d{2,}):([0-5]\d):([0-5]\d),(\d{3})$/;

/** 'hh:mm:ss,mmm' exactly (what the editor accepts) -> seconds, or null. */
export function parseSrtTimeStrict(text: string): number | null {
  const m = STRICT_RE.exec(text.trim());
  if (!m) return null;
  const [, h, mm, ss, ms] = m;
  return (Number(h) * 3600 * 1000 + Number(mm) * 60 * 1000 + Number(ss) * 1000 + Number(ms)) / 1000;
}

/** What SRT files in the wild carry: '01:02:03,500', '01:02:03.500', '02:03,5', '1:02:03,5' -> seconds; NaN when unreadable. */
export function parseSrtTime(t: string): number {
  const m = /^\s*(?:(\d+):)?(\d{1,2}):(\d{1,2})(?:[,.](\d{1,3}))?\s*$/.exec(t);
  if (!m) return NaN;
  const [, h, mi, s, frac] = m;
  const ms = frac ? Number(frac.padEnd(3, '0')) : 0;
  return Number(h ?? 0) * 3600 + Number(mi) * 60 + Number(s) + ms / 1000;
}
