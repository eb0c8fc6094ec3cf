// The built-in diarization of a long input in two parts (issue 30): the features of its two halves (most of the time)
// are computed at once, a thread each, then the normalisation and clustering run over both parts' frames. The
// result is the one-thread result exactly (labels and profiles), on 2.5 minutes of a man and a (pitch-shifted) woman
// taking turns; progress ends at 1; a cancel stops it and leaves no spool behind.
import { readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  DIARIZE_PARTS_FROM_SEC, createDspDiarization, diarizationParts, diarizeFile,
} from '../../../server/engines/builtin/dsp-diarization';
import type { SpeechRegion } from '../../../server/engines/types';
import { runToolOutput } from '../../../server/media/ffmpeg';
import { makeSpeechTrack, tempDir } from '../../fixtures/media';

const REPEATS = 7;

/** The two-speaker track REPEATS times over, with its turns as the regions. */
async function longTwoSpeakers(): Promise<{ wav: string; regions: SpeechRegion[]; speakers: Array<'male' | 'female'> }> {
  const track = await makeSpeechTrack({ twoSpeakers: true });
  const wav = join(tempDir('diar-long-'), 'long.wav');
  await runToolOutput('ffmpeg', ['-nostdin', '-loglevel', 'error', '-y', '-stream_loop', String(REPEATS - 1), '-i', track.wav, '-c:a', 'pcm_s16le', wav], {});
  const regions: SpeechRegion[] = [];
  const speakers: Array<'male' | 'female'> = [];
  for (let k = 0; k < REPEATS; k++) {
    for (const t of track.turns) {
      regions.push({ start: t.start + k * track.durationSec, end: t.end + k * track.durationSec });
      speakers.push(t.speaker);
    }
  }
  return { wav, regions, speakers };
}

const spools = () => readdirSync(tmpdir()).filter((f) => f.startsWith('diar-parts-'));

describe('diarization in parts', () => {
  it('splits at half the speech, in order, only from DIARIZE_PARTS_FROM_SEC', () => {
    const r = (s: number, e: number) => ({ start: s, end: e });
    expect(diarizationParts([r(0, 50), r(60, 110)])).toHaveLength(1);
    const regions = [r(0, 40), r(41, 81), r(82, 122), r(123, 163)];
    const parts = diarizationParts(regions);
    expect(parts.map((p) => p.length)).toEqual([2, 2]);
    expect(parts.flat()).toEqual(regions);
    expect(diarizationParts([r(0, DIARIZE_PARTS_FROM_SEC)])).toHaveLength(1);
  });

  it('gives the one-thread labels and profiles exactly, the speakers right', { timeout: 120_000 }, async () => {
    const { wav, regions, speakers } = await longTwoSpeakers();
    expect(diarizationParts(regions)).toHaveLength(2);
    const progress: number[] = [];
    const inParts = await createDspDiarization().diarize(wav, regions, { onProgress: (f) => progress.push(f) });
    const one = diarizeFile(wav, regions);
    expect(inParts.labels).toEqual(one.labels);
    expect(inParts.profiles).toEqual(one.profiles);
    // the man and the woman apart, with their genders
    const byTruth = new Map<string, Set<string>>();
    inParts.labels.forEach((l, i) => byTruth.set(speakers[i]!, (byTruth.get(speakers[i]!) ?? new Set()).add(l)));
    expect(byTruth.get('male')!.size).toBe(1);
    expect(byTruth.get('female')!.size).toBe(1);
    const gender = (l: string) => inParts.profiles.find((p) => p.speaker === l)!.gender;
    expect(gender([...byTruth.get('male')!][0]!)).toBe('male');
    expect(gender([...byTruth.get('female')!][0]!)).toBe('female');
    expect(progress.at(-1)).toBe(1);
    for (let i = 1; i < progress.length; i++) expect(progress[i]!).toBeGreaterThanOrEqual(progress[i - 1]! - 1e-9);
    expect(spools()).toEqual([]);
  });

  it('stops when cancelled and leaves no spool', { timeout: 120_000 }, async () => {
    const { wav, regions } = await longTwoSpeakers();
    const ac = new AbortController();
    const p = createDspDiarization().diarize(wav, regions, { signal: ac.signal, onProgress: () => ac.abort('cancelled') });
    await expect(p).rejects.toMatchObject({ name: 'AbortError' });
    expect(spools()).toEqual([]);
  });
});
