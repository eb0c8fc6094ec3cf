// A language's output files (the dubbed video and its subtitles, or the burned copy): made into a new folder and
// published by the project's row; the folders no longer referenced are pruned.
import { findProject, type ProjectRow } from '../repository';
import { projectKey } from '../../../storage/index';
import { type ProjectStageContext } from './common';

/** The keys the project's fields point at (what downloads may serve). */
export function referencedKeys(p: ProjectRow): Set<string> {
  return new Set(
    [
      p.original_video, p.cover, p.translated_audio, p.translated_video, p.voiceover, p.translation_srt_path, p.translation_vtt_path,
      p.lipsync_result_path, p.subtitles_burn_result_path, p.subtitles_lipsync_burn_result_path, p.media_info?.sourceKey,
    ].filter((k): k is string => typeof k === 'string' && k !== ''),
  );
}

/**
 * Removes the downloadable outputs under `projects/<id>/<folder>/` that no field of the project points at:
 * what a failed, cancelled or killed run half-wrote, and the previous version once the new one is in place.
 * Downloads serve only keys the fields point at, so a half-written output is never served.
 */
export async function pruneOutputs(ctx: ProjectStageContext, folder: 'out' | 'burned'): Promise<void> {
  const current = await findProject(ctx.deps.db, ctx.project.id);
  if (!current) return;
  const keep = referencedKeys(current);
  for await (const o of ctx.deps.storage.list(projectKey(ctx.project.id, `${folder}/`))) {
    if (!keep.has(o.key)) await ctx.deps.storage.delete(o.key);
  }
}

/**
 * Runs an output-writing stage: its outputs go to fresh keys and replace the fields at the very end, so
 * the previous outputs stay downloadable until then and whatever a failed run wrote is removed.
 */
export async function replacingOutputs(ctx: ProjectStageContext, folder: 'out' | 'burned', run: () => Promise<void>): Promise<void> {
  await pruneOutputs(ctx, folder).catch(() => {});
  try {
    await run();
  } catch (e) {
    await pruneOutputs(ctx, folder).catch(() => {});
    throw e;
  }
  await pruneOutputs(ctx, folder);
}
