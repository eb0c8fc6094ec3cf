// Quick separation figures on clips kept by `npm run bench:quality -- --separation-only --keep` (a development aid):
// npm run bench:separation -- <kept folder> [clip,...]. Runs the separation in this thread (no
// worker), with the engine's gains applied to the true stems, and prints leakage, background change during speech,
// background SI-SDR and CPU seconds per minute of audio.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { separateFile, type SpeechSeparationOptions } from '../server/engines/builtin/speech-separation';
import { readWav, writeWav } from '../server/media/wav';
import type { SpeechRegion } from '../server/engines/types';

const [root, only] = process.argv.slice(2);
/** Engine options as JSON in SEP_OPTIONS (to try settings). */
const options = JSON.parse(process.env.SEP_OPTIONS ?? '{}') as SpeechSeparationOptions;
const dB = (x: number) => 10 * Math.log10(Math.max(x, 1e-20));
for (const name of (only ?? 'low-male,man-woman,vlog').split(',')) {
  const dir = join(root!, name);
  const pad = Number(process.env.REGION_PAD ?? 0);
  const regions = (JSON.parse(readFileSync(join(dir, 'vad.json'), 'utf8')) as SpeechRegion[]).map((r) => ({ start: Math.max(0, r.start - pad), end: r.end + pad }));
  const speech = readWav(join(dir, 'speech.wav')).channelData[0]!;
  const trueBg = readWav(join(dir, 'background.wav')).channelData;
  const sr = 48000;
  const speechSt = join(dir, 'q-speech-st.wav');
  writeWav(speechSt, [speech, speech], sr);
  const c0 = process.cpuUsage();
  const t0 = performance.now();
  await separateFile({ input: join(dir, 'mix.wav'), regions, background: join(dir, 'q-bg.wav'), options });
  const cpu = process.cpuUsage(c0);
  const wall = (performance.now() - t0) / 1000;
  await separateFile({ input: join(dir, 'mix.wav'), regions, background: join(dir, 'q-bg2.wav'), also: [speechSt, join(dir, 'background.wav')], alsoOut: [join(dir, 'q-sp.wav'), join(dir, 'q-mu.wav')], options });
  const bg = readWav(join(dir, 'q-bg.wav')).channelData;
  const sp = readWav(join(dir, 'q-sp.wav')).channelData;
  const mu = readWav(join(dir, 'q-mu.wav')).channelData;
  // turns: where the speech stem is not silent, in runs (as the bench's turns: gaps of 0.8 s)
  const turns: Array<[number, number]> = [];
  let a = -1;
  let last = -1;
  for (let i = 0; i < speech.length; i++) {
    if (speech[i] !== 0) {
      if (a < 0) a = i;
      else if (i - last > 0.5 * sr) {
        turns.push([a, last + 1]);
        a = i;
      }
      last = i;
    }
  }
  if (a >= 0) turns.push([a, last + 1]);
  let leak = 0, src = 0, mOut = 0, mIn = 0;
  for (const [s, e] of turns) for (let c = 0; c < 2; c++) for (let i = s; i < e; i++) {
    leak += sp[c]![i]! ** 2;
    src += speech[i]! ** 2;
    mOut += mu[c]![i]! ** 2;
    mIn += trueBg[c]![i]! ** 2;
  }
  let er = 0, rr = 0;
  for (let c = 0; c < 2; c++) for (let i = 0; i < speech.length; i++) {
    er += bg[c]![i]! * trueBg[c]![i]!;
    rr += trueBg[c]![i]! ** 2;
  }
  const al = er / rr;
  let t = 0, e = 0;
  for (let c = 0; c < 2; c++) for (let i = 0; i < speech.length; i++) {
    t += (al * trueBg[c]![i]!) ** 2;
    e += (bg[c]![i]! - al * trueBg[c]![i]!) ** 2;
  }
  // the error's parts: speech left, music lost; inside the turns and outside them
  const inTurn = new Uint8Array(speech.length);
  for (const [s0, e0] of turns) inTurn.fill(1, s0, e0);
  const parts = [0, 0, 0, 0];
  for (let c = 0; c < 2; c++) for (let i = 0; i < speech.length; i++) {
    const q = inTurn[i] ? 0 : 2;
    parts[q]! += sp[c]![i]! ** 2;
    parts[q + 1]! += (mu[c]![i]! - trueBg[c]![i]!) ** 2;
  }
  const secs = speech.length / sr;
  if (process.env.DETAIL) console.log(`  error vs bg energy: speech left in turns ${dB(parts[0]! / rr).toFixed(1)}, music lost in turns ${dB(parts[1]! / rr).toFixed(1)}, speech left outside ${dB(parts[2]! / rr).toFixed(1)}, music lost outside ${dB(parts[3]! / rr).toFixed(1)} dB`);
  console.log(`${name.padEnd(10)} leakage ${(-dB(leak / src)).toFixed(1)} dB  bg change ${dB(mOut / mIn).toFixed(1)} dB  SI-SDR ${dB(t / e).toFixed(1)} dB  cpu ${(((cpu.user + cpu.system) / 1e6) / (secs / 60)).toFixed(3)} s/min  wall ${(wall / (secs / 60)).toFixed(3)} s/min`);
}
