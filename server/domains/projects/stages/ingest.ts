// Stage 1, ingest: the upload or the link becomes the project's source; ffprobe checks it against the
// limits before any heavy work; the audio is extracted for the analysis stages.
import { stat } from 'node:fs/promises';
import { extname } from 'node:path';
import { findMedia } from '../../library/repository';
import { probeFacts, tooLargeText, tooLongText, unreadableText } from '../../library/service';
import { updateProjectFields, type MediaInfo } from '../repository';
import { extractMonoWav, extractStereoWav } from '../../../media/ffmpeg';
import { checkIngestLink, fetchLink } from '../../../media/link';
import { MediaError } from '../../../media/errors';
import { probe, type ProbeResult } from '../../../media/probe';
import { StageFailure } from '../pipeline/stages';
import { A, allOrAbort, key, save, scratch, timed, type ProjectStageContext } from './common';

export async function ingest(ctx: ProjectStageContext): Promise<void> {
  const { project, deps } = ctx;
  const limits = deps.config.limits;
  let localPath: string;
  let fromUpload: string | null = null;
  if (project.link) {
    const maxDur = Math.min(limits.maxVideoDownloadDuration, limits.maxVideoDuration);
    const link = project.link;
    // Only the spec's hosts, resolving to public addresses (checked again here: the row may predate a rule).
    await checkIngestLink(link);
    localPath = await timed(ctx, 'download', () =>
      fetchLink(link, scratch(ctx, 'download'), {
        maxDurationSec: maxDur,
        maxFilesizeBytes: limits.maxVideoSize,
        signal: ctx.signal,
        baseName: 'source',
      }),
    );
  } else {
    const media = project.media_id ? await findMedia(deps.db, project.media_id) : null;
    if (!media) throw new StageFailure('upload_failed', 'The uploaded file was not found', 'missing');
    if (media.status === 'failed') throw new StageFailure('upload_failed', media.error ?? 'The upload failed', 'corrupt');
    if (media.status !== 'uploaded') throw new StageFailure('upload_failed', 'The upload is not finished', 'incomplete');
    localPath = await deps.storage.localFile(media.storage_key);
    fromUpload = media.storage_key;
  }

  const size = (await stat(localPath)).size;
  if (size > limits.maxVideoSize) throw new StageFailure('upload_failed', tooLargeText(limits.maxVideoSize), 'too_large');
  let p: ProbeResult;
  try {
    p = await probe(localPath, { signal: ctx.signal });
  } catch (e) {
    if (e instanceof MediaError && (e.code === 'corrupt' || e.code === 'not_found')) {
      throw new StageFailure('upload_failed', unreadableText(e), 'corrupt');
    }
    throw e;
  }
  if (p.durationSec > limits.maxVideoDuration) {
    throw new StageFailure('upload_failed', tooLongText(p.durationSec, limits.maxVideoDuration), 'too_long');
  }
  if (!p.hasAudio) throw new StageFailure('no_audio', 'The video has no sound (it has no audio track)', 'no_audio');

  // The source under the project's own key (a hard link for local storage).
  const ext = (extname(localPath).slice(1).toLowerCase() || (p.hasVideo ? 'mp4' : 'm4a')).replace(/[^a-z0-9]/g, '') || 'bin';
  const sourceKey = key(ctx, A.source(ext));
  if (fromUpload) await deps.storage.copy(fromUpload, sourceKey);
  else await deps.storage.putFile(sourceKey, localPath, { move: true });
  const source = await deps.storage.localFile(sourceKey);

  const mono = scratch(ctx, A.audio16k);
  const stereo = scratch(ctx, A.audio48k);
  try {
    await timed(ctx, 'extract audio', () =>
      allOrAbort(ctx.signal, [
        (signal) => extractMonoWav(source, mono, { sampleRate: 16000, signal }),
        (signal) => extractStereoWav(source, stereo, { sampleRate: 48000, signal }),
      ]),
    );
  } catch (e) {
    if (e instanceof MediaError && e.code === 'corrupt') throw new StageFailure('upload_failed', unreadableText(e), 'corrupt');
    throw e;
  }
  await save(ctx, A.audio16k, mono);
  await save(ctx, A.audio48k, stereo);

  const info: MediaInfo = {
    ...(probeFacts(p) as unknown as MediaInfo),
    sourceKey,
  };
  await updateProjectFields(deps.db, project.id, {
    duration: p.durationSec,
    media_info: info,
    original_video: p.hasVideo ? sourceKey : null,
  });
}
