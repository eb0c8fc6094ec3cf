// The region gate of the separation: a control signal that is 1 inside speech regions and 0 outside,
// with linear ramps at the edges. Rendered as a low-rate WAV that ffmpeg multiplies into the voice
// band (amultiply), so any number of regions works (an expression per region does not scale).

export const GATE_SAMPLE_RATE = 1000;

/** Gate samples at `sampleRate` covering `durationSec` (plus one sample). Pure. */
export function regionGate(
  regions: ReadonlyArray<{ start: number; end: number }>,
  o: { durationSec: number; sampleRate?: number; rampSec?: number },
): Float32Array {
  const sr = o.sampleRate ?? GATE_SAMPLE_RATE;
  const ramp = Math.max(o.rampSec ?? 0.04, 1 / sr);
  const n = Math.max(1, Math.ceil(o.durationSec * sr) + 1);
  const g = new Float32Array(n);
  for (const r of regions) {
    if (!(r.end > r.start)) continue;
    const i0 = Math.max(0, Math.floor((r.start - ramp) * sr));
    const i1 = Math.min(n - 1, Math.ceil((r.end + ramp) * sr));
    for (let i = i0; i <= i1; i++) {
      const t = i / sr;
      const v = Math.min(1, Math.max(0, Math.min(t - (r.start - ramp), r.end + ramp - t) / ramp));
      if (v > g[i]!) g[i] = v;
    }
  }
  return g;
}
