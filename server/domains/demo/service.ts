// The demo project (spec sections 4 and 7: POST /api/project/demo {dst_lang}, GET /api/project/demo/covers).
// Offered to trial users in the demo_project A/B group: the demo view lists the languages the demo can be
// opened in, with its cover; opening one makes an ordinary project of the user's default Teamspace from the
// demo video, which the pipeline transcribes, translates and then dubs at once (no press on Generate), at no
// cost: no minute is checked or charged, and a later re-generate of the demo is free too (free_dubbing).
// One demo per user and language: a second click opens the same project.
import { randomUUID } from 'node:crypto';
import type { Project } from '../../../contract/schemas/project';
import type { DemoCovers } from '../../../contract/schemas/onboarding';
import type { Language } from '../../../contract/schemas/settings';
import type { AppDeps } from '../../deps';
import type { Db } from '../../db/index';
import { mediaUrl, uploadKey } from '../../storage/index';
import { setStatus, type StageName } from '../projects/pipeline/stages';
import { badRequest, conflict, DomainError, forbidden } from '../../errors';
import { effectiveTierOf, getUserSubscriptionCached } from '../billing/plan';
import { finishMedia, insertMedia } from '../library/repository';
import { bumpGeneration, findProject, insertProject } from '../projects/repository';
import { checkLanguages } from '../projects/service';
import { oneProjectJson } from '../projects/shape';
import { findDefaultSpace } from '../spaces/repository';
import { setSegmentsStatus } from '../projects/transcript/repository';
import type { UserRow } from '../../caller';
import * as repo from './repository';
import { DEMO, ensureDemoSource } from './source';

export const DEMO_GROUP = 'demo_project';

export const DEMO_TEXTS = {
  notInGroup: 'The demo project is not offered to this account',
  notTrial: 'The demo project is offered on the trial plan only',
  noDefaultSpace: 'Your default Teamspace was not found',
} as const;

/** Trial users (no paid plan in effect) in the demo_project group, any option but 'control'. */
async function requireEligible(db: Db, user: UserRow): Promise<void> {
  const inGroup = (user.feature_groups ?? []).some((g) => g.name === DEMO_GROUP && g.option.id !== 'control');
  if (!inGroup) throw forbidden(DEMO_TEXTS.notInGroup);
  const sub = await getUserSubscriptionCached(db, user.id);
  const tier = effectiveTierOf(sub);
  if (sub && tier !== 'trial' && tier !== 'free') throw forbidden(DEMO_TEXTS.notTrial);
}

/** The target languages the installed engines can dub the (English) demo into, by numeric id. */
async function demoLanguages(deps: AppDeps): Promise<Language[]> {
  const lists = await deps.engines.languageLists();
  const seen = new Set<string>();
  const out: Language[] = [];
  for (const l of [...lists.translation].sort((a, b) => a.id - b.id)) {
    if (l.value === DEMO.srcLang || seen.has(l.value)) continue;
    seen.add(l.value);
    try {
      await checkLanguages(deps.engines, { src: DEMO.srcLang, dst: l.value, srcSrt: false, dstSrt: false });
      out.push(l);
    } catch {
      // not dubbable from English here
    }
  }
  return out;
}

/** GET /api/project/demo/covers: the demo video and the languages it can be opened in (with the user's demos). */
export async function demoCovers(deps: AppDeps, user: UserRow): Promise<DemoCovers> {
  await requireEligible(deps.db, user);
  const source = await ensureDemoSource(deps);
  const languages = await demoLanguages(deps);
  const mine = new Map((await repo.demosOfUser(deps.db, user.id)).map((d) => [d.dst_lang, d]));
  const cover = mediaUrl(deps, source.coverKey);
  return {
    title: DEMO.title,
    src_lang: DEMO.srcLang,
    duration: source.durationSec,
    cover_url: cover,
    languages: languages.map((l) => ({
      dst_lang: l.value,
      label: l.label,
      country_code: l.country_code,
      cover_url: cover,
      project_id: mine.get(l.value)?.project_id ?? null,
      status: mine.get(l.value)?.status ?? null,
    })),
  };
}

/**
 * POST /api/project/demo {dst_lang}: the user's demo project in that language, made now (created: true) or the
 * one made before (created: false).
 */
export async function openDemo(deps: AppDeps, user: UserRow, dstLang: string): Promise<{ project: Project; created: boolean }> {
  await requireEligible(deps.db, user);
  const existing = await repo.findDemo(deps.db, user.id, dstLang);
  if (existing) {
    const p = await findProject(deps.db, existing.project_id);
    if (p) return { project: await oneProjectJson(deps, p), created: false };
  }
  const languages = await demoLanguages(deps);
  if (!languages.some((l) => l.value === dstLang)) {
    // The engines' own reason when they have one (e.g. no voice for that language), else the plain refusal.
    await checkLanguages(deps.engines, { src: DEMO.srcLang, dst: dstLang, srcSrt: false, dstSrt: false });
    throw badRequest(`The demo cannot be dubbed into "${dstLang}" on this server`);
  }
  const space = await findDefaultSpace(deps.db, user.id);
  if (!space) throw conflict(DEMO_TEXTS.noDefaultSpace);
  const source = await ensureDemoSource(deps);
  // The demo video becomes this project's upload (its own copy: deleting the project removes only that).
  const mediaId = randomUUID();
  const key = uploadKey(mediaId, 'demo.mp4');
  await deps.storage.copy(source.sourceKey, key);
  const ttsProvider = (await deps.engines.ttsFor(dstLang))?.id ?? null;
  type Made = { kind: 'made'; row: Awaited<ReturnType<typeof insertProject>> } | { kind: 'before'; projectId: string };
  let r: Made;
  try {
    r = await deps.db.tx(async (t): Promise<Made> => {
      await repo.lockUser(t, user.id);
      const again = await repo.findDemo(t, user.id, dstLang);
      if (again) return { kind: 'before', projectId: again.project_id };
      await insertMedia(t, {
        id: mediaId, spaceId: space.id, userId: user.id, kind: 'video', filename: `${DEMO.title}.mp4`, contentType: 'video/mp4',
        sizeBytes: source.sizeBytes, storageKey: key, via: 'multipart',
      });
      await finishMedia(t, mediaId, { status: 'uploaded', sizeBytes: source.sizeBytes });
      const row = await insertProject(t, {
        spaceId: space.id, userId: user.id, name: DEMO.projectName, srcLang: DEMO.srcLang, dstLang, mediaId, link: null,
        numSpeakers: 1, srcSrtMediaId: null, dstSrtMediaId: null, glossaryId: null, ttsProvider, freeDubbing: true,
      });
      await repo.insertDemo(t, { user_id: user.id, dst_lang: dstLang, project_id: row.id });
      return { kind: 'made', row };
    });
  } catch (e) {
    await deps.storage.delete(key).catch(() => {});
    throw e;
  }
  if (r.kind === 'before') {
    // Another click made it meanwhile: that one is the demo.
    await deps.storage.delete(key).catch(() => {});
    const p = await findProject(deps.db, r.projectId);
    if (!p) throw new DomainError('conflict', 'The demo project is being made: try again');
    return { project: await oneProjectJson(deps, p), created: false };
  }
  const row = r.row;
  await deps.pipeline.enqueue(row.id, 'ingest');
  return { project: await oneProjectJson(deps, row), created: true };
}

/**
 * Registered with the pipeline (continueAfter, in the transaction that records the stage done): a demo project
 * goes from its translation straight to the dub, as if Generate was pressed, without a charge.
 */
export async function continueDemo(db: Db, projectId: string, stage: StageName): Promise<StageName | null> {
  if (stage !== 'translation' || !(await repo.isDemoProject(db, projectId))) return null;
  await setSegmentsStatus(db, projectId, ['updated', 'error'], 'processing');
  await bumpGeneration(db, projectId);
  await setStatus(db, projectId, 'voiceover_started');
  return 'voiceover';
}
