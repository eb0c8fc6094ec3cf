// The merge in fewer passes (issue 30): the mix's loudness measured in-process from the PCM (no ffmpeg decode-and-mix
// pass to measure), the encoded samples' loudness, range and true peak measured in the pass that encodes them, and
// the voice-only encode writing the report's 16 kHz voice from its one decode.
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { FFMPEG, encodeAudioArgs, measureMixArgs, parseIntegratedLoudness } from '../../../server/media/args';
import { encodeAudio, measureLoudnessFigures, mixVoiceAndBackground, synthAudio } from '../../../server/media/ffmpeg';
import { writeGainCurveWav } from '../../../server/media/gate';
import { measureMix } from '../../../server/media/mix-measure';
import { probe } from '../../../server/media/probe';
import { run } from '../../../server/media/run';
import { readWav, wavRmsEnvelope } from '../../../server/media/wav';
import { tempDir } from '../../fixtures/media';

describe('the mix measured in-process', () => {
  it('gives ffmpeg’s integrated loudness of the sum (gain curve, mono voice up-mixed) and the envelopes', async () => {
    const d = tempDir('mixm-');
    const voice = join(d, 'voice.wav');
    const bg = join(d, 'bg.wav');
    const gain = join(d, 'gain.wav');
    await synthAudio(voice, { seconds: 12, source: 'aevalsrc=if(between(mod(t\\,3)\\,0.3\\,2.2)\\,0.4*sin(2*PI*230*t)*(0.6+0.4*sin(2*PI*4*t))\\,0):s=48000:d=12', sampleRate: 48000 });
    await synthAudio(bg, { seconds: 12, source: 'anoisesrc=color=pink:amplitude=0.05:seed=7', sampleRate: 48000, channels: 2 });
    await writeGainCurveWav(gain, [{ t: 0.2, gain: 1.5 }, { t: 5.8, gain: 1.5 }, { t: 6.1, gain: 0.3 }, { t: 11.5, gain: 0.3 }], 12);
    const opts = { voice, background: bg, out: join(d, 'unused.m4a'), durationSec: 12, voiceGain: gain };
    const r = await run(FFMPEG, measureMixArgs(opts));
    const ffmpegLufs = parseIntegratedLoudness(r.stderr)!;
    const g = readWav(gain);
    const m = await measureMix({ voice, background: bg, durationSec: 12, voiceGain: { rate: g.sampleRate, samples: g.channelData[0]! }, hopSec: 0.02 });
    expect(Math.abs(m.lufs - ffmpegLufs), `in-process ${m.lufs}, ffmpeg ${ffmpegLufs}`).toBeLessThan(0.15);
    // the background's envelope is the file's own (as the report read it)
    const bgEnv = wavRmsEnvelope(bg, 0.02);
    expect(m.background.rms.length).toBe(bgEnv.rms.length);
    for (let i = 0; i < bgEnv.rms.length; i += 37) expect(m.background.rms[i]!).toBeCloseTo(bgEnv.rms[i]!, 4);
    // the sum is louder than the background alone where the voice speaks, and the same where it does not
    expect(m.mix.rms[Math.round(1 / 0.02)]!).toBeGreaterThan(2 * m.background.rms[Math.round(1 / 0.02)]!);
    expect(m.mix.rms[Math.round(2.6 / 0.02)]!).toBeCloseTo(m.background.rms[Math.round(2.6 / 0.02)]!, 4);
  });

  it('measures the encoded samples in the pass that encodes them: the loudness the output file has', async () => {
    const d = tempDir('mixo-');
    const voice = join(d, 'voice.wav');
    const bg = join(d, 'bg.wav');
    await synthAudio(voice, { seconds: 8, source: 'aevalsrc=0.5*sin(2*PI*220*t)*(0.6+0.4*sin(2*PI*3*t))+0.3*sin(2*PI*1760*t):s=48000:d=8', sampleRate: 48000 });
    await synthAudio(bg, { seconds: 8, source: 'anoisesrc=color=pink:amplitude=0.02:seed=3', sampleRate: 48000, channels: 2 });
    const out = join(d, 'mix.m4a');
    const r = await mixVoiceAndBackground({ voice, background: bg, out, durationSec: 8, loudness: { I: -16, TP: -2 }, measureOutput: true }, { targetLufs: Promise.resolve(-14) });
    expect(r.envelopes).not.toBeNull();
    expect(r.output).not.toBeNull();
    const file = (await measureLoudnessFigures(out, { truePeak: true }))!;
    expect(Math.abs(r.output!.I - file.I)).toBeLessThan(0.3);
    expect(Math.abs(r.output!.I - -14)).toBeLessThan(1);
    expect(r.output!.TP!).toBeLessThanOrEqual(-1.5);
    expect(r.output!.LRA).not.toBeNull();
    const p = await probe(out);
    expect(p.audioCodec).toBe('aac');
    expect(Math.abs(p.durationSec - 8)).toBeLessThan(0.05);
  });
});

describe('the voice-only encode', () => {
  it('uses the fast AAC coder at the bitrate asked and writes the mono 16 kHz voice from the same decode', async () => {
    const a = encodeAudioArgs('/v.wav', '/v.m4a', { durationSec: 2, sampleRate: 48000, channels: 1, fast: true, bitrate: '128k', analysisWav: '/q.wav' });
    expect(a.join(' ')).toContain('-aac_coder fast -b:a 128k');
    expect(a.filter((x) => x === '-i')).toHaveLength(1);
    expect(a.at(-1)).toBe('/q.wav');
    expect(a.join(' ')).toContain('aresample=16000,aformat=sample_fmts=fltp:channel_layouts=mono,apad=whole_len=32000,atrim=end_sample=32000');

    const d = tempDir('voenc-');
    const voice = join(d, 'voice.wav');
    await synthAudio(voice, { seconds: 3.3, source: 'sine=frequency=300', sampleRate: 48000 });
    const out = join(d, 'voice.m4a');
    const q = join(d, 'q.wav');
    await encodeAudio(voice, out, { durationSec: 4, sampleRate: 48000, channels: 1, fast: true, bitrate: '128k', analysisWav: q });
    const p = await probe(out);
    expect(p.audioCodec).toBe('aac');
    expect(Math.abs(p.durationSec - 4)).toBeLessThan(0.05);
    const w = readWav(q);
    expect(w.sampleRate).toBe(16000);
    expect(w.channels).toBe(1);
    expect(w.frames).toBe(4 * 16000);
  });
});
