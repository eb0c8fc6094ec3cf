// pocketsphinx on LibriVox recordings against their reference transcripts.
import { describe, expect, it } from 'vitest';
import { createPocketsphinxAsr, formatTranscript, isFillerToken, parseHypsegLine, stripVariant } from '../../../server/engines/builtin/pocketsphinx';
import { createSileroVad } from '../../../server/engines/builtin/silero-vad';
import { EngineError } from '../../../server/engines/types';
import { librivoxTranscript, librivoxWav, makeSpeechTrack, wordErrorRate } from '../../fixtures/media';

const asr = createPocketsphinxAsr();
const vad = createSileroVad();
const normalise = (w: string) => (w === 'mr' ? 'mister' : w);

describe('pocketsphinx ASR', () => {
  it('is English only', () => {
    expect(asr.languages()).toEqual(['en']);
  });

  it('gets most words of LibriVox speech right, with word times inside the regions', async () => {
    // two clips in one file, regions from the VAD: one decoder run, times mapped back to the file
    const track = await makeSpeechTrack({ seconds: 11.5 });
    expect(track.turns.map((t) => t.source)).toEqual(['0870', '0880']);
    const regions = await vad.detect(track.wav);
    const segments = await asr.transcribe(track.wav, regions, 'en');
    expect(segments.length).toBeGreaterThan(0);
    const hyp = segments.map((s) => s.text).join(' ');
    const ref = `${librivoxTranscript('0870')} ${librivoxTranscript('0880')}`;
    const wer = wordErrorRate(ref, hyp, normalise);
    expect(wer).toBeLessThan(0.6);

    for (const s of segments) {
      expect(s.words.length).toBeGreaterThan(0);
      expect(s.text).toBe(formatTranscript(s.words.map((w) => w.text)));
      let prev = s.start;
      for (const w of s.words) {
        expect(w.start).toBeGreaterThanOrEqual(prev - 1e-9);
        expect(w.end).toBeGreaterThan(w.start);
        expect(w.end).toBeLessThanOrEqual(s.end + 1e-9);
        expect(w.text).toMatch(/^[a-z']+$/);
        prev = w.start;
      }
    }
    // the second sentence's words are timed in the second clip
    const turn2 = track.turns[1]!;
    const man = segments.flatMap((s) => s.words).find((w) => w.text === 'man');
    expect(man).toBeDefined();
    expect(man!.start).toBeGreaterThan(turn2.start);
    expect(man!.end).toBeLessThan(turn2.end + 0.1);
  });

  it('transcribes a single region given by hand', async () => {
    const segs = await asr.transcribe(librivoxWav('0930'), [{ start: 0, end: 3.29 }], 'en');
    expect(segs).toHaveLength(1);
    expect(wordErrorRate(librivoxTranscript('0930'), segs[0]!.text)).toBeLessThan(0.6);
  });

  it('returns nothing for empty or tiny regions, and refuses other languages', async () => {
    expect(await asr.transcribe(librivoxWav('0880'), [], 'en')).toEqual([]);
    expect(await asr.transcribe(librivoxWav('0880'), [{ start: 1, end: 1.05 }], 'en')).toEqual([]);
    await expect(asr.transcribe(librivoxWav('0880'), [{ start: 0, end: 2 }], 'es')).rejects.toBeInstanceOf(EngineError);
  });
});

describe('hypseg parsing', () => {
  it('drops fillers and alternate-pronunciation marks, times in seconds', () => {
    const u = parseHypsegLine(
      'r3 S 0 T -1 A -1 L -1 0 -1 0 <s> 10 -5 -2 hello(2) 40 -5 -2 <sil> 45 -5 -2 [NOISE] 50 -5 -2 world 90 -1 -1 </s> 95',
    )!;
    expect(u.uttId).toBe('r3');
    expect(u.words).toEqual([
      { text: 'hello', start: 0.1, end: 0.4 },
      { text: 'world', start: 0.5, end: 0.9 },
    ]);
    expect(parseHypsegLine('garbage')).toBeNull();
    expect(isFillerToken('++BREATH++')).toBe(true);
    expect(isFillerToken('<sil>')).toBe(true);
    expect(isFillerToken('word')).toBe(false);
    expect(stripVariant('to(3)')).toBe('to');
    expect(formatTranscript(['i', 'think', 'i\'m', 'here'])).toBe("I think I'm here");
  });
});

describe('word error rate helper', () => {
  it('counts substitutions, insertions and deletions', () => {
    expect(wordErrorRate('a b c d', 'a b c d')).toBe(0);
    expect(wordErrorRate('a b c d', 'a x c')).toBe(0.5);
    expect(wordErrorRate('a b', 'a b c d')).toBe(1);
  });
});
