// The voice engine interface of the voice presets: make a voice from a speech sample (clone), speak with it.
// Two implementations, chosen by the configuration:
// - ElevenLabs instant voice cloning (TTS_ENGINE=elevenlabs): POST /v1/voices/add with the sample, then
//   text-to-speech with the cloned voice and the preset's voice_settings (stability, similarity_boost);
// - built-in voice matching (offline, no cloning engine): the voice profile measured from the sample (./profile.ts)
//   applied to a built-in voice of the same gender: rate at synthesis, pitch variation through espeak-ng's prosody
//   range, then a formant shift (rubberband without formant preservation) and a pitch shift (rubberband with it).
//   Accent (similarity_boost) is how much of the profile is applied; expressiveness (1 - stability) scales the
//   pitch variation. It is not a clone: the UI calls it "voice matching".
import { rmSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { VoiceProfile } from '../../../contract/schemas/voice-preset';
import type { ElevenLabsEngine } from '../../engines/adapters/elevenlabs';
import type { EngineRegistry } from '../../engines/registry';
import { EngineError, type EngineCallOptions, type SpeechStyle, type TtsEngine, type Voice } from '../../engines/types';
import { pitchShift } from '../../media/ffmpeg';
import { wavDurationSec } from '../../media/wav';
import { sampleText } from '../projects/samples';
import { semitones } from '../../engines/builtin/pitch';
import { measureVoice } from '../../engines/builtin/voice-sample';

/** What an engine needs of a preset to speak with it. */
export interface PresetVoice {
  id: string;
  engine_voice_id: string | null;
  profile: VoiceProfile | null;
  similarity_boost: number;
  stability: number;
}

export interface SpeakRequest {
  text: string;
  lang: string;
  /** 1 = the language's normal rate (as TtsEngine.synthesize). */
  rate: number;
  outPath: string;
}

export interface VoiceCloneEngine {
  readonly id: 'builtin' | 'elevenlabs';
  readonly label: string;
  /** Makes the voice from a speech sample (WAV): the engine's voice id, or null when the profile is the voice. */
  clone(req: { name: string; sample: string; profile: VoiceProfile }, o?: EngineCallOptions): Promise<{ engineVoiceId: string | null }>;
  /** Can it speak this language? */
  speaks(lang: string): Promise<boolean>;
  speak(preset: PresetVoice, req: SpeakRequest, o?: EngineCallOptions): Promise<{ durationSec: number }>;
  /** Forgets the voice (engine side). */
  remove(preset: PresetVoice): Promise<void>;
}

const clamp = (x: number, lo: number, hi: number) => Math.min(hi, Math.max(lo, x));
const lerp = (a: number, b: number, t: number) => a + (b - a) * t;

/** Pitch variation of the built-in voices at prosody range 100% (semitones, 10th-90th percentile; measured). */
const BUILTIN_RANGE_ST = 4.4;
/** Syllables per second the built-in voices speak at rate 1 (about). */
const BUILTIN_SYLLABLES_PER_SEC = 4.2;

/** How the built-in voice matching sets a voice up for a preset (pure). */
export function matchingPlan(profile: VoiceProfile, similarity: number, stability: number): { rateFactor: number; pitchRangePct: number } {
  const s = clamp(similarity, 0, 1);
  const expressiveness = 1 - clamp(stability, 0, 1);
  const rangeRatio = lerp(1, clamp(profile.range_st / BUILTIN_RANGE_ST, 0.3, 2.5), s);
  return {
    rateFactor: Math.round(clamp(lerp(1, profile.speech_rate / BUILTIN_SYLLABLES_PER_SEC, s), 0.85, 1.15) * 1000) / 1000,
    // stability 0.5 keeps the speaker's variation; 0 doubles it, 1 flattens it to a fifth
    pitchRangePct: Math.round(clamp(100 * rangeRatio * (0.2 + 1.6 * expressiveness), 10, 400) / 5) * 5,
  };
}

/** The built-in voice a preset starts from: same gender, nearest typical pitch. */
export function baseVoiceFor(voices: readonly Voice[], profile: VoiceProfile): Voice | null {
  const pool = voices.filter((v) => v.gender === profile.gender);
  const list = pool.length ? pool : voices;
  let best: Voice | null = null;
  let bestD = Infinity;
  for (const v of list) {
    const d = Math.abs(semitones(profile.median_hz, v.pitch ?? (v.gender === 'male' ? 120 : 210)));
    if (d < bestD) {
      best = v;
      bestD = d;
    }
  }
  return best;
}

/** Pitch differences under this (semitones) are left as they are: the stock voice is close enough. */
export const MATCH_MIN_ST = 0.75;

/** The built-in voice matching, plus the default matching of stock voices toward their speaker. */
export interface BuiltinVoiceMatching extends VoiceCloneEngine {
  /**
   * A stock voice moved toward a speaker's measured pitch (issue 28: every default voice is matched, as a preset's
   * voice is): the voice's own median pitch is measured once per process, and each synthesis is pitch-shifted
   * (formants kept) by the difference when it is at least MATCH_MIN_ST. Its id carries the shift (the clip cache
   * makes segments again when it changes). The plain engine when no shift is needed.
   */
  matchStock(tts: TtsEngine, voiceId: string, lang: string, profile: VoiceProfile, o?: EngineCallOptions): Promise<{ tts: TtsEngine; shiftSt: number }>;
}

export function createBuiltinVoiceMatching(engines: EngineRegistry): BuiltinVoiceMatching {
  // What a built-in voice sounds like at a prosody range: measured once per process.
  const measured = new Map<string, Promise<{ medianHz: number; centroid: number }>>();
  const measure = (tts: TtsEngine, voiceId: string, lang: string, style: SpeechStyle) => {
    const key = `${tts.id}|${voiceId}|${lang}|${style.pitchRangePct ?? 100}`;
    let p = measured.get(key);
    if (!p) {
      p = (async () => {
        const dir = await mkdtemp(join(tmpdir(), 'ds-voice-'));
        try {
          const out = join(dir, 'base.wav');
          await tts.synthesize({ text: `${sampleText(lang)} ${sampleText(lang)}`, lang, voiceId, rate: 1, outPath: out, style });
          return await measureVoice(out);
        } finally {
          await rm(dir, { recursive: true, force: true });
        }
      })();
      p.catch(() => measured.delete(key));
      measured.set(key, p);
    }
    return p;
  };
  // Stock voices only (cloned voices of a cloning engine are not a starting point).
  const stock = async (lang: string) => (await engines.voices(lang)).filter((v) => v.engine !== 'elevenlabs');

  return {
    id: 'builtin',
    label: 'Voice matching (built-in)',
    async clone() {
      return { engineVoiceId: null };
    },
    async speaks(lang) {
      return (await stock(lang)).length > 0;
    },
    async speak(preset, req, o = {}) {
      const profile = preset.profile;
      if (!profile) throw new EngineError('bad_input', 'The voice preset has no voice profile');
      const base = baseVoiceFor(await stock(req.lang), profile);
      if (!base) throw new EngineError('unsupported_language', `No built-in voice speaks "${req.lang}"`);
      const tts = await engines.ttsForVoice(base.id, req.lang);
      if (!tts) throw new EngineError('unknown_voice', `The voice "${base.id}" is not available`);
      const plan = matchingPlan(profile, preset.similarity_boost, preset.stability);
      const style: SpeechStyle = { pitchRangePct: plan.pitchRangePct };
      const raw = `${req.outPath}.base.wav`;
      const mid = `${req.outPath}.formant.wav`;
      try {
        await tts.synthesize({ text: req.text, lang: req.lang, voiceId: base.id, rate: req.rate * plan.rateFactor, outPath: raw, style }, o);
        const m = await measure(tts, base.id, req.lang, style);
        const s = clamp(preset.similarity_boost, 0, 1);
        const pitchSt = clamp(s * semitones(m.medianHz, profile.median_hz), -12, 12);
        const formantSt = clamp(s * 12 * Math.log2(profile.spectral_tilt / m.centroid), -3, 3);
        if (Math.abs(formantSt) >= 0.1) {
          // the whole spectrum (formants and pitch) moves by formantSt, then the pitch alone by the rest
          await pitchShift(raw, mid, formantSt, { signal: o.signal });
          await pitchShift(mid, req.outPath, pitchSt - formantSt, { preserveFormants: true, signal: o.signal });
        } else {
          await pitchShift(raw, req.outPath, pitchSt, { preserveFormants: true, signal: o.signal });
        }
      } finally {
        rmSync(raw, { force: true });
        rmSync(mid, { force: true });
      }
      return { durationSec: wavDurationSec(req.outPath) };
    },
    async remove() {},
    async matchStock(tts, voiceId, lang, profile) {
      const m = await measure(tts, voiceId, lang, {});
      const shift = Math.round(clamp(semitones(m.medianHz, profile.median_hz), -12, 12) * 10) / 10;
      if (Math.abs(shift) < MATCH_MIN_ST) return { tts, shiftSt: 0 };
      return {
        shiftSt: shift,
        tts: {
          id: `${tts.id}~pitch${shift > 0 ? '+' : ''}${shift.toFixed(1)}`,
          label: `${tts.label ?? tts.id} (matched to the speaker)`,
          languages: () => tts.languages(),
          voices: (l) => tts.voices(l),
          async synthesize(req, o = {}) {
            const raw = `${req.outPath}.stock.wav`;
            try {
              await tts.synthesize({ ...req, outPath: raw }, o);
              await pitchShift(raw, req.outPath, shift, { preserveFormants: true, signal: o.signal });
            } finally {
              rmSync(raw, { force: true });
            }
            return { durationSec: wavDurationSec(req.outPath) };
          },
        },
      };
    },
  };
}

export function createElevenLabsCloning(cloner: ElevenLabsEngine): VoiceCloneEngine {
  return {
    id: 'elevenlabs',
    label: 'ElevenLabs instant voice cloning',
    async clone(req, o = {}) {
      const r = await cloner.cloneVoice(
        { name: req.name, files: [req.sample], labels: { gender: req.profile.gender }, description: 'Dubbing Studio voice preset' },
        o,
      );
      return { engineVoiceId: r.voiceId };
    },
    async speaks(lang) {
      return cloner.languages().includes(lang.toLowerCase().split(/[-_]/)[0]!);
    },
    async speak(preset, req, o = {}) {
      if (!preset.engine_voice_id) throw new EngineError('unknown_voice', 'The voice preset has no cloned voice yet');
      return cloner.synthesize(
        {
          text: req.text, lang: req.lang, voiceId: preset.engine_voice_id, rate: req.rate, outPath: req.outPath,
          voiceSettings: { stability: preset.stability, similarityBoost: preset.similarity_boost },
        },
        o,
      );
    },
    async remove(preset) {
      if (!preset.engine_voice_id) return;
      try {
        await cloner.deleteVoice(preset.engine_voice_id);
      } catch {
        // already gone on the engine's side, or unreachable: the preset goes anyway
      }
    },
  };
}

/** The engines of presets by id (a preset is spoken by the engine that made it), and the one new presets use. */
export interface VoiceEngines {
  current: VoiceCloneEngine;
  byId(id: string): VoiceCloneEngine | null;
  /** The built-in matching (default voices are moved toward their speaker with it). */
  builtin: BuiltinVoiceMatching;
}

const cache = new WeakMap<object, VoiceEngines>();
/** The cloning engine is ElevenLabs when TTS_ENGINE=elevenlabs registered it; otherwise built-in voice matching. */
export function voiceEngines(deps: { engines: EngineRegistry }): VoiceEngines {
  let e = cache.get(deps.engines);
  if (!e) {
    const builtin = createBuiltinVoiceMatching(deps.engines);
    const tts = deps.engines.get('tts', 'elevenlabs') as Partial<ElevenLabsEngine> | undefined;
    const eleven = tts && typeof tts.cloneVoice === 'function' ? createElevenLabsCloning(tts as ElevenLabsEngine) : null;
    e = { current: eleven ?? builtin, byId: (id) => (id === 'builtin' ? builtin : id === 'elevenlabs' ? eleven : null), builtin };
    cache.set(deps.engines, e);
  }
  return e;
}
