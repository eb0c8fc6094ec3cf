// Built-in separation (issue 28): real speech (LibriVox, a low ~100 Hz male reader) over real recorded stereo music
// (drascula-music), mixed at known levels, so the true stems are known. The speech must leave the background (leakage
// measured on the speech stem through the engine's own gains), the music must stay (its level during speech, the
// side channel untouched, nothing changed outside the speech regions), the stereo image is kept, and the voice
// estimate comes out as a 16 kHz mono stem. Lengths equal the input; mono input works; reruns are byte-identical.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { createDspSeparation } from '../../../server/engines/builtin/dsp-separation';
import type { SpeechRegion } from '../../../server/engines/types';
import { runTool } from '../../../server/media/ffmpeg';
import { FFMPEG, FFMPEG_BASE } from '../../../server/media/args';
import { readWav, readWavInfo } from '../../../server/media/wav';
import { librivoxWav, tempDir } from '../../fixtures/media';

const sep = createDspSeparation();
const MUSIC = '/usr/share/scummvm/drascula/audio/track7.ogg';
const MUSIC_ALT = '/usr/share/scummvm/drascula/it/track7.ogg';
const SR = 48000;

const energy = (x: Float32Array, a = 0, b = x.length) => {
  let s = 0;
  for (let i = a; i < b; i++) s += x[i]! * x[i]!;
  return s;
};
const dB = (x: number) => 10 * Math.log10(x);

let dir: string;
let mix: string;
let speechSt: string;
let music: string;
let mono: string;
/** Where the reader speaks (the clip placed at 1 s), as a VAD would find it. */
let regions: SpeechRegion[];
beforeAll(async () => {
  dir = tempDir('sep-');
  let musicFile = MUSIC;
  try {
    readFileSync(MUSIC, { flag: 'r' });
  } catch {
    musicFile = MUSIC_ALT;
  }
  // 9 s: silence, the reader from 1 s (7.1 s of speech), music throughout 15 dB under the speech's level
  speechSt = join(dir, 'speech.wav');
  await runTool(FFMPEG, [
    ...FFMPEG_BASE, '-i', librivoxWav('0870'),
    '-af', `highpass=f=30,aresample=${SR},adelay=1000,apad=whole_len=${9 * SR},pan=stereo|c0=c0|c1=c0`, '-c:a', 'pcm_f32le', speechSt,
  ]);
  music = join(dir, 'music.wav');
  await runTool(FFMPEG, [...FFMPEG_BASE, '-ss', '5', '-t', '9', '-i', musicFile, '-af', `aresample=${SR},volume=-17dB`, '-ac', '2', '-c:a', 'pcm_f32le', music]);
  mix = join(dir, 'mix.wav');
  await runTool(FFMPEG, [...FFMPEG_BASE, '-i', speechSt, '-i', music, '-filter_complex', 'amix=inputs=2:normalize=0:duration=first', '-c:a', 'pcm_f32le', mix]);
  mono = join(dir, 'mono.wav');
  await runTool(FFMPEG, [...FFMPEG_BASE, '-i', mix, '-ac', '1', '-c:a', 'pcm_s16le', mono]);
  regions = [{ start: 1.0, end: 8.1 }];
}, 120_000);

describe('built-in separation', () => {
  it('removes the speech (leakage under -20 dB) and keeps the music during speech (its level within 4.5 dB)', async () => {
    const parts = { speech: join(dir, 'sp-bg.wav'), music: join(dir, 'mu-bg.wav') };
    await sep.decompose(mix, regions, [speechSt, music], [parts.speech, parts.music], join(dir, 'bg-d.wav'));
    const a = 1.2 * SR;
    const b = 8 * SR;
    const speech = readWav(speechSt).channelData;
    const left = readWav(parts.speech).channelData;
    const kept = readWav(parts.music).channelData;
    const trueMusic = readWav(music).channelData;
    const leak = dB((energy(left[0]!, a, b) + energy(left[1]!, a, b)) / (energy(speech[0]!, a, b) + energy(speech[1]!, a, b)));
    const musicChange = dB((energy(kept[0]!, a, b) + energy(kept[1]!, a, b)) / (energy(trueMusic[0]!, a, b) + energy(trueMusic[1]!, a, b)));
    expect(leak).toBeLessThan(-20);
    expect(Math.abs(musicChange)).toBeLessThan(4.5);
    // the parts add up to the background of the mix (the engine is linear in the signal for fixed gains)
    const bg = readWav(join(dir, 'bg-d.wav')).channelData[0]!;
    let err = 0;
    for (let i = 0; i < bg.length; i += 7) err = Math.max(err, Math.abs(bg[i]! - left[0]![i]! - kept[0]![i]!));
    expect(err).toBeLessThan(5e-4);
  }, 120_000);

  it('keeps the stereo image and everything outside the speech; writes the voice as a 16 kHz mono stem', async () => {
    const out = { background: join(dir, 'bg.wav'), voice: join(dir, 'voice16k.wav'), voiceSampleRate: 16000 };
    await sep.separate(mix, regions, out);
    const input = readWav(mix).channelData;
    const bg = readWav(out.background);
    expect(bg.channels).toBe(2);
    expect(bg.frames).toBe(readWavInfo(mix).frames);
    const v = readWavInfo(out.voice);
    expect(v).toMatchObject({ channels: 1, sampleRate: 16000, frames: Math.floor(readWavInfo(mix).frames / 3) });
    // the side channel (L-R)/2 is untouched (16-bit rounding only), everywhere
    let side = 0;
    for (let i = 0; i < bg.frames; i += 5) side = Math.max(side, Math.abs((input[0]![i]! - input[1]![i]!) / 2 - (bg.channelData[0]![i]! - bg.channelData[1]![i]!) / 2));
    expect(side).toBeLessThan(1e-4);
    // before the speech region (and its 50 ms ramp) the background is the input
    let before = 0;
    for (let i = 0; i < 0.9 * SR; i++) before = Math.max(before, Math.abs(input[0]![i]! - bg.channelData[0]![i]!));
    expect(before).toBeLessThan(1e-4);
    // the voice stem carries the speech: loud inside the region, silent before it
    const voice = readWav(out.voice).channelData[0]!;
    expect(Math.sqrt(energy(voice, 1.5 * 16000, 7.5 * 16000) / (6 * 16000))).toBeGreaterThan(0.01);
    expect(energy(voice, 0, 0.8 * 16000)).toBe(0);
  }, 120_000);

  it('works on mono input: the speech leaves, the background is stereo and as long as the input', async () => {
    const out = { background: join(dir, 'bg-mono.wav') };
    await sep.separate(mono, regions, out);
    const input = readWav(mono).channelData[0]!;
    const bg = readWav(out.background);
    expect(bg.frames).toBe(input.length);
    expect(bg.channels).toBe(2);
    expect(dB(energy(bg.channelData[0]!, 1.5 * SR, 7.5 * SR) / energy(input, 1.5 * SR, 7.5 * SR))).toBeLessThan(-6);
  }, 120_000);

  it('is deterministic, accepts no regions (background = input) and thousands of tiny regions', async () => {
    const o1 = { background: join(dir, 'b1.wav'), voice: join(dir, 'v1.wav') };
    const o2 = { background: join(dir, 'b2.wav') };
    await sep.separate(mix, regions, o1);
    await sep.separate(mix, regions, o2);
    expect(readFileSync(o1.background).equals(readFileSync(o2.background))).toBe(true);
    const none = join(dir, 'none.wav');
    await sep.separate(mono, [], { background: none });
    const a = readWav(mono).channelData[0]!;
    const b = readWav(none).channelData[1]!;
    let d = 0;
    for (let i = 0; i < a.length; i++) d = Math.max(d, Math.abs(a[i]! - b[i]!));
    expect(d).toBe(0);
    const many = Array.from({ length: 2000 }, (_, i) => ({ start: i * 0.004, end: i * 0.004 + 0.003 }));
    await sep.separate(mono, many, { background: join(dir, 'many.wav') });
    expect(readWavInfo(join(dir, 'many.wav')).frames).toBe(a.length);
  }, 120_000);
});
