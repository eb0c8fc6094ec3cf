// SRT and WebVTT writers and an SRT parser. Pure functions, no I/O. Time codes: contract/timecodes.ts.
import { formatSrtTime, formatVttTime, parseSrtTime } from '../../contract/timecodes';

export interface Cue {
  /** Seconds. */
  start: number;
  end: number;
  text: string;
}

function cleanText(text: string): string {
  // A blank line would end the cue early; "-->" would be read as a timing line.
  return text
    .replace(/\r\n?/g, '\n')
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l.length > 0)
    .join('\n')
    .replace(/-->/g, '->');
}

/** SRT text of cues (numbered from 1; empty cues skipped). Ends with a newline. */
export function toSrt(cues: readonly Cue[]): string {
  const blocks: string[] = [];
  for (const c of cues) {
    const text = cleanText(c.text);
    if (!text) continue;
    blocks.push(`${blocks.length + 1}\n${formatSrtTime(c.start)} --> ${formatSrtTime(Math.max(c.end, c.start))}\n${text}\n`);
  }
  return blocks.join('\n');
}

/** WebVTT text of cues. */
export function toVtt(cues: readonly Cue[]): string {
  const blocks = ['WEBVTT\n'];
  let n = 0;
  for (const c of cues) {
    const text = cleanText(c.text);
    if (!text) continue;
    n++;
    blocks.push(`${n}\n${formatVttTime(c.start)} --> ${formatVttTime(Math.max(c.end, c.start))}\n${text}\n`);
  }
  return blocks.join('\n');
}

export class SrtParseError extends Error {
  override readonly name = 'SrtParseError';
  constructor(message: string, readonly line: number) {
    super(message);
  }
}

const TIMING = /^\s*([\d:.,]+)\s*-->\s*([\d:.,]+)(?:\s+.*)?$/;

/**
 * Parses SRT (tolerates a BOM, CRLF, missing or wrong cue numbers, '.' as the millisecond mark and
 * extra blank lines). Throws SrtParseError for a timing line it cannot read or a file with no cues.
 */
export function parseSrt(input: string): Cue[] {
  const lines = input.replace(/^\uFEFF/, '').replace(/\r\n?/g, '\n').split('\n');
  const cues: Cue[] = [];
  let i = 0;
  while (i < lines.length) {
    while (i < lines.length && lines[i]!.trim() === '') i++;
    if (i >= lines.length) break;
    // optional numeric index line
    if (/^\s*\d+\s*$/.test(lines[i]!) && i + 1 < lines.length && lines[i + 1]!.includes('-->')) i++;
    const timing = TIMING.exec(lines[i]!);
    if (!timing) {
      if (lines[i]!.includes('-->')) throw new SrtParseError(`unreadable timing line: ${lines[i]!.trim()}`, i + 1);
      throw new SrtParseError(`expected a timing line, found: ${lines[i]!.trim().slice(0, 60)}`, i + 1);
    }
    const start = parseSrtTime(timing[1]!);
    const end = parseSrtTime(timing[2]!);
    if (!Number.isFinite(start) || !Number.isFinite(end)) {
      throw new SrtParseError(`unreadable timing line: ${lines[i]!.trim()}`, i + 1);
    }
    i++;
    const text: string[] = [];
    while (i < lines.length && lines[i]!.trim() !== '') {
      // a following cue that lost its blank separator
      if (TIMING.test(lines[i]!) || (/^\s*\d+\s*$/.test(lines[i]!) && TIMING.test(lines[i + 1] ?? ''))) break;
      text.push(lines[i]!.trim());
      i++;
    }
    cues.push({ start, end: Math.max(start, end), text: text.join('\n') });
  }
  if (cues.length === 0) throw new SrtParseError('the file contains no subtitles', 1);
  return cues;
}
