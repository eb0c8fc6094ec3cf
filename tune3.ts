import { pitchShift } from './server/media/ffmpeg';
import { readWav, toMono } from './server/media/wav';
import { voiceProfile, formantScale } from './server/engines/builtin/voice-profile';
import { powerSpectrum, rms } from './server/engines/builtin/dsp';
import { pitchProfile } from './server/engines/builtin/pitch';
function band(samples: Float32Array, sr: number, lo: number, hi: number) {
  const frame = Math.round(0.032 * sr); let nfft = 1; while (nfft < frame) nfft <<= 1; const hop = Math.round(0.02 * sr);
  const en: number[] = []; for (let i = 0; i + frame <= samples.length; i += hop) en.push(rms(samples.subarray(i, i + frame)));
  const g = [...en].sort((a, b) => a - b)[Math.floor(0.9 * (en.length - 1))]! * 0.2;
  const cs: number[] = [];
  for (let k = 0, i = 0; i + frame <= samples.length; k++, i += hop) { if (en[k]! < g) continue; const p = powerSpectrum(samples.subarray(i, i + frame), nfft); let a = 0, b = 0; for (let q = Math.floor(lo * nfft / sr); q <= Math.floor(hi * nfft / sr); q++) { a += p[q]! * q * sr / nfft; b += p[q]!; } if (b > 0) cs.push(a / b); }
  cs.sort((a, b) => a - b); return cs[Math.floor(cs.length / 2)];
}
const L = '/usr/share/pocketsphinx/test/data/librivox/sense_and_sensibility_01_austen_64kb-';
for (const id of ['0870', '0920']) {
  const src = `${L}${id}.wav`;
  const hz = pitchProfile(toMono(readWav(src).channelData), 16000).medianHz!;
  const variants: Array<[string, number, number]> = [['male', 0, hz], ['male150', 0, 150], ['fem172', 1, 172], ['fem150', 1, 150], ['fem210', 1, 210], ['male130',0,130]];
  for (const [name, form, to] of variants) {
    let p = src;
    const fs = form ? 12 * Math.log2(1.18) : 0;
    if (form) { await pitchShift(src, '/tmp/tune/a.wav', fs); p = '/tmp/tune/a.wav'; }
    const st = 12 * Math.log2(to / hz) - fs;
    if (Math.abs(st) > 0.01) { await pitchShift(p, '/tmp/tune/b.wav', st, { preserveFormants: true }); p = '/tmp/tune/b.wav'; }
    const x = toMono(readWav(p).channelData);
    const vp = voiceProfile(x, 16000)!;
    console.log(id, name.padEnd(8), vp.median_hz, "formants", formantScale(x,16000)?.toFixed(0));
  }
}
