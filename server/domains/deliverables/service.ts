// Deliverables with every language of a video (issue 31): the original project and the projects of its other
// languages (made by a multi-language create or a copy, linked by copied_from) as one MP4 or MKV with an audio
// and a subtitle track per language, or as an HLS package. Only finished dubs go in. The files are made on the
// first request (stream copy: seconds), kept in storage under a name that hashes their inputs, and served like
// the other downloads (signed links); the HLS package through a signed link to its folder.
import { createHash } from 'node:crypto';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { flights } from '../../cache/flights';
import type { AppDeps } from '../../deps';
import type { UserRow } from '../../caller';
import { isFinished } from '../../../contract/statuses';
import type { ProjectStatus } from '../../../contract/statuses';
import { conflict, unprocessable } from '../../errors';
import { mediaUrl, projectKey } from '../../storage/index';
import { safeFileName, signFileToken } from '../../storage/signed';
import { probe } from '../../media/probe';
import {
  HLS_MASTER, iso639_2, languageTitle, muxAllLanguages, writeHlsPackage, type DeliverableInput, type DeliverableTrack,
} from '../../media/deliverables';
import * as repo from '../projects/repository';
import { copiesOf } from './repository';
import { loadProject } from '../projects/service';

export const DELIVERABLE_FORMATS = ['mp4', 'mkv', 'hls'] as const;
export type DeliverableFormat = (typeof DELIVERABLE_FORMATS)[number];

export const NO_DUBBED_LANGUAGE = 'No language of this video is dubbed yet: generate at least one language first';

export interface DeliverableLanguage {
  lang: string;
  /** ISO 639-2 code written in the file. */
  code: string;
  name: string;
  /** The project of the language; null for the original audio. */
  project_id: string | null;
  original: boolean;
  default: boolean;
}

export interface DeliverableAnswer {
  format: DeliverableFormat;
  url: string;
  languages: DeliverableLanguage[];
}

interface Member {
  project: repo.ProjectRow;
}

/** The original project of `p` (itself, or the project it was made from in the same space). */
async function originalOf(deps: AppDeps, p: repo.ProjectRow): Promise<repo.ProjectRow> {
  if (!p.copied_from) return p;
  const parent = await repo.findProject(deps.db, p.copied_from);
  return parent && parent.space_id === p.space_id ? parent : p;
}

/** The finished languages of the video: the original project's, then its copies', one project per language. */
async function finishedLanguages(deps: AppDeps, root: repo.ProjectRow): Promise<Member[]> {
  const rows = await copiesOf(deps.db, root);
  const all = [root];
  for (const r of rows) {
    const p = await repo.findProject(deps.db, r.id);
    if (p) all.push(p);
  }
  const out: Member[] = [];
  for (const p of all) {
    if (!isFinished(p.status as ProjectStatus) || !p.translated_audio || p.dst_lang === root.src_lang) continue;
    if (out.some((m) => m.project.dst_lang === p.dst_lang)) continue;
    if (!(await deps.storage.exists(p.translated_audio))) continue;
    out.push({ project: p });
  }
  return out;
}

/** Deliverables being made by this app, by key (two clicks make the file once; app state, server/cache). */
const MAKING = flights<void>('deliverables');
function once(deps: AppDeps, key: string, make: () => Promise<void>): Promise<void> {
  return deps.db.state.of(MAKING).run(key, make);
}

/** Same-origin URL of a file of an HLS package (signed link to its folder). */
function hlsUrl(deps: AppDeps, prefix: string): string {
  const exp = Math.ceil((Date.now() / 1000 + 6 * 3600) / 3600) * 3600;
  const token = signFileToken(deps.config.jwtSecret, { key: prefix, exp });
  const base = (deps.config.publicUrl ?? '').replace(/\/+$/, '');
  return `${base}/api/deliverables/hls/${token}/${HLS_MASTER}`;
}

/** An HLS folder key as signed into links: projects/<uuid>/deliverables/hls-<hash>/ */
export const HLS_PREFIX = /^projects\/[0-9a-f-]{36}\/deliverables\/hls-[0-9a-f]{24}\/$/;

/** The languages an all-languages deliverable of the project's video holds now (the original first). */
export async function deliverableLanguages(deps: AppDeps, user: UserRow, id: string): Promise<{ languages: DeliverableLanguage[] }> {
  const { project } = await loadProject(deps, user, id);
  const root = await originalOf(deps, project);
  const members = await finishedLanguages(deps, root);
  if (members.length === 0) return { languages: [] };
  return { languages: describe(root, members, 0) };
}

function describe(root: repo.ProjectRow, members: Member[], defaultTrack: number): DeliverableLanguage[] {
  return [
    { lang: root.src_lang, code: iso639_2(root.src_lang), name: languageTitle(root.src_lang), project_id: null, original: true, default: defaultTrack === 0 },
    ...members.map((m, i) => ({
      lang: m.project.dst_lang, code: iso639_2(m.project.dst_lang), name: languageTitle(m.project.dst_lang),
      project_id: m.project.id, original: false, default: defaultTrack === i + 1,
    })),
  ];
}

export async function makeDeliverable(
  deps: AppDeps,
  user: UserRow,
  id: string,
  o: { format: DeliverableFormat; defaultLang?: string },
): Promise<DeliverableAnswer> {
  const { project } = await loadProject(deps, user, id);
  const root = await originalOf(deps, project);
  const members = await finishedLanguages(deps, root);
  if (members.length === 0) throw conflict(NO_DUBBED_LANGUAGE);
  const videoKey = root.original_video ?? root.media_info?.sourceKey ?? null;
  if (!videoKey || !(await deps.storage.exists(videoKey))) throw conflict('The original video is not available');
  const wanted = o.defaultLang ?? 'original';
  const langs = ['original', ...members.map((m) => m.project.dst_lang)];
  if (!langs.includes(wanted) && wanted !== root.src_lang) {
    throw unprocessable([{ loc: ['query', 'default'], msg: `default must be one of ${[root.src_lang, ...langs.slice(1)].join(', ')}`, type: 'enum' }]);
  }
  const defaultTrack = wanted === 'original' || wanted === root.src_lang ? 0 : 1 + members.findIndex((m) => m.project.dst_lang === wanted);

  // The inputs' identity (keys and stored versions) names the result: a new dub makes a new file.
  const stamp: unknown[] = [o.format, defaultTrack, videoKey, (await deps.storage.stat(videoKey))?.mtime.getTime()];
  for (const m of members) {
    for (const k of [m.project.translated_audio, m.project.translation_srt_path]) {
      stamp.push(k, k ? (await deps.storage.stat(k))?.mtime.getTime() ?? null : null);
    }
  }
  const hash = createHash('sha256').update(JSON.stringify(stamp)).digest('hex').slice(0, 24);
  const languages = describe(root, members, defaultTrack);

  const build = async (write: (input: DeliverableInput, dir: string) => Promise<void>) => {
    const dir = mkdtempSync(join(tmpdir(), 'deliver-'));
    try {
      const video = await deps.storage.localFile(videoKey);
      const info = await probe(video);
      if (!info.hasVideo) throw conflict('The original has no video stream');
      const tracks: DeliverableTrack[] = [];
      // The original audio (the original's own subtitles are not part of a dub: none for it).
      const originalAudio = info.hasAudio ? video : await deps.storage.localFile(projectKey(root.id, 'audio_48k.wav'));
      tracks.push({
        lang: root.src_lang, audio: originalAudio, audioIsAac: info.hasAudio && info.audioCodec === 'aac', srt: null,
        title: `${languageTitle(root.src_lang)} (original)`,
      });
      for (const m of members) {
        const audio = await deps.storage.localFile(m.project.translated_audio!);
        const a = await probe(audio);
        const srt = m.project.translation_srt_path && (await deps.storage.exists(m.project.translation_srt_path))
          ? await deps.storage.localFile(m.project.translation_srt_path) : null;
        tracks.push({ lang: m.project.dst_lang, audio, audioIsAac: a.audioCodec === 'aac', srt });
      }
      await write({ video, tracks, defaultTrack }, dir);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  };

  if (o.format === 'hls') {
    const prefix = projectKey(root.id, `deliverables/hls-${hash}/`);
    if (!(await deps.storage.exists(prefix + HLS_MASTER))) {
      await once(deps, prefix, () => build(async (input, dir) => {
        await writeHlsPackage(input, dir, { timeoutMs: 30 * 60_000 });
        // The master last: its presence says the package is whole.
        const files = readdirSync(dir).filter((f) => f !== HLS_MASTER && f !== 'ffmpeg-master.m3u8');
        for (const f of files) await deps.storage.putFile(prefix + f, join(dir, f), { move: true });
        await deps.storage.putFile(prefix + HLS_MASTER, join(dir, HLS_MASTER), { move: true });
      }));
    }
    return { format: 'hls', url: hlsUrl(deps, prefix), languages };
  }
  const key = projectKey(root.id, `deliverables/all-${hash}.${o.format}`);
  if (!(await deps.storage.exists(key))) {
    await once(deps, key, () => build(async (input, dir) => {
      const out = join(dir, `all.${o.format}`);
      await muxAllLanguages(input, o.format as 'mp4' | 'mkv', out, { timeoutMs: 30 * 60_000 });
      await deps.storage.putFile(key, out, { move: true });
    }));
  }
  const name = safeFileName(`${root.name}_all_languages`, `.${o.format}`);
  return { format: o.format, url: mediaUrl(deps, key, { downloadName: name }), languages };
}
