// Several target languages per video (issue 15): the projects of the other languages of a multi-language
// create, and copies into another language, reuse the source's analysis (audio, speech regions, background,
// transcript, speakers) instead of running it again. Each language is its own project, listed under the source.
import type { Db } from '../../db/index';
import type { EngineRegistry } from '../../engines/registry';
import { setStatus } from './pipeline/stages';
import { projectKey } from '../../storage/index';
import type { Storage } from '../../storage/types';
import { copySegments } from './transcript/repository';
import * as repo from './repository';

/** Artifacts of the analysis that a project in another language reuses. */
const REUSED = ['audio_16k.wav', 'audio_48k.wav', 'vad.json', 'regions.json', 'background.wav'];

export interface LanguageDeps {
  db: Db;
  storage: Storage;
  engines: EngineRegistry;
}

/** A language still to be made from a multi-language create (projects.pending_dst_langs). */
export interface PendingLanguage {
  dst_lang: string;
  glossary_id: string | null;
}

/** The target languages of a create: dst_lang first, then dst_langs, each once. */
export function targetLanguages(body: { dst_lang?: string; dst_langs?: string[] }): string[] {
  const out: string[] = [];
  for (const l of [...(body.dst_lang ? [body.dst_lang] : []), ...(body.dst_langs ?? [])]) if (!out.includes(l)) out.push(l);
  return out;
}

/**
 * A new project translating the source into `dstLang`, with the source's transcript (target text empty),
 * speakers and analysis artifacts, left at determine_speakers_done: the caller queues voice_suggest.
 */
export async function makeLanguageProject(
  deps: LanguageDeps,
  source: repo.ProjectRow,
  o: { dstLang: string; userId: string; freeDubbing: boolean; glossaryId: string | null },
): Promise<repo.ProjectRow> {
  const sourceKey = source.media_info?.sourceKey ?? source.original_video;
  const row = await deps.db.tx(async (t) => {
    const np = await repo.insertProject(t, {
      spaceId: source.space_id,
      userId: o.userId,
      name: `${source.name} (${o.dstLang.toUpperCase()})`.slice(0, 255),
      srcLang: source.src_lang,
      dstLang: o.dstLang,
      mediaId: source.media_id,
      link: source.link,
      numSpeakers: source.num_speakers,
      srcSrtMediaId: source.src_srt_media_id,
      dstSrtMediaId: null,
      glossaryId: o.glossaryId,
      freeDubbing: o.freeDubbing,
      copiedFrom: source.id,
      ttsProvider: (await deps.engines.ttsFor(o.dstLang))?.id ?? null,
      status: 'determine_speakers_done',
      progress: 42,
    });
    await copySegments(t, source.id, np.id, 'empty');
    await repo.copySpeakers(t, source.id, np.id);
    return np;
  });
  // The source and the analysis artifacts under the new project's keys (hard links for local storage).
  let newSource: string | null = null;
  if (sourceKey) {
    newSource = projectKey(row.id, sourceKey.split('/').pop()!);
    await deps.storage.copy(sourceKey, newSource);
  }
  for (const a of REUSED) {
    const k = projectKey(source.id, a);
    if (await deps.storage.exists(k)) await deps.storage.copy(k, projectKey(row.id, a));
  }
  await repo.updateProjectFields(deps.db, row.id, {
    duration: source.duration,
    media_info: source.media_info ? { ...source.media_info, sourceKey: newSource ?? undefined } : null,
    original_video: source.original_video ? newSource : null,
  });
  await setStatus(deps.db, row.id, 'determine_speakers_done');
  return (await repo.findProject(deps.db, row.id))!;
}

/**
 * Makes the projects of the languages still pending on `projectId` (once its speakers are known), one at a
 * time: each is taken off the list in the transaction that makes it, so a stage run twice makes none twice.
 * Returns the new projects' ids (the caller queues their voice_suggest).
 */
export async function makePendingLanguages(deps: LanguageDeps, projectId: string): Promise<string[]> {
  const made: string[] = [];
  for (;;) {
    // One transaction per language: the project is made and the language taken off the list together.
    const id = await deps.db.tx(async (t) => {
      const p = await repo.lockProject(t, projectId);
      const pending = (p?.pending_dst_langs ?? []) as PendingLanguage[];
      if (!p || pending.length === 0) return null;
      const lang = pending[0]!;
      const row = await makeLanguageProject({ ...deps, db: t }, p, {
        dstLang: lang.dst_lang, userId: p.user_id as string, freeDubbing: false, glossaryId: lang.glossary_id,
      });
      await repo.setPendingLanguages(t, projectId, pending.slice(1));
      return row.id;
    });
    if (!id) return made;
    made.push(id);
  }
}
