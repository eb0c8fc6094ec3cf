// Project rules (spec sections 4-8): creation with language checks before any work, generation with the
// minutes check, copies, downloads, subtitles, deletion. Routes parse and shape; this file decides.
import type { Context } from 'hono';
import type { Project } from '../../../contract/schemas/project';
import { isValidVideoLink } from '../../../contract/links';
import { TEXT } from '../../../contract/errors';
import { isFinished, isGenerating, type ProjectStatus } from '../../../contract/statuses';
import type { CreateTranscriptRequest, UpdateProjectRequest } from '../../../contract/schemas/project';
import type { Config } from '../../config';
import type { Db } from '../../db/index';
import { ApiError, badRequest, conflict, notFound } from '../../http/errors';
import type { AppEnv } from '../../http/env';
import type { EngineRegistryLike } from '../../pipeline/engines';
import type { Pipeline } from '../../pipeline/pipeline';
import { setStatus } from '../../pipeline/stages';
import { mediaUrl, projectKey } from '../../storage/index';
import { safeFileName } from '../../storage/signed';
import type { Storage } from '../../storage/types';
import { chargeForDubbing } from '../billing/credits';
import { findMedia, type MediaRow } from '../library/repository';
import { findMembership } from '../spaces/repository';
import { isUuid, requireSpaceAccess, type SpaceAccess } from '../spaces/guard';
import { copySegments, markSpeakerSegmentsUpdated, setSegmentsStatus } from '../transcript/repository';
import * as repo from './repository';
import { sampleUrl } from './samples';
import { oneProjectJson } from './shape';

export interface ProjectDeps {
  db: Db;
  config: Config;
  storage: Storage;
  pipeline: Pipeline;
  engines: EngineRegistryLike;
}

export function projectDeps(c: Context<AppEnv>): ProjectDeps {
  const d = c.get('deps') as unknown as Partial<ProjectDeps>;
  if (!d.storage || !d.pipeline || !d.engines) throw new ApiError(503, 'The dubbing pipeline is not configured on this server');
  return d as ProjectDeps;
}

/** Statuses from which a project can be (re)generated. */
const GENERATABLE: readonly ProjectStatus[] = [
  'translation_done', 'transcript_edited', 'voice_edited', 'voice_update_done', 'voice_update_failed',
  'merging_done', 'voiceover_failed', 'merging_failed',
];
/** Statuses in which the transcript and voices may be edited. */
export const EDITABLE: readonly ProjectStatus[] = [...GENERATABLE, 'voice_update_started'];

export function canEdit(s: ProjectStatus): boolean {
  return EDITABLE.includes(s);
}

/** The project, if the caller may enter its space: 404 for unknown ids, 403 (shared guard) otherwise. */
export async function loadProject(c: Context<AppEnv>, id: string): Promise<{ project: repo.ProjectRow; space: SpaceAccess }> {
  if (!isUuid(id)) throw notFound('Project not found');
  const project = await repo.findProject(c.get('deps').db, id);
  if (!project) throw notFound('Project not found');
  const space = await requireSpaceAccess(c, project.space_id);
  return { project, space };
}

// ------------------------------------------------------------------ languages

/** Rejects a language pair the configured engines cannot handle, before any work. */
export async function checkLanguages(
  engines: EngineRegistryLike,
  o: { src: string; dst: string; srcSrt: boolean; dstSrt: boolean },
): Promise<void> {
  if (o.src === o.dst) throw badRequest('The source and target languages must be different');
  if (!o.srcSrt) {
    const asr = await engines.asrFor(o.src);
    if (!asr) {
      throw badRequest(
        `Unsupported language pair ${o.src} -> ${o.dst}: speech recognition is not available for "${o.src}" (upload a source SRT instead)`,
      );
    }
  }
  if (!o.dstSrt && !(await engines.mtFor(o.src, o.dst))) {
    throw badRequest(`Unsupported language pair ${o.src} -> ${o.dst}: translation between these languages is not available`);
  }
  const tts = await engines.ttsFor(o.dst);
  if (!tts || (await engines.voices(o.dst)).length === 0) throw badRequest(`Unsupported language pair ${o.src} -> ${o.dst}: no voice is available for "${o.dst}"`);
}

// ------------------------------------------------------------------ create

async function usableMedia(db: Db, userId: string, spaceId: string, id: string, what: string): Promise<MediaRow> {
  const m = await findMedia(db, id);
  if (!m || (m.user_id !== userId && m.space_id !== spaceId && !(m.space_id && (await findMembership(db, m.space_id, userId))))) {
    throw notFound(`${what} not found`);
  }
  return m;
}

export async function createTranscript(c: Context<AppEnv>, spaceId: string | null, body: CreateTranscriptRequest): Promise<Project> {
  const deps = projectDeps(c);
  const space = await requireSpaceAccess(c, spaceId);
  const user = c.get('user');
  const hasMedia = !!body.media_id;
  const link = body.link?.trim() || null;
  if (hasMedia === !!link) throw badRequest('Provide either an uploaded file (media_id) or a video link, not both');
  if (link && !isValidVideoLink(link)) throw badRequest(TEXT.incorrectLink);
  if (body.media_id) {
    const m = await usableMedia(deps.db, user.id, space.id, body.media_id, 'Media');
    if (m.kind === 'srt') throw badRequest('The media must be a video or audio file, not a subtitle file');
    if (m.status === 'uploading') throw conflict('The upload is not finished yet');
  }
  for (const [id, what] of [[body.src_srt_media_id, 'Source subtitle file'], [body.dst_srt_media_id, 'Target subtitle file']] as const) {
    if (!id) continue;
    const m = await usableMedia(deps.db, user.id, space.id, id, what);
    if (m.kind !== 'srt') throw badRequest(`${what}: not a subtitle (SRT) file`);
    if (m.status !== 'uploaded') throw badRequest(`${what} could not be read${m.error ? `: ${m.error}` : ''}`);
  }
  await checkLanguages(deps.engines, {
    src: body.src_lang, dst: body.dst_lang, srcSrt: !!body.src_srt_media_id, dstSrt: !!body.dst_srt_media_id,
  });
  if (body.glossary_id) await checkGlossary(deps.db, body.glossary_id, space.id, body.src_lang, body.dst_lang);

  const row = await repo.insertProject(deps.db, {
    spaceId: space.id,
    userId: user.id,
    name: body.name,
    srcLang: body.src_lang,
    dstLang: body.dst_lang,
    mediaId: body.media_id ?? null,
    link,
    numSpeakers: body.num_speakers ?? null,
    srcSrtMediaId: body.src_srt_media_id ?? null,
    dstSrtMediaId: body.dst_srt_media_id ?? null,
    glossaryId: body.glossary_id ?? null,
    ttsProvider: (await deps.engines.ttsFor(body.dst_lang))?.id ?? null,
  });
  await deps.pipeline.enqueue(row.id, 'ingest');
  return oneProjectJson(deps, row);
}

async function checkGlossary(db: Db, glossaryId: string, spaceId: string, src: string, dst: string): Promise<void> {
  const g = await repo.findGlossary(db, glossaryId);
  if (!g || g.space_id !== spaceId) throw notFound('Glossary not found');
  if (g.src_lang !== src || g.dst_lang !== dst) {
    throw badRequest(`The glossary is for ${g.src_lang} -> ${g.dst_lang}, the project is ${src} -> ${dst}`);
  }
}

// ------------------------------------------------------------------ list, update

export async function updateProject(c: Context<AppEnv>, id: string, body: UpdateProjectRequest): Promise<Project> {
  const deps = projectDeps(c);
  const { project } = await loadProject(c, id);
  const patch: Parameters<typeof repo.updateProjectFields>[2] = {};
  if (body.name !== undefined) patch.name = body.name;
  if (body.folder_id !== undefined) patch.folder_id = body.folder_id;
  let voiceChanged = false;
  await deps.db.tx(async (t) => {
    const locked = (await repo.lockProject(t, project.id))!;
    if (body.speakers && body.speakers.length > 0) {
      const speakers = await repo.speakersOf(t, project.id);
      const known = new Map(speakers.map((s) => [s.id, s]));
      let voiceIds: Set<string> | null = null;
      for (const s of body.speakers) {
        const cur = known.get(s.id);
        if (!cur) throw notFound(`Speaker not found: ${s.id}`);
        if (s.name !== undefined && s.name !== cur.name) await repo.setSpeakerName(t, project.id, s.id, s.name);
        if (s.voice_id !== undefined && s.voice_id !== null && s.voice_id !== cur.voice_id) {
          if (!canEdit(locked.status) && locked.status !== 'voice_suggest_done') {
            throw conflict('Voices cannot be changed while the project is being processed');
          }
          if (!voiceIds) {
            voiceIds = new Set((await deps.engines.voices(project.dst_lang)).map((v) => v.id));
          }
          if (!voiceIds.has(s.voice_id)) throw badRequest(`Unknown voice for ${project.dst_lang}: ${s.voice_id}`);
          await repo.setSpeakerVoice(t, project.id, s.id, s.voice_id, true);
          await markSpeakerSegmentsUpdated(t, project.id, s.id);
          voiceChanged = true;
        }
      }
    }
    if (Object.keys(patch).length > 0) await repo.updateProjectFields(t, project.id, patch);
    if (voiceChanged && canEdit(locked.status)) await setStatus(t, project.id, 'voice_edited');
  });
  return oneProjectJson(deps, (await repo.findProject(deps.db, project.id))!);
}

export async function setPrompt(c: Context<AppEnv>, id: string, prompt: string | null): Promise<Project> {
  const deps = projectDeps(c);
  const { project } = await loadProject(c, id);
  const text = prompt === null || prompt.trim() === '' ? null : prompt;
  const row = await repo.updateProjectFields(deps.db, project.id, { prompt: text });
  return oneProjectJson(deps, row!);
}

export async function setGlossary(c: Context<AppEnv>, id: string, glossaryId: string | null): Promise<Project> {
  const deps = projectDeps(c);
  const { project } = await loadProject(c, id);
  if (glossaryId) {
    if (!isUuid(glossaryId)) throw notFound('Glossary not found');
    await checkGlossary(deps.db, glossaryId, project.space_id, project.src_lang, project.dst_lang);
  }
  const row = await repo.updateProjectFields(deps.db, project.id, { glossary_id: glossaryId });
  return oneProjectJson(deps, row!);
}

// ------------------------------------------------------------------ generate

export async function generate(c: Context<AppEnv>, id: string): Promise<Project> {
  const deps = projectDeps(c);
  const { project } = await loadProject(c, id);
  await deps.db.tx(async (t) => {
    const p = (await repo.lockProject(t, project.id))!;
    if (isGenerating(p.status)) throw conflict('The video is already being generated');
    if (!GENERATABLE.includes(p.status)) {
      throw conflict(
        p.status === 'voice_suggest_done' || p.status === 'translation_started' || isAnalyzingLike(p.status)
          ? 'The project is not ready yet: wait until the translation is done'
          : 'This project cannot be generated: it failed before the transcript was ready',
      );
    }
    if (!p.charged_at) {
      const minutes = await chargeForDubbing(t, p.space_id, p.duration ?? 0);
      await repo.markCharged(t, p.id, minutes);
    }
    await setSegmentsStatus(t, p.id, ['updated', 'error'], 'processing');
    await repo.bumpGeneration(t, p.id);
    await setStatus(t, p.id, 'voiceover_started');
  });
  await deps.pipeline.enqueue(project.id, 'voiceover');
  return oneProjectJson(deps, (await repo.findProject(deps.db, project.id))!);
}

function isAnalyzingLike(s: ProjectStatus): boolean {
  return /_(started|done)$/.test(s) || s === 'created' || s === 'uploading' || s === 'uploaded';
}

// ------------------------------------------------------------------ copy

/** Artifacts of the analysis that a copy into another language reuses. */
const REUSED = ['audio_16k.wav', 'audio_48k.wav', 'vad.json', 'regions.json', 'voice.wav', 'background.wav'];

export async function copyProject(c: Context<AppEnv>, id: string, dstLang: string, freeDubbing: boolean): Promise<Project> {
  const deps = projectDeps(c);
  const { project } = await loadProject(c, id);
  if (!canEdit(project.status) && !isFinished(project.status) && !GENERATABLE.includes(project.status)) {
    throw conflict('The project can be copied once its transcript is ready');
  }
  if (dstLang === project.src_lang) throw badRequest('The target language must differ from the source language');
  await checkLanguages(deps.engines, { src: project.src_lang, dst: dstLang, srcSrt: true, dstSrt: false });
  const user = c.get('user');
  const sourceKey = project.media_info?.sourceKey ?? project.original_video;
  const row = await deps.db.tx(async (t) => {
    const np = await repo.insertProject(t, {
      spaceId: project.space_id,
      userId: user.id,
      name: `${project.name} (${dstLang.toUpperCase()})`.slice(0, 255),
      srcLang: project.src_lang,
      dstLang,
      mediaId: project.media_id,
      link: project.link,
      numSpeakers: project.num_speakers,
      srcSrtMediaId: project.src_srt_media_id,
      dstSrtMediaId: null,
      glossaryId: null,
      freeDubbing,
      copiedFrom: project.id,
      ttsProvider: (await deps.engines.ttsFor(dstLang))?.id ?? null,
      status: 'determine_speakers_done',
      progress: 42,
    });
    await copySegments(t, project.id, np.id, 'empty');
    await repo.copySpeakers(t, project.id, np.id);
    return np;
  });
  // The source and the analysis artifacts under the new project's keys (hard links for local storage).
  let newSource: string | null = null;
  if (sourceKey) {
    newSource = projectKey(row.id, sourceKey.split('/').pop()!);
    await deps.storage.copy(sourceKey, newSource);
  }
  for (const a of REUSED) {
    const k = projectKey(project.id, a);
    if (await deps.storage.exists(k)) await deps.storage.copy(k, projectKey(row.id, a));
  }
  await repo.updateProjectFields(deps.db, row.id, {
    duration: project.duration,
    media_info: project.media_info ? { ...project.media_info, sourceKey: newSource ?? undefined } : null,
    original_video: project.original_video ? newSource : null,
  });
  await setStatus(deps.db, row.id, 'determine_speakers_done');
  await deps.pipeline.enqueue(row.id, 'voice_suggest');
  return oneProjectJson(deps, (await repo.findProject(deps.db, row.id))!);
}

// ------------------------------------------------------------------ downloads and subtitles

const DOWNLOADS: Record<string, { field: (p: repo.ProjectRow) => string | null; suffix: string; missing: string }> = {
  video: { field: (p) => p.translated_video, suffix: '', missing: 'The dubbed video is not ready yet' },
  audio: { field: (p) => p.translated_audio, suffix: '_audio', missing: 'The translated audio is not ready yet' },
  voiceover: { field: (p) => p.voiceover, suffix: '_voiceover', missing: 'The voiceover is not ready yet' },
  srt: { field: (p) => p.translation_srt_path, suffix: '', missing: 'The subtitles are not ready yet' },
  vtt: { field: (p) => p.translation_vtt_path, suffix: '', missing: 'The subtitles are not ready yet' },
  original: { field: (p) => p.original_video ?? p.media_info?.sourceKey ?? null, suffix: '_original', missing: 'The original video is not available' },
};

export async function mediaDownload(c: Context<AppEnv>, id: string, mediaType: string): Promise<{ url: string }> {
  const deps = projectDeps(c);
  const { project } = await loadProject(c, id);
  const d = DOWNLOADS[mediaType];
  if (!d) throw badRequest('Unknown media type');
  const key = d.field(project);
  if (!key || !(await deps.storage.exists(key))) throw notFound(d.missing);
  const ext = /\.[a-z0-9]+$/i.exec(key)?.[0] ?? '';
  const lang = mediaType === 'original' ? project.src_lang : project.dst_lang;
  const name = safeFileName(`${project.name}_${lang}${d.suffix}`, ext);
  return { url: mediaUrl(deps, key, { downloadName: name }) };
}

export async function burnSubtitles(c: Context<AppEnv>, id: string, videoType: string): Promise<Project> {
  const deps = projectDeps(c);
  const { project } = await loadProject(c, id);
  if (!project.translation_srt_path) throw conflict('Generate the video first: the subtitles are not ready yet');
  const source =
    videoType === 'original' ? project.original_video : videoType === 'lipsync' ? project.lipsync_result_path : project.translated_video;
  if (!source) throw conflict(videoType === 'lipsync' ? 'The lip-sync video is not ready yet' : 'The video is not ready yet');
  if (project.subtitles_burn_state === 'processing' && project.subtitles_burn_video_type === videoType) {
    return oneProjectJson(deps, project); // the same job is already running
  }
  await repo.updateProjectFields(deps.db, project.id, {
    subtitles_burn_state: 'processing', subtitles_burn_video_type: videoType, subtitles_burn_error: null,
  });
  await deps.pipeline.enqueue(project.id, 'burn_subtitles');
  return oneProjectJson(deps, (await repo.findProject(deps.db, project.id))!);
}

export async function setBannerDisplayed(c: Context<AppEnv>, id: string, videoType: string): Promise<Project> {
  const deps = projectDeps(c);
  const { project } = await loadProject(c, id);
  await repo.addBannerDisplayed(deps.db, project.id, videoType);
  return oneProjectJson(deps, (await repo.findProject(deps.db, project.id))!);
}

// ------------------------------------------------------------------ delete, voices, feedback

export async function deleteProject(c: Context<AppEnv>, id: string): Promise<void> {
  const deps = projectDeps(c);
  const { project } = await loadProject(c, id);
  await deps.pipeline.cancel(project.id);
  await repo.deleteProject(deps.db, project.id);
  await deps.storage.deletePrefix(`projects/${project.id}/`);
}

export async function voicePool(c: Context<AppEnv>, id: string) {
  const deps = projectDeps(c);
  const { project } = await loadProject(c, id);
  const voices = await deps.engines.voices(project.dst_lang);
  return {
    language: project.dst_lang,
    voices: voices.map((v) => ({
      id: v.id, name: v.name, gender: v.gender, language: v.lang, dialect: v.dialect ?? null, engine: v.engine,
      sample_url: sampleUrl(c.get('deps'), v, project.dst_lang),
    })),
  };
}

export async function addFeedback(c: Context<AppEnv>, id: string, body: { comment: string; options: string[] }) {
  const deps = projectDeps(c);
  const { project } = await loadProject(c, id);
  if (body.comment.trim() === '' && body.options.length === 0) throw badRequest('Write a comment or choose an option');
  const r = await repo.insertFeedback(deps.db, { projectId: project.id, userId: c.get('user').id, comment: body.comment, options: body.options });
  return { id: r.id, status: 'ok' };
}
