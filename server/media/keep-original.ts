// The dub's bed where segments keep the original audio (issue 29): the background stem everywhere, the source's
// own audio (its speech and background) over the kept spans, crossfaded over a few milliseconds at each edge.
import { FFMPEG, FFMPEG_BASE } from './args';
import { statSync } from 'node:fs';
import { runTool, type OpOptions } from './ffmpeg';
import { MediaError } from './errors';

export interface KeptSpan {
  start: number;
  end: number;
}

/** Crossfade at each edge of a kept span (seconds). */
export const KEEP_FADE_SEC = 0.03;
/** Longest list of spans in one filter expression (more are merged into fewer, longer spans first). */
const MAX_SPANS = 400;

const num = (x: number) => (Math.round(x * 1000) / 1000).toFixed(3);

/** Sorted spans with overlapping or touching ones joined (and at most MAX_SPANS, closing the smallest gaps). */
export function joinSpans(spans: readonly KeptSpan[]): KeptSpan[] {
  const sorted = spans.filter((s) => s.end > s.start).map((s) => ({ ...s })).sort((a, b) => a.start - b.start);
  const out: KeptSpan[] = [];
  for (const s of sorted) {
    const last = out[out.length - 1];
    if (last && s.start <= last.end + 2 * KEEP_FADE_SEC) last.end = Math.max(last.end, s.end);
    else out.push(s);
  }
  while (out.length > MAX_SPANS) {
    let best = 1;
    for (let i = 2; i < out.length; i++) if (out[i]!.start - out[i - 1]!.end < out[best]!.start - out[best - 1]!.end) best = i;
    out[best - 1]!.end = out[best]!.end;
    out.splice(best, 1);
  }
  return out;
}

/**
 * The source's gain over time as an ffmpeg expression of t: 1 inside the spans, 0 outside, linear over KEEP_FADE_SEC
 * on each side (the background's gain is 1 minus it).
 */
export function keptGainExpr(spans: readonly KeptSpan[]): string {
  const f = num(KEEP_FADE_SEC);
  const parts = joinSpans(spans).map((s) => `clip(min((t-${num(s.start - KEEP_FADE_SEC)})/${f}\\,(${num(s.end + KEEP_FADE_SEC)}-t)/${f})\\,0\\,1)`);
  return parts.length === 0 ? '0' : `min(1\\,${parts.join('+')})`;
}

/** ffmpeg arguments: background and source (any formats) -> a 48 kHz stereo float WAV of the background's length with the source over the spans. */
export function keepOriginalArgs(o: { background: string; source: string; spans: readonly KeptSpan[]; out: string; sampleRate?: number }): string[] {
  const sr = o.sampleRate ?? 48000;
  const fmt = `aresample=${sr},aformat=sample_fmts=fltp:channel_layouts=stereo,asetnsamples=n=${Math.round(sr / 200)}`;
  const g = keptGainExpr(o.spans);
  return [
    ...FFMPEG_BASE,
    '-i', o.background,
    '-i', o.source,
    '-filter_complex',
    [
      `[0:a]${fmt},volume=volume='1-${g}':eval=frame[b]`,
      `[1:a]${fmt},volume=volume='${g}':eval=frame[s]`,
      `[b][s]amix=inputs=2:duration=first:dropout_transition=0:normalize=0[out]`,
    ].join(';'),
    '-map', '[out]', '-ar', String(sr), '-ac', '2', '-c:a', 'pcm_f32le',
    o.out,
  ];
}

/** Writes the bed: the background with the source's audio over the kept spans. */
export async function keepOriginalBed(
  o: { background: string; source: string; spans: readonly KeptSpan[]; out: string },
  op: OpOptions = {},
): Promise<void> {
  await runTool(FFMPEG, keepOriginalArgs(o), op);
  let size = 0;
  try {
    size = statSync(o.out).size;
  } catch {
    // missing: reported below
  }
  if (size <= 44) throw new MediaError('failed', 'keeping the original audio produced no output');
}
