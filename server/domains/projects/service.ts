// Project rules (spec sections 4-8): creation with language checks before any work, generation with the
// minutes check, copies, downloads, subtitles, deletion. Routes parse and shape; this file decides.
import type { Project } from '../../../contract/schemas/project';
import { isValidVideoLink } from '../../../contract/links';
import { TEXT } from '../../../contract/errors';
import { isEditable, isFinished, isGeneratable, isGenerating, type ProjectStatus } from '../../../contract/statuses';
import { MAX_DST_LANGS, type CreateTranscriptRequest, type UpdateProjectRequest } from '../../../contract/schemas/project';
import type { Db } from '../../db/index';
import { badRequest, conflict, notFound, unprocessable } from '../../errors';
import { SOURCE_TEXT, sourceTextProblem } from './stages/given-text';
import type { AppDeps } from '../../deps';
import type { UserRow } from '../../caller';
import type { EngineRegistry } from '../../engines/registry';
import { notifySideTaskFailure, setStatus, STAGE_STATUS, STAGES, stageToResume, type StageName } from './pipeline/stages';
import { statusLabel } from '../../../contract/statuses';
import { recordSideTaskFailure } from './pipeline/repository';
import { stoppingJobs } from '../../jobs/repository';
import { mediaUrl, projectKey } from '../../storage/index';
import { safeFileName } from '../../storage/signed';
import { minutesNeeded } from '../../../contract/constants';
import * as ledger from '../billing/ledger';
import { findMedia, type MediaRow } from '../library/repository';
import { findMembership } from '../spaces/repository';
import { isUuid, spaceAccess, type SpaceAccess } from '../spaces/guard';
import { markSpeakerSegmentsUpdated, setSegmentsStatus } from './transcript/repository';
import { deleteUploadsOnlyUsedBy } from '../retention/repository';
import { afterDeletion } from '../retention/service';
import { castVoiceFollows } from '../cast/service';
import { clonedEngineVoiceIds, presetVoicesFor, ttsProviderOfSpeakers } from '../voices/service';
import * as repo from './repository';
import { sampleUrl } from './samples';
import { oneProjectJson } from './shape';
import { cleanWords, saveAsrWords } from './asr-words-store';
import { makeLanguageProject, targetLanguages } from './languages';
import { baseLanguage, canonicalLanguage } from '../../engines/languages';
import { loadQuality } from './quality';
import type { QualityReport } from '../../../contract/schemas/quality';
import { countChangedSegments } from './transcript/repository';


/** The project, if the caller may enter its space: 404 for unknown ids, 403 (shared guard) otherwise. */
export async function loadProject(deps: AppDeps, user: UserRow, id: string): Promise<{ project: repo.ProjectRow; space: SpaceAccess }> {
  if (!isUuid(id)) throw notFound('Project not found');
  const project = await repo.findProject(deps.db, id);
  if (!project) throw notFound('Project not found');
  const space = await spaceAccess(deps.db, user, project.space_id);
  return { project, space };
}

// ------------------------------------------------------------------ languages

/** Rejects a language pair the configured engines cannot handle, before any work. */
export async function checkLanguages(
  engines: EngineRegistry,
  o: { src: string; dst: string; srcSrt: boolean; dstSrt: boolean },
): Promise<void> {
  languageTag(o.src);
  languageTag(o.dst);
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

/** A language tag in the catalogue's spelling ('pt-br' -> 'pt-BR'); an unknown regional variant is refused. */
export function languageTag(tag: string): string {
  const c = canonicalLanguage(tag);
  if (!c.ok) throw badRequest(c.message);
  return c.value;
}

export async function createTranscript(deps: AppDeps, user: UserRow, spaceId: string | null, req: CreateTranscriptRequest): Promise<Project> {
  const body: CreateTranscriptRequest = {
    ...req,
    src_lang: languageTag(req.src_lang),
    ...(req.dst_lang !== undefined ? { dst_lang: languageTag(req.dst_lang) } : {}),
    ...(req.dst_langs !== undefined ? { dst_langs: req.dst_langs.map(languageTag) } : {}),
  };
  const space = await spaceAccess(deps.db, user, spaceId);
  const hasMedia = !!body.media_id;
  const link = body.link?.trim() || null;
  if (hasMedia === !!link) throw badRequest('Provide either an uploaded file (media_id) or a video link, not both');
  if (link && !isValidVideoLink(link)) throw badRequest(TEXT.incorrectLink);
  let uploaded: MediaRow | null = null;
  if (body.media_id) {
    const m = await usableMedia(deps.db, user.id, space.id, body.media_id, 'Media');
    uploaded = m;
    if (m.kind === 'srt') throw badRequest('The media must be a video or audio file, not a subtitle file');
    if (m.status === 'uploading') throw conflict('The upload is not finished yet');
  }
  for (const [id, what] of [[body.src_srt_media_id, 'Source subtitle file'], [body.dst_srt_media_id, 'Target subtitle file']] as const) {
    if (!id) continue;
    const m = await usableMedia(deps.db, user.id, space.id, id, what);
    if (m.kind !== 'srt') throw badRequest(`${what}: not a subtitle (SRT) file`);
    if (m.status !== 'uploaded') throw badRequest(`${what} could not be read${m.error ? `: ${m.error}` : ''}`);
  }
  // a plain-text source transcript: aligned to the speech instead of recognising it (issue 33)
  const srcText = typeof body.src_text === 'string' && body.src_text.trim() !== '' ? body.src_text.replace(/\r\n?/g, '\n').trim() : null;
  if (body.src_text != null) {
    const problem = body.src_srt_media_id
      ? 'Give either a source subtitle file or a source transcript, not both'
      : sourceTextProblem(body.src_text);
    if (problem) throw unprocessable([{ loc: ['body', 'src_text'], msg: problem, type: 'value_error' }]);
  }
  const langs = targetLanguages(body);
  if (langs.length === 0) throw badRequest('Choose a target language');
  if (langs.length > MAX_DST_LANGS) throw badRequest(`At most ${MAX_DST_LANGS} target languages`);
  if (body.dst_srt_media_id && langs.length > 1) throw badRequest('A target subtitle file can only be used with one target language');
  for (const dst of langs) {
    await checkLanguages(deps.engines, { src: body.src_lang, dst, srcSrt: !!body.src_srt_media_id || !!srcText, dstSrt: !!body.dst_srt_media_id });
  }
  // The dictionary applies to the language it is for (with several languages, one of them).
  let glossaryLang: string | null = null;
  if (body.glossary_id) {
    const g = await repo.findGlossary(deps.db, body.glossary_id);
    // a dictionary for a language applies to its regional variants ('es' to 'es-419')
    glossaryLang = (langs.length > 1 && g ? (langs.find((l) => l === g.dst_lang) ?? langs.find((l) => baseLanguage(l) === g.dst_lang)) : null) ?? langs[0]!;
    await checkGlossary(deps.db, body.glossary_id, space.id, body.src_lang, glossaryLang);
  }
  const glossaryFor = (l: string) => (body.glossary_id && l === glossaryLang ? body.glossary_id : null);
  const [first, ...others] = langs as [string, ...string[]];

  const ttsProvider = (await deps.engines.ttsFor(first))?.id ?? null;
  // the project and its word list for recognition (if given) in one transaction
  const row = await deps.db.tx(async (t) => {
    const inserted = await repo.insertProject(t, {
      spaceId: space.id,
      userId: user.id,
      name: body.name,
      srcLang: body.src_lang,
      dstLang: first,
      mediaId: body.media_id ?? null,
      link,
      numSpeakers: body.num_speakers ?? null,
      srcSrtMediaId: body.src_srt_media_id ?? null,
      dstSrtMediaId: body.dst_srt_media_id ?? null,
      glossaryId: glossaryFor(first),
      ttsProvider,
      // The other languages' projects are made from this one once its speakers are known (one analysis).
      pendingDstLangs: others.map((l) => ({ dst_lang: l, glossary_id: glossaryFor(l) })),
    });
    if (body.asr_words && cleanWords(body.asr_words).length > 0) await saveAsrWords(t, inserted.id, body.asr_words);
    return inserted;
  });
  if (srcText) await deps.storage.putBuffer(projectKey(row.id, SOURCE_TEXT), srcText, { contentType: 'text/plain; charset=utf-8' });
  // The upload's cover frame becomes the project's picture at once (its own copy: generations replace it).
  const coverKey = mediaCoverKey(uploaded);
  if (coverKey) {
    try {
      await deps.storage.putBuffer(projectKey(row.id, 'cover.jpg'), await deps.storage.getBuffer(coverKey), { contentType: 'image/jpeg' });
      await repo.updateProjectFields(deps.db, row.id, { cover: projectKey(row.id, 'cover.jpg') });
    } catch (e) {
      deps.logger.warn({ err: e instanceof Error ? e.message : String(e), project: row.id }, 'upload cover not copied');
    }
  }
  await deps.pipeline.enqueue(row.id, 'ingest');
  return oneProjectJson(deps, (await repo.findProject(deps.db, row.id)) ?? row);
}

function mediaCoverKey(m: MediaRow | null): string | null {
  const key = (m?.probe as { coverKey?: unknown } | null)?.coverKey;
  return typeof key === 'string' && key ? key : null;
}

async function checkGlossary(db: Db, glossaryId: string, spaceId: string, src: string, dst: string): Promise<void> {
  const g = await repo.findGlossary(db, glossaryId);
  if (!g || g.space_id !== spaceId) throw notFound('Glossary not found');
  const fits = (theirs: string, mine: string) => theirs.toLowerCase() === mine.toLowerCase() || theirs === baseLanguage(mine);
  if (!fits(g.src_lang, src) || !fits(g.dst_lang, dst)) {
    throw badRequest(`The glossary is for ${g.src_lang} -> ${g.dst_lang}, the project is ${src} -> ${dst}`);
  }
}

// ------------------------------------------------------------------ list, update

export async function updateProject(deps: AppDeps, user: UserRow, id: string, body: UpdateProjectRequest): Promise<Project> {
  const { project } = await loadProject(deps, user, id);
  const patch: Parameters<typeof repo.updateProjectFields>[2] = {};
  if (body.name !== undefined) patch.name = body.name;
  if (body.folder_id !== undefined) patch.folder_id = body.folder_id;
  let voiceChanged = false;
  // The voices the project may use (stock voices and its space's presets), read before the transaction.
  const allowedVoices = body.speakers?.some((s) => s.voice_id) ? new Set((await projectVoices(deps, project)).map((v) => v.id)) : null;
  await deps.db.tx(async (t) => {
    const locked = (await repo.lockProject(t, project.id))!;
    if (body.speakers && body.speakers.length > 0) {
      const speakers = await repo.speakersOf(t, project.id);
      const known = new Map(speakers.map((s) => [s.id, s]));
      for (const s of body.speakers) {
        const cur = known.get(s.id);
        if (!cur) throw notFound(`Speaker not found: ${s.id}`);
        if (s.name !== undefined && s.name !== cur.name) await repo.setSpeakerName(t, project.id, s.id, s.name);
        if (s.voice_id !== undefined && s.voice_id !== null && s.voice_id !== cur.voice_id) {
          if (!isEditable(locked.status) && locked.status !== 'voice_suggest_done') {
            throw conflict('Voices cannot be changed while the project is being processed');
          }
          if (!allowedVoices?.has(s.voice_id)) throw badRequest(`Unknown voice for ${project.dst_lang}: ${s.voice_id}`);
          await repo.setSpeakerVoice(t, project.id, s.id, s.voice_id, true);
          await markSpeakerSegmentsUpdated(t, project.id, s.id);
          // A speaker recognised from the cast: the cast member keeps this voice for the language.
          await castVoiceFollows(t, project, s.id, s.voice_id);
          voiceChanged = true;
        }
      }
    }
    if (voiceChanged) {
      // tts_provider follows the chosen voices' engines (a clone of another engine changes it).
      const provider = await ttsProviderOfSpeakers(deps, t, project);
      if (provider) patch.tts_provider = provider;
    }
    if (Object.keys(patch).length > 0) await repo.updateProjectFields(t, project.id, patch);
    if (voiceChanged && isEditable(locked.status)) await setStatus(t, project.id, 'voice_edited');
  });
  return oneProjectJson(deps, (await repo.findProject(deps.db, project.id))!);
}

export async function setPrompt(deps: AppDeps, user: UserRow, id: string, prompt: string | null): Promise<Project> {
  const { project } = await loadProject(deps, user, id);
  const text = prompt === null || prompt.trim() === '' ? null : prompt;
  const row = await repo.updateProjectFields(deps.db, project.id, { prompt: text });
  return oneProjectJson(deps, row!);
}

export async function setGlossary(deps: AppDeps, user: UserRow, id: string, glossaryId: string | null): Promise<Project> {
  const { project } = await loadProject(deps, user, id);
  if (glossaryId) {
    if (!isUuid(glossaryId)) throw notFound('Glossary not found');
    await checkGlossary(deps.db, glossaryId, project.space_id, project.src_lang, project.dst_lang);
  }
  const row = await repo.updateProjectFields(deps.db, project.id, { glossary_id: glossaryId });
  return oneProjectJson(deps, row!);
}

// ------------------------------------------------------------------ generate

export async function generate(deps: AppDeps, user: UserRow, id: string): Promise<Project> {
  const { project } = await loadProject(deps, user, id);
  await deps.db.tx(async (t) => {
    const p = (await repo.lockProject(t, project.id))!;
    if (isGenerating(p.status)) throw conflict('The video is already being generated');
    if ((await stoppingJobs(t, p.id)).length > 0) throw conflict(STILL_STOPPING);
    if (p.lipsync_state === 'processing') throw conflict('Lip-sync is running on this video: generate again when it is done');
    if (!isGeneratable(p.status)) {
      throw conflict(
        p.status === 'voice_suggest_done' || p.status === 'translation_started' || isAnalyzingLike(p.status)
          ? 'The project is not ready yet: wait until the translation is done'
          : 'This project cannot be generated: it failed before the transcript was ready',
      );
    }
    // The first dub charges the whole video; a re-dub only the segments changed since (rounded up to a
    // minute); a free copy nothing. A failed generation is refunded (billing listener on its failure status).
    const seconds = p.free_dubbing ? 0 : p.dubbed_generation === null ? (p.duration ?? 0) : await repo.changedSeconds(t, p.id);
    await setSegmentsStatus(t, p.id, ['updated', 'error'], 'processing');
    const generation = await repo.bumpGeneration(t, p.id);
    await ledger.debit(t, {
      spaceId: p.space_id, minutes: minutesNeeded(seconds), ref: ledger.generationRef(p.id, generation), projectId: p.id, userId: user.id,
      note: p.dubbed_generation === null ? 'dub' : 're-dub of the changed segments',
    });
    await setStatus(t, p.id, 'voiceover_started');
  });
  await deps.pipeline.enqueue(project.id, 'voiceover');
  return oneProjectJson(deps, (await repo.findProject(deps.db, project.id))!);
}

function isAnalyzingLike(s: ProjectStatus): boolean {
  return /_(started|done)$/.test(s) || s === 'created' || s === 'uploading' || s === 'uploaded';
}

// ------------------------------------------------------------------ copy

export async function copyProject(deps: AppDeps, user: UserRow, id: string, lang: string, freeDubbing: boolean): Promise<Project> {
  const dstLang = languageTag(lang);
  const { project } = await loadProject(deps, user, id);
  if (!isEditable(project.status) && !isFinished(project.status) && !isGeneratable(project.status)) {
    throw conflict('The project can be copied once its transcript is ready');
  }
  if (dstLang === project.src_lang) throw badRequest('The target language must differ from the source language');
  await checkLanguages(deps.engines, { src: project.src_lang, dst: dstLang, srcSrt: true, dstSrt: false });
  // A free copy (free_dubbing) is a plan feature (free_languages, server/app/gates.ts); generate charges nothing for it.
  const row = await makeLanguageProject(deps, project, { dstLang, userId: user.id, freeDubbing, glossaryId: null });
  await deps.pipeline.enqueue(row.id, 'voice_suggest');
  return oneProjectJson(deps, row);
}

// ------------------------------------------------------------------ downloads and subtitles

const DOWNLOADS: Record<string, { field: (p: repo.ProjectRow) => string | null; suffix: string; missing: string }> = {
  video: { field: (p) => p.translated_video, suffix: '', missing: 'The dubbed video is not ready yet' },
  audio: { field: (p) => p.translated_audio, suffix: '_audio', missing: 'The translated audio is not ready yet' },
  voiceover: { field: (p) => p.voiceover, suffix: '_voiceover', missing: 'The voiceover is not ready yet' },
  srt: { field: (p) => p.translation_srt_path, suffix: '', missing: 'The subtitles are not ready yet' },
  vtt: { field: (p) => p.translation_vtt_path, suffix: '', missing: 'The subtitles are not ready yet' },
  original: { field: (p) => p.original_video ?? p.media_info?.sourceKey ?? null, suffix: '_original', missing: 'The original video is not available' },
  lipsync: { field: (p) => p.lipsync_result_path, suffix: '_lipsync', missing: 'The lip-synced video is not ready yet' },
  lipsync_subtitles: {
    field: (p) => p.subtitles_lipsync_burn_result_path, suffix: '_lipsync_subtitles', missing: 'The lip-synced video with subtitles is not ready yet',
  },
};

export async function mediaDownload(deps: AppDeps, user: UserRow, id: string, mediaType: string): Promise<{ url: string }> {
  const { project } = await loadProject(deps, user, id);
  const d = DOWNLOADS[mediaType];
  if (!d) throw badRequest('Unknown media type');
  const key = d.field(project);
  if (!key || !(await deps.storage.exists(key))) throw notFound(d.missing);
  const ext = /\.[a-z0-9]+$/i.exec(key)?.[0] ?? '';
  const lang = mediaType === 'original' ? project.src_lang : project.dst_lang;
  const name = safeFileName(`${project.name}_${lang}${d.suffix}`, ext);
  return { url: mediaUrl(deps, key, { downloadName: name }) };
}

export async function burnSubtitles(deps: AppDeps, user: UserRow, id: string, videoType: string): Promise<Project> {
  const { project } = await loadProject(deps, user, id);
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

export async function setBannerDisplayed(deps: AppDeps, user: UserRow, id: string, videoType: string): Promise<Project> {
  const { project } = await loadProject(deps, user, id);
  await repo.addBannerDisplayed(deps.db, project.id, videoType);
  return oneProjectJson(deps, (await repo.findProject(deps.db, project.id))!);
}

// ------------------------------------------------------------------ cancel

export const CANCELLED_MESSAGE = 'The processing was cancelled';
/** A new run asked for while the cancelled one is still stopping (it takes about a second). */
export const STILL_STOPPING = 'The cancelled run is still stopping: try again in a few seconds';

/**
 * Stops what runs on a project now: the stage in flight (its engines and ffmpeg processes end through the
 * stage's abort signal, here or, through the job heartbeat, on another worker) and the lip-sync and subtitle
 * side tasks. The project goes to the failure status of the stopped stage with error_code 'cancelled'; a
 * generation's minutes come back through the billing listeners (the same refund as a failed generation).
 * 409 when nothing runs (a finished or failed project, or one waiting for its user).
 */
export async function cancelProject(deps: AppDeps, user: UserRow, id: string): Promise<Project> {
  const { project } = await loadProject(deps, user, id);
  const stage = stageToResume(project.status);
  const lipsync = project.lipsync_state === 'processing';
  const burning = project.subtitles_burn_state === 'processing';
  if (!stage && !lipsync && !burning) {
    throw conflict(`Nothing is running on this project: it is "${statusLabel(project.status)}"`);
  }
  // The jobs' stop request and the recorded state in one transaction (queued jobs are never claimed; running ones
  // abort once it commits), so a cancelled project is never left *_started and a new run is never marked cancelled.
  await deps.db.tx(async (t) => {
    const p = await repo.lockProject(t, project.id);
    if (!p) throw notFound('Project not found');
    await deps.pipeline.cancel(p.id, t);
    const now = stageToResume(p.status);
    const failed = now ? STAGE_STATUS[now]?.failed : null;
    if (failed) await setStatus(t, p.id, failed, { error_code: 'cancelled', message: CANCELLED_MESSAGE });
    if (p.lipsync_state === 'processing') {
      await recordSideTaskFailure(t, p.id, 'lipsync', CANCELLED_MESSAGE, 'cancelled');
      await notifySideTaskFailure(t, { projectId: p.id, stage: 'lipsync', message: CANCELLED_MESSAGE, code: 'cancelled' });
    }
    if (p.subtitles_burn_state === 'processing') {
      await repo.updateProjectFields(t, p.id, { subtitles_burn_state: 'failed', subtitles_burn_error: CANCELLED_MESSAGE });
    }
  });
  return oneProjectJson(deps, (await repo.findProject(deps.db, project.id))!);
}

/**
 * Starts a cancelled analysis again from the stage it was stopped in (a cancelled dub is started again with
 * Generate). 409 for a project that was not cancelled during its analysis, or whose cancelled run still stops.
 */
export async function restartProject(deps: AppDeps, user: UserRow, id: string): Promise<Project> {
  const { project } = await loadProject(deps, user, id);
  let stage: StageName | null = null;
  await deps.db.tx(async (t) => {
    const p = await repo.lockProject(t, project.id);
    if (!p) throw notFound('Project not found');
    stage = STAGES.find((s) => STAGE_STATUS[s]?.failed === p.status) ?? null;
    if (!stage || p.error_code !== 'cancelled' || stage === 'voiceover' || stage === 'merging') {
      throw conflict(`Only a cancelled analysis can be started again: this project is "${statusLabel(p.status)}"`);
    }
    if ((await stoppingJobs(t, p.id)).length > 0) throw conflict(STILL_STOPPING);
    await setStatus(t, p.id, STAGE_STATUS[stage]!.started);
  });
  await deps.pipeline.enqueue(project.id, stage!);
  return oneProjectJson(deps, (await repo.findProject(deps.db, project.id))!);
}

// ------------------------------------------------------------------ delete, voices, feedback

export async function deleteProject(deps: AppDeps, user: UserRow, id: string): Promise<void> {
  const { project } = await loadProject(deps, user, id);
  await deps.db.tx(async (t) => {
    const p = await repo.lockProject(t, project.id);
    if (!p) throw notFound('Project not found');
    await deps.pipeline.cancel(p.id, t);
    // A dub or lip-sync still running was never delivered: its minutes come back (refunds are once per reference,
    // so a failure recorded meanwhile does not give them twice).
    if (isGenerating(p.status)) {
      await ledger.refund(t, p.space_id, ledger.generationRef(p.id, p.generation), 'project deleted during generation: minutes given back');
    }
    if (p.lipsync_state === 'processing' && p.lipsync_runs) {
      await ledger.refund(t, p.space_id, ledger.lipsyncRef(p.id, Number(p.lipsync_runs)), 'project deleted during lip-sync: minutes given back');
    }
    // Its uploads were copied into the project at ingest: those no other project uses go with it.
    await deleteUploadsOnlyUsedBy(t, project.id);
    await repo.deleteProject(t, project.id);
  });
  // The triggers queued the project's folder and the uploads' files: removed now (the sweep retries).
  await afterDeletion(deps);
}

export async function voicePool(deps: AppDeps, user: UserRow, id: string) {
  const { project } = await loadProject(deps, user, id);
  return { language: project.dst_lang, voices: await projectVoices(deps, project) };
}

/** What a project can use: the stock voices of its target language, then its space's voice presets (clones). */
async function projectVoices(deps: AppDeps, project: repo.ProjectRow) {
  const cloned = await clonedEngineVoiceIds(deps.db);
  const voices = (await deps.engines.voices(project.dst_lang)).filter((v) => !cloned.has(v.id));
  return [
    ...voices.map((v) => ({
      id: v.id, name: v.name, gender: v.gender, language: v.lang, dialect: v.dialect ?? null, engine: v.engine,
      sample_url: sampleUrl(deps, v, project.dst_lang), preset_id: null, is_temporary: false, speaker_id: null,
    })),
    ...(await presetVoicesFor(deps, project)),
  ];
}

export async function addFeedback(deps: AppDeps, user: UserRow, id: string, body: { comment: string; options: string[] }) {
  const { project } = await loadProject(deps, user, id);
  if (body.comment.trim() === '' && body.options.length === 0) throw badRequest('Write a comment or choose an option');
  const r = await repo.insertFeedback(deps.db, { projectId: project.id, userId: user.id, comment: body.comment, options: body.options });
  return { id: r.id, status: 'ok' };
}

// ------------------------------------------------------------------ quality report

/** The quality report of the project's last dub; stale when the transcript or the dub changed since. */
export async function qualityReport(deps: AppDeps, user: UserRow, id: string): Promise<{ project: repo.ProjectRow; report: QualityReport }> {
  const { project } = await loadProject(deps, user, id);
  const report = await loadQuality(deps.storage, project.id);
  if (!report) throw notFound('No quality report yet: it is made when the dubbed video is generated');
  const changed = (await countChangedSegments(deps.db, [project.id])).get(project.id) ?? 0;
  return { project, report: { ...report, stale: report.generation !== project.generation || changed > 0 || isGenerating(project.status) } };
}
