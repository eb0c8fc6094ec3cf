// The figure of the built-in voice matching: on a two-voice clip built from pocketsphinx-testdata (the LibriVox
// reader and a higher second voice), the median-pitch distance in semitones between each original speaker and
// the dubbed voice, with the stock voice voice_suggest picks (before) and with an instant preset of that speaker
// (after: the voice the voiceover stage uses for a speaker whose voice is the preset). Printed as a table.
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeSpeechTrack, librivoxWav, tempDir } from '../../fixtures/media';
import { projectKey } from '../../../server/storage/index';
import { presetTts, settleVoiceTasks } from '../../../server/domains/voices/service';
import { chooseVoices } from '../../../server/domains/projects/stages/voices';
import { readWav, toMono } from '../../../server/media/wav';
import { pitchProfile, semitones } from '../../../server/engines/builtin/pitch';
import { createHarness, type Harness } from '../harness';
import { eventually } from '../helpers';
import { newUser, seedProject, uploadOk, type TestUser } from '../projects/projects-fixtures';
import { grantPlan } from '../spaces/spaces-fixtures';
import { typedClient } from '../typed-client';

let h: Harness;
let pro: TestUser;

beforeAll(async () => {
  h = await createHarness();
  pro = await newUser(h, 'match');
  await grantPlan(h, pro.id, 'creator_pro');
}, 240_000);
afterAll(async () => {
  if (h) await settleVoiceTasks(h.deps);
  await h?.close();
});

const TEXT = 'Hola a todos. Hoy os cuento cómo hacemos nuestro trabajo y por qué nos gusta tanto.';

function medianOf(path: string): number {
  const w = readWav(path);
  return pitchProfile(toMono(w.channelData), w.sampleRate, { minFrames: 5 }).medianHz!;
}

describe('voice matching on a two-voice clip', () => {
  it('brings each dubbed voice within 2 semitones of its speaker', async () => {
    const track = await makeSpeechTrack({ twoSpeakers: true });
    const media = await uploadOk(h, pro, librivoxWav('0870'), { kind: 'video' });
    const speakerOf = (s: 'male' | 'female') => (s === 'male' ? 'SPEAKER_0' : 'SPEAKER_1');
    const project = await seedProject(h, pro, {
      mediaId: media,
      duration: track.durationSec,
      segments: track.turns.map((t) => ({ start: t.start, end: t.end, speaker: speakerOf(t.speaker), src: 'Hello.', dst: TEXT })),
    });
    await h.deps.storage.putFile(projectKey(project, 'audio_16k.wav'), track.wav);

    // each original speaker's median pitch, from the clip itself
    const w = readWav(track.wav);
    const mono = toMono(w.channelData);
    const original: Record<string, number> = {};
    for (const who of ['male', 'female'] as const) {
      const parts = track.turns.filter((t) => t.speaker === who).map((t) => mono.subarray(Math.floor(t.start * w.sampleRate), Math.floor(t.end * w.sampleRate)));
      const all = new Float32Array(parts.reduce((n, p) => n + p.length, 0));
      let o = 0;
      for (const p of parts) {
        all.set(p, o);
        o += p.length;
      }
      original[speakerOf(who)] = pitchProfile(all, w.sampleRate).medianHz!;
    }

    // before: the stock voices voice_suggest gives these speakers (gender and pitch matched)
    const voices = await h.deps.engines.voices('es');
    const chosen = chooseVoices(
      Object.entries(original).map(([id, hz]) => ({ id, gender: hz >= 160 ? 'female' : 'male', pitch_hz: hz, voice_id: null, voice_locked: false })),
      voices,
    );
    const dir = tempDir('match-');
    const rows: Array<{ speaker: string; original: number; before: number; after: number; afterFull: number }> = [];
    for (const [speaker, hz] of Object.entries(original)) {
      const voiceId = chosen.get(speaker)!;
      const tts = (await h.deps.engines.ttsForVoice(voiceId, 'es'))!;
      const stock = join(dir, `${speaker}-stock.wav`);
      await tts.synthesize({ text: TEXT, lang: 'es', voiceId, rate: 1, outPath: stock });

      // after: an instant preset of the speaker, spoken as the voiceover stage speaks it
      const c = typedClient(h, pro.token);
      const r = await c.POST('/api/voice_preset/from_project', { body: { project_id: project, speaker_id: speaker, is_temporary: true } });
      expect(r.response.status, JSON.stringify(r.error)).toBe(201);
      const preset = r.data!;
      await eventually(() => c.GET('/api/voice_preset/statuses', { params: { query: { ids: preset.id } } }), (x) => x.data![0]?.status === 'done', 30_000);
      const speak = async (settings: { similarity_boost: number; stability: number }, name: string) => {
        await c.POST('/api/voice_preset/{id}/update_settings', { params: { path: { id: preset.id } }, body: settings });
        const engine = (await presetTts(h.deps, { id: project, space_id: pro.defaultSpaceId }, preset.voice_id))!;
        const out = join(dir, `${speaker}-${name}.wav`);
        await engine.synthesize({ text: TEXT, lang: 'es', voiceId: preset.voice_id, rate: 1, outPath: out });
        return medianOf(out);
      };
      const after = await speak({ similarity_boost: 0.75, stability: 0.5 }, 'default');
      const afterFull = await speak({ similarity_boost: 1, stability: 0.5 }, 'full');
      rows.push({ speaker, original: hz, before: medianOf(stock), after, afterFull });
    }
    const st = (a: number, b: number) => Math.abs(semitones(a, b));
    console.log(
      [
        'speaker    original Hz  stock Hz (st)   matched 0.75 Hz (st)  matched 1.0 Hz (st)',
        ...rows.map((r) =>
          `${r.speaker}  ${r.original.toFixed(1).padStart(8)}  ${r.before.toFixed(1).padStart(8)} (${st(r.original, r.before).toFixed(2)})` +
          `  ${r.after.toFixed(1).padStart(8)} (${st(r.original, r.after).toFixed(2)})  ${r.afterFull.toFixed(1).padStart(8)} (${st(r.original, r.afterFull).toFixed(2)})`,
        ),
      ].join('\n'),
    );
    for (const r of rows) {
      expect(st(r.original, r.afterFull)).toBeLessThan(2);
      expect(st(r.original, r.after)).toBeLessThan(Math.max(2, st(r.original, r.before)));
    }
  }, 240_000);
});
