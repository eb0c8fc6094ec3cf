// The burned-subtitles task: the translation's cues laid out (server/media/subtitle-layout.ts) and burned into a copy
// of the dubbed video on request.
import { randomBytes } from 'node:crypto';
import { updateProjectFields } from '../repository';
import { burnSubtitles } from '../../../media/ffmpeg';
import { type Cue } from '../../../media/subtitles';
import { DEFAULT_SUBTITLE_LIMITS, layoutSubtitles, type LayoutSegment, type SubtitleLimits } from '../../../media/subtitle-layout';
import { A, checkAborted, save, scratch, timed, type ProjectStageContext } from './common';
import { subtitleLimitsOf } from '../../spaces/service';
import { replacingOutputs } from './outputs';

/**
 * Subtitle cues of the translation (SRT, VTT and the burned subtitles, made from the SRT): each segment's text
 * laid out in readable cues over its slot, timed to its words where they are known (server/media/subtitle-layout.ts).
 */
export function translationCues(
  segs: ReadonlyArray<{ start_sec: number; end_sec: number; dst_text: string; words?: LayoutSegment['words'] }>,
  limits: SubtitleLimits = DEFAULT_SUBTITLE_LIMITS,
  mediaEnd?: number,
): Cue[] {
  return layoutSubtitles(segs.map((s) => ({ start: s.start_sec, end: s.end_sec, text: s.dst_text, words: s.words ?? null })), limits, mediaEnd);
}

/** The Teamspace's subtitle limits (its setting, else the common guidelines) as the layout takes them. */
export function subtitleLayoutLimits(space: Parameters<typeof subtitleLimitsOf>[0]): SubtitleLimits {
  const l = subtitleLimitsOf(space);
  return {
    maxLineChars: l.max_line_chars,
    maxLines: l.max_lines,
    targetCps: l.target_cps,
    maxCps: l.max_cps,
    minDuration: l.min_duration_sec,
    maxDuration: l.max_duration_sec,
  };
}

export async function burnSubtitlesTask(ctx: ProjectStageContext): Promise<void> {
  await replacingOutputs(ctx, 'burned', () => burn(ctx));
}

async function burn(ctx: ProjectStageContext): Promise<void> {
  const { project, deps } = ctx;
  const type = project.subtitles_burn_video_type ?? 'translated';
  const videoKey = type === 'original' ? project.original_video : type === 'lipsync' ? project.lipsync_result_path : project.translated_video;
  if (!videoKey || !project.translation_srt_path) throw new Error('The video or its subtitles are not ready');
  const out = scratch(ctx, A.burned(type));
  const video = await deps.storage.localFile(videoKey);
  const srt = await deps.storage.localFile(project.translation_srt_path);
  await timed(ctx, 'burn', () => burnSubtitles({ video, srt, out }, { signal: ctx.signal }));
  checkAborted(ctx);
  const k = await save(ctx, `burned/${project.generation}-${randomBytes(3).toString('hex')}/${A.burned(type)}`, out, 'video/mp4');
  await updateProjectFields(deps.db, project.id, {
    ...(type === 'lipsync' ? { subtitles_lipsync_burn_result_path: k } : { subtitles_burn_result_path: k }),
    subtitles_burn_state: 'done',
    subtitles_burn_error: null,
  });
}
