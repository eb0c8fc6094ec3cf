// DSP separation: lengths equal the input, speech moves to the voice track only inside regions, music
// on the side channel stays in the background, and voice + background rebuild the input.
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { createDspSeparation } from '../../server/engines/builtin/dsp-separation';
import { createSileroVad } from '../../server/engines/builtin/silero-vad';
import type { SpeechRegion } from '../../server/engines/types';
import { runTool, synthAudio } from '../../server/media/ffmpeg';
import { FFMPEG, FFMPEG_BASE } from '../../server/media/args';
import { readWav, readWavInfo } from '../../server/media/wav';
import { makeSpeechTrack, tempDir } from '../fixtures/media';

const sep = createDspSeparation();

function rms(x: Float32Array, from = 0, to = x.length): number {
  let s = 0;
  for (let i = from; i < to; i++) s += x[i]! * x[i]!;
  return Math.sqrt(s / Math.max(1, to - from));
}

let stereo: string;
let mono: string;
let regions: SpeechRegion[];
let dur: number;
beforeAll(async () => {
  const d = tempDir('sep-');
  const track = await makeSpeechTrack({ seconds: 10 });
  dur = track.durationSec;
  regions = await createSileroVad().detect(track.wav);
  // music: a low tone panned hard left/right in opposite phase (pure side signal) + speech in the centre
  const music = join(d, 'music.wav');
  await synthAudio(music, { seconds: dur, source: `aevalsrc=0.1*sin(2*PI*110*t)|-0.1*sin(2*PI*110*t):s=44100:c=stereo`, sampleRate: 44100, channels: 2 });
  stereo = join(d, 'mix.wav');
  await runTool(FFMPEG, [
    ...FFMPEG_BASE, '-i', track.wav, '-i', music,
    '-filter_complex', '[0:a]aresample=44100,pan=stereo|c0=c0|c1=c0[s];[s][1:a]amix=inputs=2:normalize=0:duration=first',
    '-c:a', 'pcm_s16le', stereo,
  ]);
  mono = join(d, 'mono.wav');
  await runTool(FFMPEG, [...FFMPEG_BASE, '-i', track.wav, '-ar', '44100', '-c:a', 'pcm_s16le', mono]);
});

describe('dsp separation', () => {
  it('outputs have exactly the input length', async () => {
    const d = tempDir();
    const out = { voice: join(d, 'v.wav'), background: join(d, 'b.wav') };
    await sep.separate(stereo, regions, out);
    const inInfo = readWavInfo(stereo);
    expect(readWavInfo(out.voice).frames).toBe(inInfo.frames);
    expect(readWavInfo(out.background).frames).toBe(inInfo.frames);
    expect(readWavInfo(out.background).channels).toBe(2);
    expect(readWavInfo(out.voice).sampleRate).toBe(44100);
  });

  it('moves speech to the voice track inside regions and keeps the side music in the background', async () => {
    const d = tempDir();
    const out = { voice: join(d, 'v.wav'), background: join(d, 'b.wav') };
    await sep.separate(stereo, regions, out);
    const input = readWav(stereo);
    const voice = readWav(out.voice).channelData[0]!;
    const bg = readWav(out.background);
    const sr = input.sampleRate;
    const r = regions[0]!;
    const a = Math.round((r.start + 0.2) * sr);
    const b = Math.round((r.end - 0.2) * sr);
    // voice carries speech inside the region, nothing outside all regions
    expect(rms(voice, a, b)).toBeGreaterThan(0.02);
    const gapStart = Math.round((regions[0]!.end + 0.1) * sr);
    const gapEnd = regions[1] ? Math.round((regions[1]!.start - 0.1) * sr) : Math.round((dur - 0.05) * sr);
    if (gapEnd > gapStart) expect(rms(voice, gapStart, gapEnd)).toBeLessThan(1e-3);
    // the side signal (L-R)/2 is untouched
    const side = (w: { channelData: Float32Array[] }, i: number) => (w.channelData[0]![i]! - w.channelData[1]![i]!) / 2;
    let diff = 0;
    for (let i = a; i < b; i += 7) diff = Math.max(diff, Math.abs(side(input, i) - side(bg, i)));
    expect(diff).toBeLessThan(2e-4);
    // the centre is quieter in the background than in the input inside speech
    const centre = (w: { channelData: Float32Array[] }) => Float32Array.from(w.channelData[0]!, (l, i) => (l + w.channelData[1]![i]!) / 2);
    expect(rms(centre(bg), a, b)).toBeLessThan(0.6 * rms(centre(input), a, b));
    // voice + background rebuilds the input
    let err = 0;
    for (let i = 0; i < input.frames; i += 11) err = Math.max(err, Math.abs(input.channelData[0]![i]! - (bg.channelData[0]![i]! + voice[i]!)));
    expect(err).toBeLessThan(3e-4);
  });

  it('works on mono input (background = input with speech attenuated)', async () => {
    const d = tempDir();
    const out = { voice: join(d, 'v.wav'), background: join(d, 'b.wav') };
    await sep.separate(mono, regions, out);
    const inInfo = readWavInfo(mono);
    expect(readWavInfo(out.background).frames).toBe(inInfo.frames);
    expect(readWavInfo(out.voice).frames).toBe(inInfo.frames);
    const input = readWav(mono).channelData[0]!;
    const bg = readWav(out.background).channelData[0]!;
    const r = regions[0]!;
    const a = Math.round((r.start + 0.2) * 44100);
    const b = Math.round((r.end - 0.2) * 44100);
    expect(rms(bg, a, b)).toBeLessThan(0.6 * rms(input, a, b));
  });

  it('scales to thousands of regions', async () => {
    const d = tempDir();
    const out = { voice: join(d, 'v.wav'), background: join(d, 'b.wav') };
    const many = Array.from({ length: 2000 }, (_, i) => ({ start: i * 0.005, end: i * 0.005 + 0.003 }));
    await sep.separate(mono, many, out);
    expect(readWavInfo(out.background).frames).toBe(readWavInfo(mono).frames);
  });

  it('keeps the speech band by level: the centre in 150-4500 Hz drops to 8 % inside regions, other bands stay', async () => {
    // centre tones one after another (60 Hz, 1 kHz, 7.5 kHz), half a second of each inside the region
    // and the same outside it
    const d = tempDir();
    const tones = join(d, 'tones.wav');
    await synthAudio(tones, {
      seconds: 6,
      source: `aevalsrc=0.3*if(lt(mod(t\\,3)\\,1)\\,sin(2*PI*60*t)\\,if(lt(mod(t\\,3)\\,2)\\,sin(2*PI*1000*t)\\,sin(2*PI*7500*t))):s=48000`,
      sampleRate: 48000,
      channels: 2,
    });
    const out = { voice: join(d, 'v.wav'), background: join(d, 'b.wav') };
    await sep.separate(tones, [{ start: 0, end: 3 }], out);
    const input = readWav(tones).channelData[0]!;
    const bg = readWav(out.background).channelData[0]!;
    const voice = readWav(out.voice).channelData[0]!;
    const db = (x: number) => 20 * Math.log10(x);
    const level = (x: Float32Array, t0: number) => rms(x, Math.round((t0 + 0.25) * 48000), Math.round((t0 + 0.75) * 48000));
    // inside the region: 60 Hz and 7.5 kHz untouched, 1 kHz at 1 - 0.92
    expect(Math.abs(db(level(bg, 0) / level(input, 0)))).toBeLessThan(0.5);
    expect(db(level(bg, 1) / level(input, 1))).toBeCloseTo(db(0.08), 0);
    expect(Math.abs(db(level(bg, 2) / level(input, 2)))).toBeLessThan(0.5);
    expect(db(level(voice, 1) / level(input, 1))).toBeCloseTo(db(0.92), 0);
    // outside the region nothing moves
    for (const t0 of [3, 4, 5]) expect(Math.abs(db(level(bg, t0) / level(input, t0)))).toBeLessThan(0.1);
    expect(level(voice, 4)).toBeLessThan(1e-4);
  });

  it('writes only the background when no voice output is asked for (the same background)', async () => {
    const d = tempDir();
    const withVoice = { voice: join(d, 'v.wav'), background: join(d, 'b1.wav') };
    await sep.separate(stereo, regions, withVoice);
    await sep.separate(stereo, regions, { background: join(d, 'b2.wav') });
    const { existsSync, readdirSync, readFileSync } = await import('node:fs');
    expect(readFileSync(join(d, 'b2.wav')).equals(readFileSync(withVoice.background))).toBe(true);
    expect(readdirSync(d).sort()).toEqual(['b1.wav', 'b2.wav', 'v.wav']);
    expect(existsSync(join(d, 'v2.wav'))).toBe(false);
  });

  it('is deterministic and accepts no regions', async () => {
    const d = tempDir();
    const o1 = { voice: join(d, 'v1.wav'), background: join(d, 'b1.wav') };
    const o2 = { voice: join(d, 'v2.wav'), background: join(d, 'b2.wav') };
    await sep.separate(stereo, [], o1);
    await sep.separate(stereo, [], o2);
    const v = readWav(o1.voice).channelData[0]!;
    expect(rms(v)).toBe(0);
    const { readFileSync } = await import('node:fs');
    expect(readFileSync(o1.background).equals(readFileSync(o2.background))).toBe(true);
  });
});
