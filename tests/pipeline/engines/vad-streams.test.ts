// Silero VAD of a long file in several streams at once (issue 30): one model call takes one frame of each stream.
// A clip under two minutes is one stream (as before); each later stream starts WARMUP_FRAMES before its own part.
// Checked on 5 minutes of LibriVox speech over real music (drascula-music): each stream's probabilities are those
// of a pass started where it starts (the batch keeps the streams apart), the speech regions agree with the one-pass
// ones and find the true speech as well, and a cancel stops the detection.
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  MAX_STREAMS, MIN_STREAM_FRAMES, SILERO_FRAME, WARMUP_FRAMES, regionsFromProbabilities, sileroFrameProbabilities, vadStreams,
} from '../../../server/engines/builtin/silero-vad';
import { runToolOutput } from '../../../server/media/ffmpeg';
import { readWav } from '../../../server/media/wav';
import { makeLongSpeechWav, tempDir } from '../../fixtures/media';

const MUSIC = '/usr/share/scummvm/drascula/audio/track2.ogg';
const SECONDS = 300;

async function speechOverMusic(): Promise<{ samples: Float32Array; spans: Array<{ start: number; end: number }> }> {
  const { wav, spans } = await makeLongSpeechWav(SECONDS);
  const out = join(tempDir('vad-streams-'), 'mix.wav');
  await runToolOutput('ffmpeg', [
    '-nostdin', '-loglevel', 'error', '-y', '-i', wav, '-stream_loop', '-1', '-i', MUSIC,
    '-filter_complex', '[1:a]aresample=16000,aformat=channel_layouts=mono,volume=-14dB[m];[0:a][m]amix=inputs=2:duration=first:normalize=0',
    '-ar', '16000', '-ac', '1', '-c:a', 'pcm_s16le', out,
  ], {});
  return { samples: readWav(out).channelData[0]!, spans };
}

/** Seconds (at 10 ms) inside the regions of `a` and not of `b`. */
function outside(a: Array<{ start: number; end: number }>, b: Array<{ start: number; end: number }>): number {
  const mask = (rs: Array<{ start: number; end: number }>) => {
    const m = new Uint8Array(SECONDS * 100);
    for (const r of rs) m.fill(1, Math.round(r.start * 100), Math.round(r.end * 100));
    return m;
  };
  const ma = mask(a);
  const mb = mask(b);
  let n = 0;
  for (let i = 0; i < ma.length; i++) if (ma[i] && !mb[i]) n++;
  return n / 100;
}

describe('VAD streams', () => {
  it('are one under two minutes, then one per minute up to the maximum', () => {
    expect(vadStreams(1)).toBe(1);
    expect(vadStreams(2 * MIN_STREAM_FRAMES - 1)).toBe(1);
    expect(vadStreams(2 * MIN_STREAM_FRAMES)).toBe(2);
    expect(vadStreams(5 * MIN_STREAM_FRAMES + 10)).toBe(5);
    expect(vadStreams(3600 * 16000 / SILERO_FRAME)).toBe(MAX_STREAMS);
  });

  it('give each part the probabilities of a pass started where its stream starts, and the same speech as one pass', async () => {
    const { samples, spans } = await speechOverMusic();
    const nFrames = Math.ceil(samples.length / SILERO_FRAME);
    const streams = vadStreams(nFrames);
    expect(streams).toBe(5);
    const one = await sileroFrameProbabilities(samples, { streams: 1 });
    const many = await sileroFrameProbabilities(samples);
    expect(many.length).toBe(one.length);
    // the first stream is the one pass over its own part
    const own = Math.ceil(nFrames / streams);
    for (let f = 0; f < own; f++) expect(many[f]).toBeCloseTo(one[f]!, 5);
    // a later stream: a pass started WARMUP_FRAMES before its part, over its part
    for (const k of [2, streams - 1]) {
      const start = k * own - WARMUP_FRAMES;
      const fresh = await sileroFrameProbabilities(samples.subarray(start * SILERO_FRAME, Math.min(samples.length, (k + 1) * own * SILERO_FRAME)), { streams: 1 });
      for (let f = k * own; f < Math.min(nFrames, (k + 1) * own); f++) expect(many[f]).toBeCloseTo(fresh[f - start]!, 5);
    }
    // the regions: against the true speech (the clips' spans), the streams' errors (speech missed plus music taken
    // for speech) are no more than one pass's, within 1% of the speech; the two disagree on under 5% of it
    const r1 = regionsFromProbabilities(one, samples.length);
    const rn = regionsFromProbabilities(many, samples.length);
    const speech = spans.reduce((a, s) => a + s.end - s.start, 0);
    const errors = (r: typeof r1) => outside(spans, r) + outside(r, spans);
    expect(errors(rn)).toBeLessThan(errors(r1) + 0.01 * speech);
    expect(outside(r1, rn) + outside(rn, r1)).toBeLessThan(0.05 * speech);
  });

  it('stop when cancelled', async () => {
    const { samples } = await speechOverMusic();
    const ac = new AbortController();
    const p = sileroFrameProbabilities(samples, { signal: ac.signal, onProgress: () => ac.abort('cancelled') });
    await expect(p).rejects.toMatchObject({ name: 'AbortError' });
  });
});
