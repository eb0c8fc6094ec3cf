// Loudness that respects the source (issue 28): the dub's voice follows the original speech's level segment by
// segment (a gain curve), the mix reaches the target (the source's own loudness by default, or the Teamspace's web
// or broadcast target) within 1 LU, and the true peak stays at or under -1 dBTP.
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { targetLufs, voiceGainPoints } from '../../../server/domains/projects/loudness';
import { measureLoudnessFigures, mixVoiceAndBackground, synthAudio } from '../../../server/media/ffmpeg';
import { TRUE_PEAK_CEILING_DB } from '../../../server/media/args';
import { writeGainCurveWav } from '../../../server/media/gate';
import { readWav } from '../../../server/media/wav';
import { tempDir } from '../../fixtures/media';

const HOP = 0.02;
const env = (seconds: number, spans: Array<[number, number, number]>) => {
  const rms = new Float32Array(Math.round(seconds / HOP));
  for (const [a, b, level] of spans) for (let f = Math.round(a / HOP); f < Math.round(b / HOP); f++) rms[f] = level;
  return { hopSec: HOP, rms };
};

describe('loudness target', () => {
  it('is the source’s own loudness by default, or the Teamspace’s fixed target', () => {
    expect(targetLufs('source', -28)).toBe(-28);
    expect(targetLufs('source', -18.4)).toBe(-18.4);
    expect(targetLufs('source', null)).toBe(-16);
    expect(targetLufs('source', -Infinity)).toBe(-16);
    expect(targetLufs('source', -4)).toBe(-9);
    expect(targetLufs('web_-14', -28)).toBe(-14);
    expect(targetLufs('web_-16', -28)).toBe(-16);
    expect(targetLufs('broadcast_-23', -10)).toBe(-23);
  });
});

describe('voice gain curve', () => {
  it('puts each segment’s dub at the level of the original speech in its slot', () => {
    // the original: near (0.2) then far (0.02, 20 dB down); the dub: both at 0.1
    const speech = env(10, [[1, 3, 0.2], [5, 7, 0.02]]);
    const dub = env(10, [[1, 3.2, 0.1], [5, 7.1, 0.1]]);
    const pts = voiceGainPoints(
      [{ start: 1, end: 3, placedStart: 1, placedEnd: 3.2 }, { start: 5, end: 7, placedStart: 5, placedEnd: 7.1 }],
      speech,
      dub,
    )!;
    const at = (t: number) => pts.filter((p) => p.t <= t).at(-1)!.gain;
    expect(20 * Math.log10(at(2))).toBeCloseTo(6, 0);
    expect(20 * Math.log10(at(6))).toBeCloseTo(-14, 0);
    // nothing measurable: no curve
    expect(voiceGainPoints([{ start: 1, end: 2, placedStart: 1, placedEnd: 2 }], env(10, []), dub)).toBeNull();
  });

  it('a quiet source stays quiet and keeps its range: -28 LUFS within 1 LU, true peak at most -1 dBTP', async () => {
    const dir = tempDir('loud-');
    const voice = join(dir, 'voice.wav');
    const bg = join(dir, 'bg.wav');
    // two "segments" of a bright, peaky voice at the same level (TTS is flat), a quiet hum under them
    const tone = 'if(between(t\\,0.5\\,4)+between(t\\,5\\,8.5)\\,0.6*sin(2*PI*220*t)*(0.6+0.4*sin(2*PI*3*t))+0.3*sin(2*PI*1760*t)\\,0)';
    await synthAudio(voice, { seconds: 9, source: `aevalsrc=${tone}:s=48000:d=9`, sampleRate: 48000 });
    await synthAudio(bg, { seconds: 9, source: 'aevalsrc=0.01*sin(2*PI*90*t)|0.01*sin(2*PI*91*t):s=48000:d=9', sampleRate: 48000, channels: 2 });
    const gain = join(dir, 'gain.wav');
    // the original's second segment 12 dB under the first
    await writeGainCurveWav(gain, [{ t: 0.45, gain: 1 }, { t: 4.05, gain: 1 }, { t: 4.95, gain: 0.25 }, { t: 8.55, gain: 0.25 }], 9);
    const out = join(dir, 'out.wav');
    await mixVoiceAndBackground(
      { voice, background: bg, out, durationSec: 9, voiceGain: gain, loudness: { I: -16, TP: TRUE_PEAK_CEILING_DB } },
      { targetLufs: Promise.resolve(-28) },
    );
    const m = (await measureLoudnessFigures(out, { truePeak: true }))!;
    expect(Math.abs(m.I - -28)).toBeLessThanOrEqual(1);
    expect(m.TP!).toBeLessThanOrEqual(-1);
    // the two segments keep their 12 dB difference
    const x = readWav(out).channelData[0]!;
    const lvl = (a: number, b: number) => {
      let s = 0;
      for (let i = Math.round(a * 48000); i < Math.round(b * 48000); i++) s += x[i]! ** 2;
      return 10 * Math.log10(s);
    };
    expect(lvl(1, 3.5) - lvl(5.5, 8)).toBeCloseTo(12, 0);
    // loud target: a peaky voice pushed to -14 LUFS is limited under -1 dBTP
    const loud = join(dir, 'loud.m4a');
    await mixVoiceAndBackground({ voice, background: bg, out: loud, durationSec: 9, loudness: { I: -16, TP: TRUE_PEAK_CEILING_DB } }, { targetLufs: Promise.resolve(-14) });
    const ml = (await measureLoudnessFigures(loud, { truePeak: true }))!;
    expect(Math.abs(ml.I - -14)).toBeLessThanOrEqual(1);
    expect(ml.TP!).toBeLessThanOrEqual(-1);
  }, 120_000);
});
