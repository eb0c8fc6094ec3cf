import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createSileroVad } from '/work/wt/sound/server/engines/builtin/silero-vad';
import { separateFile } from '/work/wt/sound/server/engines/builtin/speech-separation';
import { readWav, writeWav } from '/work/wt/sound/server/media/wav';
const B = '/tmp/bench-quality-5WCc9z';
const opts = JSON.parse(process.argv[2] ?? '{}');
const dB = (x: number) => 10 * Math.log10(Math.max(x, 1e-20));
for (const c of ['low-male', 'man-woman', 'vlog']) {
  const d = `${B}/${c}`;
  const w16 = `/tmp/tune/${c}-16k.wav`;
  if (!existsSync(w16)) execFileSync('ffmpeg', ['-nostdin', '-loglevel', 'error', '-y', '-i', `${d}/mix.wav`, '-ac', '1', '-ar', '16000', w16]);
  const regions = await createSileroVad().detect(w16);
  const sp = readWav(`${d}/speech.wav`).channelData[0]!;
  const spSt = `/tmp/tune/${c}-sp.wav`;
  if (!existsSync(spSt)) execFileSync('ffmpeg', ['-nostdin', '-loglevel', 'error', '-y', '-i', `${d}/speech.wav`, '-ac', '2', '-c:a', 'pcm_f32le', spSt]);
  const t0 = performance.now();
  await separateFile({ input: `${d}/mix.wav`, regions, background: `/tmp/tune/${c}-bg.wav`, voice: `/tmp/tune/${c}-v16.wav`, voiceSampleRate: 16000, options: opts,
    also: [spSt, `${d}/background.wav`], alsoOut: [`/tmp/tune/${c}-spbg.wav`, `/tmp/tune/${c}-mubg.wav`] });
  const secs = (performance.now() - t0) / 1000;
  const bg = readWav(`/tmp/tune/${c}-bg.wav`).channelData;
  const tb = readWav(`${d}/background.wav`).channelData;
  const spbg = readWav(`/tmp/tune/${c}-spbg.wav`).channelData;
  const mubg = readWav(`/tmp/tune/${c}-mubg.wav`).channelData;
  const sr = 48000;
  // speech frames: speech stem active (10 ms frames above -40 dB of its peak level)
  let leak = 0, src = 0, mo = 0, mi = 0;
  const hop = 480; let peak = 0;
  const fe: number[] = [];
  for (let i = 0; i + hop <= sp.length; i += hop) { let e = 0; for (let j = i; j < i + hop; j++) e += sp[j]! ** 2; fe.push(e); peak = Math.max(peak, e); }
  for (let f = 0; f < fe.length; f++) {
    if (fe[f]! < peak * 1e-4) continue;
    for (let j = f * hop; j < f * hop + hop; j++) for (let ch = 0; ch < 2; ch++) {
      leak += spbg[ch]![j]! ** 2; src += sp[j]! ** 2; mo += mubg[ch]![j]! ** 2; mi += tb[ch]![j]! ** 2;
    }
  }
  let er = 0, rr = 0; for (let ch = 0; ch < 2; ch++) for (let i = 0; i < tb[ch]!.length; i++) { er += bg[ch]![i]! * tb[ch]![i]!; rr += tb[ch]![i]! ** 2; }
  const a = er / rr; let t = 0, e = 0; for (let ch = 0; ch < 2; ch++) for (let i = 0; i < tb[ch]!.length; i++) { const s = a * tb[ch]![i]!; t += s * s; e += (bg[ch]![i]! - s) ** 2; }
  console.log(c, 'leak', (-dB(leak / src)).toFixed(1), 'bgchange', dB(mo / mi).toFixed(1), 'sisdr', dB(t / e).toFixed(1), 'sec/min', (secs / (sp.length / sr / 60)).toFixed(2));
}
