// SRT / VTT writers and the SRT parser.
import { describe, expect, it } from 'vitest';
import { formatSrtTime, formatVttTime, parseSrtTime } from '../../../contract/timecodes';
import { parseSrt, SrtParseError, toSrt, toVtt, type Cue } from '../../../server/media/subtitles';

const cues: Cue[] = [
  { start: 0, end: 1.5, text: 'Hello there.' },
  { start: 1.75, end: 4.001, text: 'Two lines\nof text' },
  { start: 3725.042, end: 3727.9995, text: 'After an hour, "quoted" & <b>tagged</b>' },
];

describe('time formats', () => {
  it('formats hh:mm:ss,mmm and hh:mm:ss.mmm', () => {
    expect(formatSrtTime(0)).toBe('00:00:00,000');
    expect(formatSrtTime(3723.5)).toBe('01:02:03,500');
    expect(formatSrtTime(59.9996)).toBe('00:01:00,000');
    expect(formatVttTime(61.007)).toBe('00:01:01.007');
    expect(formatSrtTime(-1)).toBe('00:00:00,000');
    expect(formatSrtTime(100 * 3600)).toBe('100:00:00,000');
  });
  it('parses variants', () => {
    expect(parseSrtTime('01:02:03,500')).toBeCloseTo(3723.5, 6);
    expect(parseSrtTime('01:02:03.5')).toBeCloseTo(3723.5, 6);
    expect(parseSrtTime('02:03,04')).toBeCloseTo(123.04, 6);
    expect(parseSrtTime('1:2:3')).toBe(3723);
    expect(parseSrtTime('abc')).toBeNaN();
  });
});

describe('SRT', () => {
  it('writes numbered cues separated by blank lines', () => {
    const srt = toSrt(cues);
    expect(srt.startsWith('1\n00:00:00,000 --> 00:00:01,500\nHello there.\n\n2\n00:00:01,750 --> 00:00:04,001\nTwo lines\nof text\n')).toBe(true);
    expect(srt).toContain('3\n01:02:05,042 --> 01:02:08,000\n');
  });
  it('round-trips to the millisecond', () => {
    const back = parseSrt(toSrt(cues));
    expect(back).toHaveLength(3);
    back.forEach((c, i) => {
      expect(c.start).toBeCloseTo(Math.round(cues[i]!.start * 1000) / 1000, 6);
      expect(c.end).toBeCloseTo(Math.round(cues[i]!.end * 1000) / 1000, 6);
      expect(c.text).toBe(cues[i]!.text);
    });
  });
  it('skips empty cues and removes blank lines inside a cue', () => {
    const srt = toSrt([{ start: 0, end: 1, text: '   ' }, { start: 1, end: 2, text: 'a\n\n\nb' }]);
    expect(srt).toBe('1\n00:00:01,000 --> 00:00:02,000\na\nb\n');
  });
  it('parses BOM, CRLF, missing numbers, extra blank lines and cue settings', () => {
    const text = '\uFEFF1\r\n00:00:01,000 --> 00:00:02,000\r\nFirst\r\n\r\n\r\n00:00:03.000 --> 00:00:04.5 X1:10\r\nSecond\r\nline\r\n\r\n7\r\n00:00:05,000 --> 00:00:06,000\r\nThird';
    expect(parseSrt(text)).toEqual([
      { start: 1, end: 2, text: 'First' },
      { start: 3, end: 4.5, text: 'Second\nline' },
      { start: 5, end: 6, text: 'Third' },
    ]);
  });
  it('recovers a cue without its blank separator', () => {
    const text = '1\n00:00:01,000 --> 00:00:02,000\nFirst\n2\n00:00:03,000 --> 00:00:04,000\nSecond\n';
    expect(parseSrt(text).map((c) => c.text)).toEqual(['First', 'Second']);
  });
  it('rejects garbage with a line number', () => {
    expect(() => parseSrt('')).toThrow(SrtParseError);
    expect(() => parseSrt('hello\nworld')).toThrow(/expected a timing line/);
    try {
      parseSrt('1\n00:00:01,000 --> 00:00:02,000\nok\n\n2\n00:00:xx --> 00:00:03,000\nbad');
      expect.unreachable();
    } catch (e) {
      expect(e).toBeInstanceOf(SrtParseError);
      expect((e as SrtParseError).line).toBe(6);
    }
  });
});

describe('VTT', () => {
  it('has the header and dotted times', () => {
    const vtt = toVtt(cues);
    expect(vtt.startsWith('WEBVTT\n\n1\n00:00:00.000 --> 00:00:01.500\nHello there.\n')).toBe(true);
    expect(vtt).toContain('01:02:05.042 --> 01:02:08.000');
  });
  it('never emits a timing arrow inside text', () => {
    expect(toVtt([{ start: 0, end: 1, text: 'a --> b' }])).toContain('a -> b');
  });
});
