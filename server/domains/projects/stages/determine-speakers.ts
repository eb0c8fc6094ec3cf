// Stage 5, determine_speakers: speakers by diarization, each with a voice profile (pitch, formants, pace).
import { join } from 'node:path';
import type { VoiceProfile } from '../../../../contract/schemas/voice-preset';
import { speechSample } from '../../../engines/builtin/voice-sample';
import { GENDER_SURE } from '../../../engines/builtin/voice-profile';
import { replaceSpeakers } from '../repository';
import { segmentsOf, setSegmentSpeakers } from '../transcript/repository';
import { ready } from '../../../engines/registry';
import { StageFailure } from '../pipeline/stages';
import { A, checkAborted, input, key, timed, type ProjectStageContext } from './common';
import { makePendingLanguages } from '../languages';

// ------------------------------------------------------------------ determine_speakers

/** Seconds of each speaker's speech measured for their voice profile. */
const PROFILE_SEC = 60;

export async function determineSpeakers(ctx: ProjectStageContext): Promise<void> {
  const { project, deps } = ctx;
  const segs = await segmentsOf(deps.db, project.id);
  if (segs.length === 0) throw new StageFailure('determine_speakers_failed', 'The transcript is empty');
  const diar = await ready(deps.engines.diarization);
  const wav = await input(ctx, A.audio16k);
  const res = await timed(ctx, 'diarization', () =>
    diar.diarize(wav, segs.map((s) => ({ start: s.start_sec, end: s.end_sec })), {
      signal: ctx.signal,
      numSpeakers: project.num_speakers ?? undefined,
      onProgress: (f) => ctx.progress?.(f),
    }),
  );
  if (res.labels.length !== segs.length) {
    throw new Error(`speaker detection returned ${res.labels.length} labels for ${segs.length} segments`);
  }
  checkAborted(ctx);
  const order: string[] = [];
  for (const l of res.labels) if (!order.includes(l)) order.push(l);
  const profiles = new Map(res.profiles.map((p) => [p.speaker, p]));
  // Each speaker's voice profile, measured on the separation's speech estimate where there is one (the music
  // under the voice disturbs pitch and formants): gender from pitch and formants, unsure under GENDER_SURE.
  const voiceWav = (await ctx.deps.storage.exists(key(ctx, A.speech16k))) ? await input(ctx, A.speech16k) : wav;
  const measured = new Map<string, VoiceProfile>();
  for (const id of order) {
    checkAborted(ctx);
    const ranges = segs.filter((_, i) => res.labels[i] === id).map((s) => ({ start: s.start_sec, end: s.end_sec }));
    const sample = await speechSample(
      { wav: voiceWav, ranges, keepSec: PROFILE_SEC, trimToKeep: true, gapSec: 0, out: join(ctx.tmp, `profile-${order.indexOf(id)}.wav`), profileSec: PROFILE_SEC },
      { signal: ctx.signal },
    ).catch(() => null);
    if (sample?.profile) measured.set(id, sample.profile);
  }
  await deps.db.tx(async (t) => {
    await setSegmentSpeakers(t, project.id, segs.map((s, i) => ({ id: s.id, speaker: res.labels[i]! })));
    await replaceSpeakers(
      t,
      project.id,
      order.map((id, i) => {
        const m = measured.get(id);
        return {
          id,
          name: `Speaker ${i + 1}`,
          gender: m ? ((m.gender_confidence ?? 1) >= GENDER_SURE ? m.gender : null) : (profiles.get(id)?.gender ?? null),
          pitch_hz: m?.median_hz ?? profiles.get(id)?.meanPitchHz ?? null,
          profile: m ?? null,
        };
      }),
    );
  });
  // The other languages of a multi-language create: their projects start from this analysis.
  const made = await makePendingLanguages(deps, project.id);
  for (const id of made) await ctx.enqueue?.(id, 'voice_suggest');
  if (made.length > 0) ctx.log('language projects made', { projectId: project.id, projects: made });
}
