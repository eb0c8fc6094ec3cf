// Stage 6, voice_suggest: a voice per speaker (the cast's when recognised, else the closest stock voice).
import { speakersOf, setSpeakerVoice, updateProjectFields } from '../repository';
import { ready } from '../../../engines/registry';
import { StageFailure } from '../pipeline/stages';
import { type ProjectStageContext } from './common';
import { chooseVoices } from './voices';
import { clonedEngineVoiceIds, presetForVoice, ttsProviderOfSpeakers } from '../../voices/service';
import { applyCast, recogniseCast } from '../../cast/service';
import { presetIdOfVoice } from '../../../../contract/schemas/voice-preset';

// ------------------------------------------------------------------ voice_suggest

export async function voiceSuggest(ctx: ProjectStageContext): Promise<void> {
  const { project, deps } = ctx;
  const tts = await deps.engines.ttsFor(project.dst_lang);
  if (!tts) throw new StageFailure('voice_suggest_failed', `No voice is available for the language "${project.dst_lang}"`);
  await ready(tts);
  // a cloning engine's clones belong to the Teamspaces' voice presets: never suggested as stock voices
  const cloned = await clonedEngineVoiceIds(deps.db);
  const all = (await deps.engines.voices(project.dst_lang)).filter((v) => !cloned.has(v.id));
  if (all.length === 0) throw new StageFailure('voice_suggest_failed', `No voice is available for the language "${project.dst_lang}"`);
  const speakers = await speakersOf(deps.db, project.id);
  // Suggestions come from the language's preferred engine (the configured one, e.g. ElevenLabs over
  // espeak-ng); a voice a person chose and locked stays, whatever its engine.
  const locked = new Set(speakers.filter((s) => s.voice_locked && s.voice_id).map((s) => s.voice_id));
  const own = all.filter((v) => v.engine === tts.id);
  const voices = own.length > 0 ? [...own, ...all.filter((v) => v.engine !== tts.id && locked.has(v.id))] : all;
  // a speaker someone gave a voice preset (a clone) keeps it
  const picks = chooseVoices(speakers.filter((s) => !(s.voice_locked && presetIdOfVoice(s.voice_id))), voices);
  // speakers recognised among the Teamspace's cast are named and voiced as the cast says (undone in the editor)
  const stock = new Set(voices.map((x) => x.id));
  const cast = await recogniseCast(deps, project, speakers, async (id) => stock.has(id) || (await presetForVoice(deps, project, id)) !== null);
  await deps.db.tx(async (t) => {
    for (const [speakerId, voiceId] of picks) await setSpeakerVoice(t, project.id, speakerId, voiceId, false);
    await applyCast(t, project.id, cast, picks);
    // the engines of the voices the speakers now have (a kept clone of another engine counts too)
    await updateProjectFields(t, project.id, { tts_provider: (await ttsProviderOfSpeakers(deps, t, project)) ?? tts.id });
  });
}
