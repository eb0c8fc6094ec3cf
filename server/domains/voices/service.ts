// Voice presets of a Teamspace (spec sections 3 and 7): the rules. A preset is made from a speech sample (an
// uploaded audio file, the audio of an uploaded video, or a project's speaker); the sample is checked here (it
// must be sound, at most VOICE_SAMPLE_MAX_SEC long and hold speech), measured into a voice profile, stored, and
// the voice engine makes the voice from it (status processing -> done | error). Plan: the Voice Clone Library
// (voice_presets: Creator Pro and above, limits.voiceClones clones per Teamspace) and instant presets of a
// project's speaker (instant_voice_preset), both read from the entitlements function.
import { randomUUID, createHash } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { existsSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type * as v from 'valibot';
import type { FeatureKey } from '../../../contract/features';
import {
  VOICE_SAMPLE_MAX_SEC, VOICE_SAMPLE_MIN_SPEECH_SEC, presetIdOfVoice, presetVoiceId,
  type CreateVoicePresetRequest, type UpdateVoicePresetRequest, type VoicePresetFromProjectRequest, type VoicePresetSettingsRequest,
  type VoicePreset, type VoicePresetList, type VoicePresetStatuses, type VoiceProfile,
} from '../../../contract/schemas/voice-preset';
import type { AppDeps } from '../../deps';
import type { SpeechRegion, TtsEngine } from '../../engines/types';
import { extractMonoWav } from '../../media/ffmpeg';
import { probe } from '../../media/probe';
import { projectKey, uploadKey } from '../../storage/index';
import { decide, entitlementsFor, featureRefused, staffEntitlements, type Entitlements } from '../billing/entitlements';
import { DomainError, conflict, notFound } from '../../errors';
import { findMedia, insertMedia, type MediaRow } from '../library/repository';
import { checkUpload, formatDuration, unreadableText } from '../library/service';
import { afterDeletion } from '../retention/service';
import { findProject, speakersOf } from '../projects/repository';
import { sampleText } from '../projects/samples';
import { spaceAccess, isUuid } from '../spaces/guard';
import { segmentsOf } from '../projects/transcript/repository';
import type { UserRow } from '../../caller';
import { voiceEngines, type VoiceCloneEngine } from './engines';
import { speechSample } from '../../engines/builtin/voice-sample';
import * as repo from './repository';
import { namespace } from '../../cache/index';

type Deps = Pick<AppDeps, 'db' | 'storage' | 'engines' | 'config' | 'logger'>;
type CreateBody = v.InferOutput<typeof CreateVoicePresetRequest>;
type FromProjectBody = v.InferOutput<typeof VoicePresetFromProjectRequest>;
type UpdateBody = v.InferOutput<typeof UpdateVoicePresetRequest>;
type SettingsBody = v.InferOutput<typeof VoicePresetSettingsRequest>;

export const PRESET_NOT_FOUND = 'Voice not found';
/** Speech kept in a preset's sample (seconds): what a cloning engine gets. */
const SAMPLE_KEEP_SEC = 120;
/** Speech measured for the profile (seconds). */
const PROFILE_SEC = 60;
/** A preset still processing after this long was interrupted (the process stopped). */
const STALE_SEC = 15 * 60;

const iso = (d: Date | string) => new Date(d).toISOString();
const invalid = (msg: string, loc: Array<string | number> = ['body', 'media_id']) => new DomainError('invalid', [{ loc, msg, type: 'value_error' }]);

export function presetJson(p: repo.PresetRow): VoicePreset {
  return {
    id: p.id,
    space_id: p.space_id,
    label: p.label,
    similarity_boost: p.similarity_boost,
    stability: p.stability,
    is_temporary: p.is_temporary,
    project_id: p.project_id,
    speaker_id: p.speaker_id,
    status: p.status,
    error: p.error,
    engine: p.engine,
    voice_id: presetVoiceId(p.id),
    gender: p.gender,
    profile: p.profile,
    sample_duration: p.sample_duration,
    created_at: iso(p.created_at),
    updated_at: iso(p.updated_at),
  };
}

/** The entitlements of the space for `key` (its owner's plan; staff are not limited), refusing with the 403. */
async function entitled(deps: Deps, user: UserRow, spaceId: string, key: FeatureKey): Promise<Entitlements> {
  let e = await entitlementsFor(deps.db, { spaceId });
  if (user.is_superuser) e = staffEntitlements(e);
  const d = decide(e, key);
  if (!d.allowed) throw featureRefused(d.refusal!);
  return e;
}

/** A preset the caller may use: unknown id -> 404; another space -> 403 (the space guard). */
async function accessible(deps: Deps, user: UserRow, id: string, o: { forUpdate?: boolean } = {}): Promise<repo.PresetRow> {
  if (!isUuid(id)) throw notFound(PRESET_NOT_FOUND);
  const p = await repo.findPreset(deps.db, id, o);
  if (!p) throw notFound(PRESET_NOT_FOUND);
  await spaceAccess(deps.db, user, p.space_id);
  await entitled(deps, user, p.space_id, p.is_temporary ? 'instant_voice_preset' : 'voice_presets');
  return p;
}

const sampleKeyOf = (id: string) => `voice_presets/${id}/sample.wav`;

// ------------------------------------------------------------------ the sample

/** Seconds of speech in regions. */
const speechSeconds = (regions: readonly SpeechRegion[]) => regions.reduce((s, r) => s + Math.max(0, r.end - r.start), 0);

/**
 * From a 16 kHz mono WAV: the speech (voice-activity regions, pauses removed) written to `out` (at most
 * SAMPLE_KEEP_SEC) and the voice profile of its first PROFILE_SEC. Refuses a sample without speech.
 */
async function sampleFromWav(deps: Deps, wav16k: string, out: string): Promise<{ profile: VoiceProfile; seconds: number }> {
  const vad = deps.engines.vad;
  await vad.init?.();
  const regions = await vad.detect(wav16k);
  const speech = speechSeconds(regions);
  if (speech < VOICE_SAMPLE_MIN_SPEECH_SEC) {
    throw invalid(
      speech === 0
        ? 'The sample has no speech: use a recording of one person talking'
        : `The sample has too little speech (${speech.toFixed(1)} s): at least ${VOICE_SAMPLE_MIN_SPEECH_SEC} seconds are needed`,
    );
  }
  // Cut and measured in a worker thread: the profile of a minute of speech is over half a second of CPU.
  const s = await speechSample({ wav: wav16k, ranges: regions, keepSec: SAMPLE_KEEP_SEC, trimToKeep: true, gapSec: 0, out, profileSec: PROFILE_SEC });
  if (!s.profile) throw invalid('The sample has no voiced speech (no pitch could be measured): use a recording of one person talking');
  return { profile: s.profile, seconds: s.seconds };
}

/** The speech sample of an upload (audio, or the audio of a video): checked, extracted to 16 kHz mono. */
async function sampleFromUpload(deps: Deps, user: UserRow, spaceId: string, mediaId: string, dir: string) {
  const m = await findMedia(deps.db, mediaId);
  if (!m || (m.space_id !== spaceId && m.user_id !== user.id)) throw notFound('Media not found');
  if (m.status === 'uploading') throw conflict('The upload is not finished yet');
  if (m.status === 'failed') throw invalid(`The file cannot be used as a voice sample: ${m.error ?? 'it could not be read'}`);
  if (m.kind === 'srt') throw invalid('The file is a subtitle file, not audio: upload a recording of the voice');
  const facts = (m.probe ?? {}) as { durationSec?: number; hasAudio?: boolean };
  if (facts.hasAudio === false) throw invalid('The file has no sound: upload a recording of the voice');
  const local = await deps.storage.localFile(m.storage_key);
  const p = await probe(local).catch(() => null);
  if (!p || !p.hasAudio) throw invalid('The file is not a readable audio or video file with sound');
  if (p.durationSec > VOICE_SAMPLE_MAX_SEC) throw tooLong(p.durationSec);
  const wav = join(dir, 'input16k.wav');
  await extractMonoWav(local, wav, { sampleRate: 16000 });
  return wav;
}

function tooLong(sec: number): DomainError {
  const fmt = (s: number) => {
    const t = Math.round(s);
    const h = Math.floor(t / 3600);
    const mm = String(Math.floor(t / 60) % 60).padStart(h ? 2 : 1, '0');
    return `${h ? `${h}:` : ''}${mm}:${String(t % 60).padStart(2, '0')}`;
  };
  return invalid(`The sample is too long (${fmt(sec)}): at most ${VOICE_SAMPLE_MAX_SEC / 60} minutes of one person talking`);
}

/** The speech of one speaker of a project, cut from the project's 16 kHz audio along its segments. */
async function sampleFromSpeaker(deps: Deps, projectId: string, speakerId: string, dir: string): Promise<string> {
  const key = projectKey(projectId, 'audio_16k.wav');
  if (!(await deps.storage.exists(key))) throw conflict('The project\'s audio is not ready yet: wait until its speakers are known');
  const segs = (await segmentsOf(deps.db, projectId)).filter((s) => s.speaker === speakerId && s.end_sec > s.start_sec);
  if (segs.length === 0) throw invalid('This speaker has no segments to take the voice from', ['body', 'speaker_id']);
  const out = join(dir, 'speaker16k.wav');
  // Read range by range in a worker thread: a long project's audio is never held whole, nor cut on the event loop.
  await speechSample({
    wav: await deps.storage.localFile(key),
    ranges: [...segs].sort((a, b) => a.start_sec - b.start_sec).map((x) => ({ start: x.start_sec, end: x.end_sec })),
    keepSec: VOICE_SAMPLE_MAX_SEC,
    trimToKeep: false,
    gapSec: 0.3,
    out,
    profileSec: 0,
  });
  return out;
}

// ------------------------------------------------------------------ making the voice

/** The app's cloning tasks still running (its state). */
const PENDING = namespace('voices:cloning', () => new Set<Promise<void>>());
/** @public The cloning still running in this process (tests wait for them before closing the database). */
export async function settleVoiceTasks(deps: Deps): Promise<void> {
  await Promise.allSettled([...deps.db.state.of(PENDING)]);
}

/** Runs the engine's cloning for a new preset; the outcome is written to the preset (done or error). */
function startCloning(deps: Deps, engine: VoiceCloneEngine, row: repo.PresetRow, sample: string, dir: string): void {
  const task = (async () => {
    try {
      const r = await engine.clone({ name: row.label, sample, profile: row.profile! });
      await repo.finishPreset(deps.db, row.id, { status: 'done', engineVoiceId: r.engineVoiceId });
    } catch (e) {
      const msg = e instanceof Error ? e.message : String(e);
      deps.logger.warn({ presetId: row.id, err: msg }, 'voice cloning failed');
      await repo.finishPreset(deps.db, row.id, { status: 'error', error: `The voice could not be made: ${msg}`.slice(0, 500) }).catch(() => {});
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  })();
  const set = deps.db.state.of(PENDING);
  set.add(task);
  void task.finally(() => set.delete(task));
}

async function makePreset(
  deps: Deps,
  user: UserRow,
  o: {
    spaceId: string; label: string; similarityBoost: number; stability: number; isTemporary: boolean; projectId: string | null; speakerId: string | null;
    wav16k: string; dir: string;
  },
): Promise<VoicePreset> {
  const samplePath = join(o.dir, 'sample.wav');
  const { profile, seconds } = await sampleFromWav(deps, o.wav16k, samplePath);
  const id = randomUUID();
  const engine = voiceEngines(deps).current;
  const sampleKey = sampleKeyOf(id);
  await deps.storage.putFile(sampleKey, samplePath, { contentType: 'audio/wav' });
  const row = await deps.db.tx(async (db) => {
    await repo.lockSpaceForClones(db, o.spaceId);
    if (o.isTemporary) {
      // one instant preset per project speaker: a new one replaces the previous
      const old = (await repo.projectInstantPresets(db, o.projectId!)).find((p) => p.speaker_id === o.speakerId);
      if (old) await repo.deletePreset(db, old.id);
    } else {
      const e = await entitled({ ...deps, db }, user, o.spaceId, 'voice_presets');
      const limit = e.limits.voiceClones;
      if (!user.is_superuser && limit !== null && (await repo.countClones(db, o.spaceId)) >= limit) {
        throw new DomainError('forbidden', `Your plan allows ${limit} voice clones in a Teamspace: delete one or upgrade to Enterprise for unlimited clones`, {
          extra: { code: 'voice_clone_limit', feature: 'voice_presets', limit, required_plan: 'enterprise' },
        });
      }
    }
    return repo.insertPreset(db, {
      id, spaceId: o.spaceId, userId: user.id, label: o.label, similarityBoost: o.similarityBoost, stability: o.stability,
      isTemporary: o.isTemporary, projectId: o.projectId, speakerId: o.speakerId, engine: engine.id, profile, sampleKey, sampleDuration: seconds,
    });
  }).catch(async (e) => {
    await deps.storage.delete(sampleKey).catch(() => {});
    throw e;
  });
  startCloning(deps, engine, row, samplePath, o.dir);
  return presetJson(row);
}

async function withDir<T>(fn: (dir: string) => Promise<T>): Promise<T> {
  const dir = await mkdtemp(join(tmpdir(), 'ds-preset-'));
  try {
    return await fn(dir);
  } catch (e) {
    await rm(dir, { recursive: true, force: true });
    throw e;
  }
}

// ------------------------------------------------------------------ calls

export async function listPresets(deps: Deps, user: UserRow, spaceId: string): Promise<VoicePresetList> {
  const space = await spaceAccess(deps.db, user, spaceId);
  const e = await entitled(deps, user, space.id, 'voice_presets');
  await repo.failStalePresets(deps.db, STALE_SEC, 'Making the voice was interrupted: delete it and create it again');
  const rows = await repo.listPresets(deps.db, space.id);
  return {
    presets: rows.map(presetJson),
    limit: user.is_superuser ? null : e.limits.voiceClones,
    used: rows.length,
    engine: voiceEngines(deps).current.id,
  };
}

export async function getPreset(deps: Deps, user: UserRow, id: string): Promise<VoicePreset> {
  return presetJson(await accessible(deps, user, id));
}

export async function createFromUpload(deps: Deps, user: UserRow, spaceId: string, body: CreateBody): Promise<VoicePreset> {
  const space = await spaceAccess(deps.db, user, spaceId);
  const e = await entitled(deps, user, space.id, 'voice_presets');
  await checkLimit(deps, user, space.id, e);
  return withDir(async (dir) => {
    const wav = await sampleFromUpload(deps, user, space.id, body.media_id, dir);
    return makePreset(deps, user, {
      spaceId: space.id, label: body.label, similarityBoost: body.similarity_boost, stability: body.stability, isTemporary: false,
      projectId: null, speakerId: null, wav16k: wav, dir,
    });
  });
}

/** Refuses before any work when the library is full (checked again under a lock when the preset is saved). */
async function checkLimit(deps: Deps, user: UserRow, spaceId: string, e: Entitlements): Promise<void> {
  const limit = e.limits.voiceClones;
  if (user.is_superuser || limit === null) return;
  if ((await repo.countClones(deps.db, spaceId)) >= limit) {
    throw new DomainError('forbidden', `Your plan allows ${limit} voice clones in a Teamspace: delete one or upgrade to Enterprise for unlimited clones`, {
      extra: { code: 'voice_clone_limit', feature: 'voice_presets', limit, required_plan: 'enterprise' },
    });
  }
}

export async function createFromProject(deps: Deps, user: UserRow, body: FromProjectBody): Promise<VoicePreset> {
  const project = await findProject(deps.db, body.project_id);
  if (!project) throw notFound('Project not found');
  await spaceAccess(deps.db, user, project.space_id);
  const e = await entitled(deps, user, project.space_id, body.is_temporary ? 'instant_voice_preset' : 'voice_presets');
  if (!body.is_temporary) await checkLimit(deps, user, project.space_id, e);
  const speaker = (await speakersOf(deps.db, project.id)).find((s) => s.id === body.speaker_id);
  if (!speaker) throw notFound(`Speaker not found: ${body.speaker_id}`);
  const label = body.label ?? `${speaker.name} (${project.name})`.slice(0, 80);
  return withDir(async (dir) => {
    const wav = await sampleFromSpeaker(deps, project.id, speaker.id, dir);
    return makePreset(deps, user, {
      spaceId: project.space_id, label, similarityBoost: body.similarity_boost, stability: body.stability, isTemporary: body.is_temporary,
      projectId: project.id, speakerId: speaker.id, wav16k: wav, dir,
    });
  });
}

export async function updatePreset(deps: Deps, user: UserRow, id: string, body: UpdateBody): Promise<VoicePreset> {
  await accessible(deps, user, id);
  const row = await repo.updatePreset(deps.db, id, { label: body.label, similarityBoost: body.similarity_boost, stability: body.stability });
  if (body.similarity_boost !== undefined || body.stability !== undefined) await markSpeakersChanged(deps, row);
  return presetJson(row);
}

/**
 * update_settings (every project using the preset is re-voiced on its next generate) and
 * update_settings_from_project (the editor: the caller's project must use the preset).
 */
export async function updateSettings(deps: Deps, user: UserRow, id: string, body: SettingsBody, fromProject: boolean): Promise<VoicePreset> {
  const p = await accessible(deps, user, id);
  if (fromProject) {
    if (!body.project_id) throw invalid('Field is required', ['body', 'project_id']);
    const project = await findProject(deps.db, body.project_id);
    if (!project || project.space_id !== p.space_id) throw notFound('Project not found');
    await spaceAccess(deps.db, user, project.space_id);
    if ((await repo.speakersUsing(deps.db, presetVoiceId(p.id), project.id)).length === 0) {
      throw conflict('No speaker of this project uses this voice');
    }
  }
  const row = await repo.updatePreset(deps.db, id, { similarityBoost: body.similarity_boost, stability: body.stability });
  await markSpeakersChanged(deps, row);
  return presetJson(row);
}

/** Segments of speakers using the preset are marked changed (the next generate re-voices only them). */
async function markSpeakersChanged(deps: Deps, p: repo.PresetRow): Promise<void> {
  const users = await repo.speakersUsing(deps.db, presetVoiceId(p.id));
  for (const s of users) {
    await repo.markSpeakerSegmentsUpdated(deps.db, s.project_id, s.id);
  }
}

export async function deletePreset(deps: Deps, user: UserRow, id: string): Promise<{ id: string; status: 'deleted' }> {
  const p = await accessible(deps, user, id);
  if (p.status === 'processing') throw conflict('The voice is still being made: delete it when it is done');
  // Speakers that used it keep the id: the voice pool no longer offers it and the voiceover asks for another voice.
  await repo.deletePreset(deps.db, p.id);
  await voiceEngines(deps).byId(p.engine)?.remove(p);
  await afterDeletion(deps);
  return { id: p.id, status: 'deleted' };
}

export async function presetStatuses(deps: Deps, user: UserRow, ids: string[]): Promise<VoicePresetStatuses> {
  await repo.failStalePresets(deps.db, STALE_SEC, 'Making the voice was interrupted: delete it and create it again');
  const rows = await repo.findPresets(deps.db, ids.filter(isUuid));
  const out: VoicePresetStatuses = [];
  for (const r of rows) {
    try {
      await spaceAccess(deps.db, user, r.space_id);
    } catch {
      continue; // other spaces' presets are not told apart from unknown ids
    }
    out.push({ id: r.id, status: r.status, error: r.error });
  }
  return out;
}

/** A WAV of the preset saying the language's sample sentence at the given settings (kept in storage). */
export async function presetSample(
  deps: Deps,
  user: UserRow,
  id: string,
  q: { language: string; similarity_boost?: number; stability?: number },
): Promise<Buffer> {
  const p = await accessible(deps, user, id);
  if (p.status !== 'done') throw conflict(p.status === 'processing' ? 'The voice is still being made' : `The voice could not be made: ${p.error ?? ''}`);
  const settings = { similarity_boost: q.similarity_boost ?? p.similarity_boost, stability: q.stability ?? p.stability };
  const engine = voiceEngines(deps).byId(p.engine);
  if (!engine) throw new DomainError('unavailable', `The voice engine "${p.engine}" of this voice is not configured any more`);
  const lang = q.language.toLowerCase();
  if (!(await engine.speaks(lang))) throw invalid(`This voice cannot speak "${lang}" here`, ['query', 'language']);
  const h = createHash('sha256').update(JSON.stringify([p.engine_voice_id, p.profile, settings, lang, 1])).digest('hex').slice(0, 24);
  const key = `voice_presets/${p.id}/samples/${h}.wav`;
  if (await deps.storage.exists(key)) return deps.storage.getBuffer(key);
  const dir = await mkdtemp(join(tmpdir(), 'ds-preset-sample-'));
  try {
    const out = join(dir, 'sample.wav');
    await engine.speak({ ...p, ...settings }, { text: sampleText(lang), lang, rate: 1, outPath: out });
    if (!existsSync(out)) throw new DomainError('upstream_failed', 'The voice engine wrote no audio');
    await deps.storage.putFile(key, out, { contentType: 'audio/wav' });
    return deps.storage.getBuffer(key);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

// ------------------------------------------------------------------ projects: the voice pool, the dub

export interface PresetPoolVoice {
  id: string;
  name: string;
  gender: string | null;
  language: string;
  dialect: null;
  engine: string;
  sample_url: null;
  preset_id: string;
  is_temporary: boolean;
  speaker_id: string | null;
}

/** The presets a project can use (done): the space's library and the project's instant presets. */
export async function presetVoicesFor(deps: Pick<Deps, 'db'>, project: { id: string; space_id: string; dst_lang: string }): Promise<PresetPoolVoice[]> {
  const rows = [...(await repo.listPresets(deps.db, project.space_id)), ...(await repo.projectInstantPresets(deps.db, project.id))];
  return rows
    .filter((p) => p.status === 'done')
    .map((p) => ({
      id: presetVoiceId(p.id), name: p.is_temporary ? `Instant clone: ${p.label}` : p.label, gender: p.gender, language: project.dst_lang,
      dialect: null, engine: p.engine, sample_url: null, preset_id: p.id, is_temporary: p.is_temporary, speaker_id: p.speaker_id,
    }));
}

/** Voice ids of cloning engines that belong to presets (they are never offered as stock voices). */
export async function clonedEngineVoiceIds(db: Deps['db']): Promise<Set<string>> {
  return new Set(await repo.clonedEngineVoiceIds(db));
}

/**
 * The project's tts_provider as its speakers' voices make it: the engine of each speaker's voice (a voice preset's
 * own engine, e.g. an ElevenLabs clone, or the stock voice's engine), the one engine when all agree, else the
 * engines sorted and joined by '+'. Null when no speaker has a known voice (the caller keeps what it had).
 * Read with `db` (a transaction that just changed a voice sees its change).
 */
export async function ttsProviderOfSpeakers(
  deps: Pick<Deps, 'engines'>,
  db: Deps['db'],
  project: { id: string; space_id: string; dst_lang: string },
): Promise<string | null> {
  const speakers = await speakersOf(db, project.id);
  const engines = new Set<string>();
  let stock: Map<string, string> | null = null;
  for (const s of speakers) {
    if (!s.voice_id) continue;
    const preset = await presetForVoice({ db }, project, s.voice_id);
    if (preset) {
      engines.add(preset.engine);
      continue;
    }
    stock ??= new Map((await deps.engines.voices(project.dst_lang)).map((v) => [v.id, v.engine]));
    const engine = stock.get(s.voice_id);
    if (engine) engines.add(engine);
  }
  return engines.size === 0 ? null : [...engines].sort().join('+');
}

/** A speaker's preset, when its voice is one (and usable by the project): for the voiceover stage. */
export async function presetForVoice(
  deps: Pick<Deps, 'db'>,
  project: { id: string; space_id: string },
  voiceId: string | null,
): Promise<repo.PresetRow | null> {
  const id = presetIdOfVoice(voiceId);
  if (!id || !isUuid(id)) return null;
  const p = await repo.findPreset(deps.db, id);
  if (!p || p.space_id !== project.space_id || p.status !== 'done') return null;
  if (p.is_temporary && p.project_id !== project.id) return null;
  return p;
}

// ------------------------------------------------------------------ tutorial flags

export function setTutorialFlag(deps: Pick<Deps, 'db'>, user: UserRow, flag: repo.TutorialFlag) {
  return repo.setTutorialFlag(deps.db, user.id, flag);
}
export function tutorialFlags(deps: Pick<Deps, 'db'>, user: UserRow) {
  return repo.tutorialFlags(deps.db, user.id);
}

// ------------------------------------------------------------------ library: the audio of a video

/**
 * POST /api/library/media/extract-audio: the sound of an uploaded video (already read into `local`), kept as an
 * audio upload of the space (16 kHz mono WAV: what voice samples use). The video itself is not kept.
 */
export async function extractAudioUpload(
  deps: Deps,
  user: UserRow,
  spaceId: string,
  f: { local: string; filename: string },
): Promise<MediaRow> {
  const space = await spaceAccess(deps.db, user, spaceId);
  const p = await probe(f.local).catch((e: unknown) => {
    throw invalid(unreadableText(e), ['body', 'file']);
  });
  if (!p.hasAudio) throw invalid('The file has no sound to extract', ['body', 'file']);
  if (p.durationSec > deps.config.limits.maxVideoDuration) {
    throw new DomainError('too_large', `The file is too long (${formatDuration(p.durationSec)}): the limit is ${formatDuration(deps.config.limits.maxVideoDuration)}`);
  }
  const id = randomUUID();
  const name = `${f.filename.replace(/\.[^.]*$/, '') || 'audio'}.wav`.slice(0, 255);
  const dir = await mkdtemp(join(tmpdir(), 'ds-extract-'));
  try {
    const wav = join(dir, 'audio.wav');
    await extractMonoWav(f.local, wav, { sampleRate: 16000 });
    const key = uploadKey(id, name);
    await insertMedia(deps.db, {
      id, spaceId: space.id, userId: user.id, kind: 'audio', filename: name, contentType: 'audio/wav', sizeBytes: statSync(wav).size, storageKey: key, via: 'multipart',
    });
    await deps.storage.putFile(key, wav, { contentType: 'audio/wav', move: true });
    return (await checkUpload(deps, id))!;
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/**
 * The TTS engine that speaks a speaker's preset in the voiceover stage (null when the voice is no preset the
 * project may use, or its engine is gone). Its id carries the preset's settings, so the fitted-clip cache
 * re-voices the segments when the accent or expressiveness change.
 */
export async function presetTts(deps: Pick<Deps, 'db' | 'engines'>, project: { id: string; space_id: string }, voiceId: string): Promise<TtsEngine | null> {
  const p = await presetForVoice(deps, project, voiceId);
  if (!p) return null;
  const engine = voiceEngines(deps).byId(p.engine);
  if (!engine) return null;
  const h = createHash('sha256')
    .update(JSON.stringify([p.engine, p.engine_voice_id, p.profile, p.similarity_boost, p.stability, MATCHING_VERSION]))
    .digest('hex')
    .slice(0, 16);
  return {
    id: `preset-${p.id}-${h}`,
    label: `${engine.label}: ${p.label}`,
    languages: () => [],
    voices: () => [],
    synthesize: (req, o) => engine.speak(p, { text: req.text, lang: req.lang, rate: req.rate, outPath: req.outPath }, o),
  };
}
/** Bumped when the built-in voice matching changes how it sounds (cached clips are made again). */
const MATCHING_VERSION = 1;
