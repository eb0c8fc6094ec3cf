// Recognise the voice, not the mix (issue 33): recognition runs on the mix and on the separation's speech estimate,
// and each region keeps the hypothesis pocketsphinx is surer of. Real speech (LibriVox) and real music
// (fb-music-high) at 12 LU under it, through the pipeline's separation engine; clean speech keeps the mix's words.
import { afterAll, describe, expect, it } from 'vitest';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { createPocketsphinxAsr } from '../../../server/engines/builtin/pocketsphinx';
import { createDspSeparation } from '../../../server/engines/builtin/dsp-separation';
import { CLEAN_SHARE, chooseByConfidence, hypothesisScore, removedShare, transcribeBestInput } from '../../../server/engines/builtin/asr-input';
import { FFMPEG, FFMPEG_BASE } from '../../../server/media/args';
import { runTool } from '../../../server/media/ffmpeg';
import { run } from '../../../server/media/run';
import { readWav, toMono, wavRmsEnvelopeAsync, writeWav } from '../../../server/media/wav';
import type { AsrSegment, SpeechRegion } from '../../../server/engines/types';
import { librivoxTranscript, librivoxWav, tempDir, wordErrorRate, type LibrivoxId } from '../../fixtures/media';

const SR = 48000;
const FB_MUSIC = '/usr/share/games/frozen-bubble/snd/frozen-mainzik-2p.xm';
const dirs: string[] = [];
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

const ff = (argv: string[]) => runTool(FFMPEG, [...FFMPEG_BASE, ...argv]);
async function lufs(path: string): Promise<number> {
  const r = await run(FFMPEG, ['-nostdin', '-hide_banner', '-nostats', '-i', path, '-af', 'ebur128', '-f', 'null', '-']);
  return Number(/I:\s*(-?[\d.]+) LUFS/.exec(r.stderr.slice(r.stderr.lastIndexOf('Summary:')))?.[1]);
}

/** The sentences 0.8 s apart (from 1 s), with the music `lu` LU under them (none: clean); 48 kHz mix and 16 kHz mono. */
async function makeClip(ids: LibrivoxId[], music: { file: string; at: number; lu: number } | null) {
  const dir = tempDir('asr-input-');
  dirs.push(dir);
  const parts: Float32Array[] = [];
  const regions: SpeechRegion[] = [];
  let t = 1;
  for (const id of ids) {
    const p = join(dir, `${id}.wav`);
    await ff(['-i', librivoxWav(id), '-af', `highpass=f=30:poles=2,aresample=${SR}`, '-ac', '1', '-c:a', 'pcm_f32le', p]);
    const x = toMono(readWav(p).channelData);
    regions.push({ start: t, end: t + x.length / SR });
    parts.push(x);
    t += x.length / SR + 0.8;
  }
  const seconds = Math.ceil(t + 0.5);
  const speech = new Float32Array(seconds * SR);
  parts.forEach((x, k) => speech.set(x, Math.round(regions[k]!.start * SR)));
  const L = Float32Array.from(speech);
  const R = Float32Array.from(speech);
  if (music) {
    const raw = join(dir, 'music.wav');
    await ff(['-ss', String(music.at), '-t', String(seconds), '-i', music.file, '-af', `aresample=${SR},apad`, '-ac', '2', '-t', String(seconds), '-c:a', 'pcm_f32le', raw]);
    const sp = join(dir, 'speech.wav');
    writeWav(sp, [speech], SR);
    const m = readWav(raw).channelData;
    const g = 10 ** (((await lufs(sp)) - music.lu - (await lufs(raw))) / 20);
    for (let i = 0; i < L.length; i++) {
      L[i]! += (m[0]![i] ?? 0) * g;
      R[i]! += ((m[1] ?? m[0]!)[i] ?? 0) * g;
    }
  }
  const mix48 = join(dir, 'audio_48k.wav');
  const mix16 = join(dir, 'audio_16k.wav');
  const speech16 = join(dir, 'speech_16k.wav');
  writeWav(mix48, [L, R], SR);
  await ff(['-i', mix48, '-ac', '1', '-ar', '16000', '-c:a', 'pcm_s16le', mix16]);
  // the pipeline's separation engine writes the speech estimate, as the separate_background stage does
  await createDspSeparation().separate(mix48, regions, { background: join(dir, 'background.wav'), voice: speech16, voiceSampleRate: 16000 });
  return { mix16, speech16, regions, ref: ids.map(librivoxTranscript).join(' ') };
}

const text = (segs: AsrSegment[]) => segs.map((s) => s.text).join(' ');

describe('recognition input chosen by confidence', () => {
  it('scores a hypothesis by its duration-weighted confidence and keeps the stem only when it is surer by the margin', () => {
    const r = { start: 0, end: 2 };
    const seg = (c: number, text = 'x'): AsrSegment => ({ start: 0, end: 2, text, words: [{ text, start: 0, end: 1, confidence: c }] });
    expect(hypothesisScore(seg(0.8), r)).toBeCloseTo(0.4);
    expect(hypothesisScore(undefined, r)).toBe(0);
    const a = chooseByConfidence([r], [seg(0.5, 'mix')], [seg(0.8, 'stem')]);
    expect(a.choices[0]!.input).toBe('speech');
    expect(a.segments[0]!.text).toBe('stem');
    // about equal (clean speech): the mix stays
    expect(chooseByConfidence([r], [seg(0.5, 'mix')], [seg(0.55, 'stem')]).segments[0]!.text).toBe('mix');
    // nothing recognised on the mix, words on the stem
    expect(chooseByConfidence([r], [], [seg(0.9, 'stem')]).segments[0]!.text).toBe('stem');
  });

  it('recognises the speech estimate under music (lower WER than the mix) and keeps the mix on clean speech', async () => {
    const asr = createPocketsphinxAsr();
    // music 12 LU under a reading: the stem's words are surer, and better
    const noisy = await makeClip(['0890'], { file: FB_MUSIC, at: 21.9, lu: 12 });
    const onMix = await asr.transcribe(noisy.mix16, noisy.regions, 'en');
    const best = await transcribeBestInput(asr, noisy.mix16, noisy.speech16, noisy.regions, 'en');
    // the stem is chosen (where the recognizer is surer of it)
    expect(best.choices.map((c) => c.input)).toEqual(['speech']);
    const werMix = wordErrorRate(noisy.ref, text(onMix));
    const werBest = wordErrorRate(noisy.ref, text(best.segments));
    expect(werBest).toBeLessThan(werMix);

    // clean speech: not worse than recognising the mix
    const clean = await makeClip(['0880', '0930'], null);
    const cleanMix = await asr.transcribe(clean.mix16, clean.regions, 'en');
    const cleanBest = await transcribeBestInput(asr, clean.mix16, clean.speech16, clean.regions, 'en');
    expect(wordErrorRate(clean.ref, text(cleanBest.segments))).toBeLessThanOrEqual(wordErrorRate(clean.ref, text(cleanMix)));

    // what the stage decodes twice: the music region (the separation took the music away), not clean speech
    const share = async (c: { mix16: string; speech16: string; regions: SpeechRegion[] }) => {
      const [m, v] = await Promise.all([wavRmsEnvelopeAsync(c.mix16, 0.05), wavRmsEnvelopeAsync(c.speech16, 0.05)]);
      return c.regions.map((r) => removedShare(m, v, r.start, r.end));
    };
    expect((await share(noisy)).every((x) => x >= CLEAN_SHARE), JSON.stringify(await share(noisy))).toBe(true);
    expect((await share(clean)).every((x) => x < CLEAN_SHARE), JSON.stringify(await share(clean))).toBe(true);
    let decodes = 0;
    const counting = { ...asr, transcribe: (...a: Parameters<typeof asr.transcribe>) => ((decodes += a[1].length), asr.transcribe(...a)) };
    const [m, v] = await Promise.all([wavRmsEnvelopeAsync(clean.mix16, 0.05), wavRmsEnvelopeAsync(clean.speech16, 0.05)]);
    const gated = await transcribeBestInput(counting, clean.mix16, clean.speech16, clean.regions, 'en', { worthStem: (r) => removedShare(m, v, r.start, r.end) >= CLEAN_SHARE });
    expect(decodes).toBe(clean.regions.length); // one decode per region: the mix only
    expect(text(gated.segments)).toBe(text(cleanMix));
    console.log(`WER under music: mix ${werMix.toFixed(3)}, chosen ${werBest.toFixed(3)}; clean: mix ${wordErrorRate(clean.ref, text(cleanMix)).toFixed(3)}, chosen ${wordErrorRate(clean.ref, text(cleanBest.segments)).toFixed(3)}`, best.choices);
  }, 120_000);
});
