// Stage 2, separate_background: the speech/background separation of the source audio (the background bed of
// the dub, and the speech estimate recognition and voice profiles use).
import { existsSync } from 'node:fs';
import { ready } from '../../../engines/registry';
import { A, input, save, scratch, speechRegions, timed, type ProjectStageContext } from './common';
import { prepareMergeInputs } from './merging';

// ------------------------------------------------------------------ separate_background

export async function separateBackground(ctx: ProjectStageContext): Promise<void> {
  // the VAD (one core) is most of this stage's time with the built-in engines; beside it, what the merge takes from
  // the source (its loudness, the cover), waited for at the end of the stage (a failure there is the merge's to redo)
  const early = prepareMergeInputs(ctx, ctx.signal);
  const background = scratch(ctx, A.background);
  const speech = scratch(ctx, A.speech16k);
  try {
    const regions = await speechRegions(ctx, (f) => ctx.progress?.(0.8 * f));
    const sep = await ready(ctx.deps.engines.separation);
    const audio = await input(ctx, A.audio48k);
    // The background (the dub's bed) and the speech estimate (the voice stem: the speakers' voice profiles, the
    // quality report's leakage check, and recognition may read it) are both kept.
    await timed(ctx, 'separation', () =>
      sep.separate(audio, regions, { background, voice: speech, voiceSampleRate: 16000 }, { signal: ctx.signal, onProgress: (f) => ctx.progress?.(0.8 + 0.2 * f) }),
    );
  } finally {
    await early;
  }
  await save(ctx, A.background, background);
  if (existsSync(speech)) await save(ctx, A.speech16k, speech, 'audio/wav');
}
