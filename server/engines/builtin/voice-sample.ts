// Voice samples from recordings (the Voices library, spec "voice presets"): the speech of a recording cut along
// time ranges (voice-activity regions, or one speaker's segments) into one WAV, and the voice profile of its start;
// and what a synthesized voice sounds like (median pitch, formant centroid). Plain DSP over files, read range by
// range (a 3-hour project's audio is never held whole). The engines run it in worker threads (./threads.ts): a
// 60-second profile is over half a second of CPU, which on the API's event loop would stall every request.
import type { VoiceProfile } from '../../../contract/schemas/voice-preset';
import { WavReader, readWav, toMono, writeWav } from '../../media/wav';
import { pitchProfile } from './pitch';
import { formantCentroid, voiceProfile } from './voice-profile';
import { runInThread } from './threads';

export interface SpeechSampleRequest {
  /** A mono (or any) WAV: read range by range. */
  wav: string;
  /** Seconds of the recording to keep, in this order (later ones are dropped once `keepSec` is reached). */
  ranges: ReadonlyArray<{ start: number; end: number }>;
  /** Seconds of speech kept at most. */
  keepSec: number;
  /** Cut the range that reaches `keepSec` (true), or keep it whole and stop after it (false). */
  trimToKeep: boolean;
  /** Seconds of silence after each kept range (0: ranges joined directly). */
  gapSec: number;
  /** The sample is written here (WAV at the recording's rate). */
  out: string;
  /** Seconds of the sample's start measured for the voice profile (0: no profile). */
  profileSec: number;
}

export interface SpeechSample {
  /** Seconds of the written sample (gaps included), to 0.01 s. */
  seconds: number;
  /** Seconds of speech in it. */
  speechSec: number;
  /** Null when profileSec was 0 or no pitch could be measured. */
  profile: VoiceProfile | null;
}

/** Cuts and writes the sample and measures its profile (in this thread: see speechSample for the threaded call). */
export function buildSpeechSample(r: SpeechSampleRequest): SpeechSample {
  const reader = new WavReader(r.wav);
  try {
    const sr = reader.info.sampleRate;
    const parts: Float32Array[] = [];
    let kept = 0;
    for (const range of r.ranges) {
      if (kept >= r.keepSec) break;
      const end = r.trimToKeep ? Math.min(range.end, range.start + r.keepSec - kept) : range.end;
      const a = Math.max(0, Math.floor(range.start * sr));
      const b = Math.min(reader.info.frames, Math.ceil(end * sr));
      if (b <= a) continue;
      parts.push(reader.readMono(a, b - a));
      if (r.gapSec > 0) parts.push(new Float32Array(Math.round(r.gapSec * sr)));
      kept += (b - a) / sr;
    }
    const all = new Float32Array(parts.reduce((n, p) => n + p.length, 0));
    let o = 0;
    for (const p of parts) {
      all.set(p, o);
      o += p.length;
    }
    const profile = r.profileSec > 0 ? voiceProfile(all.subarray(0, Math.min(all.length, Math.round(r.profileSec * sr))), sr) : null;
    writeWav(r.out, [all], sr);
    return { seconds: Math.round((all.length / sr) * 100) / 100, speechSec: kept, profile };
  } finally {
    reader.close();
  }
}

/** What a synthesized voice sounds like: its median pitch and formant centroid (defaults when unmeasurable). */
export function measureVoiceFile(wav: string): { medianHz: number; centroid: number } {
  const w = readWav(wav);
  const mono = toMono(w.channelData);
  const pp = pitchProfile(mono, w.sampleRate, { minFrames: 5 });
  return { medianHz: pp.medianHz ?? 150, centroid: formantCentroid(mono, w.sampleRate) ?? 1000 };
}

/** buildSpeechSample in a worker thread. */
export function speechSample(r: SpeechSampleRequest, o: { signal?: AbortSignal } = {}): Promise<SpeechSample> {
  return runInThread<SpeechSample>('speechSample', r, o);
}

/** measureVoiceFile in a worker thread (a few seconds of synthesized speech). */
export function measureVoice(wav: string, o: { signal?: AbortSignal } = {}): Promise<{ medianHz: number; centroid: number }> {
  return runInThread('measureVoice', { wav }, o);
}
