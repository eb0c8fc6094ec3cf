// Batches (issue 31): many videos into many languages in one go. Each item is ONE project made by the existing
// multi-language create (projects/service.ts createTranscript with dst_langs): the video is analysed once and
// its other languages' projects are made from that analysis (projects/languages.ts). The minutes of the whole
// batch are checked before it starts; each language is debited when its dub starts (the generation debit of
// projects/service.ts generate) and refunded by the billing listener when it fails, as for any project.
import Papa from 'papaparse';
import { minutesNeeded } from '../../../contract/constants';
import type { Batch, BatchItem, BatchLanguage, BatchItemRequest, CreateBatchRequest } from '../../../contract/schemas/batch';
import { MAX_BATCH_ITEMS } from '../../../contract/schemas/batch';
import { isFailure, isFinished, isGeneratable, type ProjectStatus } from '../../../contract/statuses';
import type { AppDeps } from '../../deps';
import type { Db } from '../../db/index';
import { setStatus, type StageName, type StatusChange } from '../projects/pipeline/stages';
import { requireFeature } from '../billing/entitlements';
import * as ledger from '../billing/ledger';
import { badRequest, conflict, DomainError, notFound, unprocessable } from '../../errors';
import { findMedia } from '../library/repository';
import * as projects from '../projects/service';
import * as projectsRepo from '../projects/repository';
import { setSegmentsStatus } from '../projects/transcript/repository';
import { isUuid, spaceAccess } from '../spaces/guard';
import type { UserRow } from '../../caller';
import * as webhooksRepo from '../webhooks/repository';
import * as repo from './repository';

const iso = (d: Date | string) => new Date(d).toISOString();
const message = (e: unknown) => (e instanceof Error ? e.message : String(e));

// ------------------------------------------------------------------ CSV

const COLUMNS: Record<string, keyof BatchItemRequest | 'source'> = {
  name: 'name', title: 'name',
  link: 'source', url: 'source', upload: 'source', upload_id: 'source', media_id: 'source', link_or_upload_id: 'source', video: 'source',
  source_language: 'src_lang', src_lang: 'src_lang', source_lang: 'src_lang',
  target_languages: 'dst_langs', dst_langs: 'dst_langs', target_language: 'dst_langs', dst_lang: 'dst_langs', languages: 'dst_langs',
  dictionary: 'glossary_id', glossary: 'glossary_id', glossary_id: 'glossary_id', dictionary_id: 'glossary_id',
  source_srt: 'src_srt_media_id', src_srt: 'src_srt_media_id', src_srt_media_id: 'src_srt_media_id',
  target_srt: 'dst_srt_media_id', dst_srt: 'dst_srt_media_id', dst_srt_media_id: 'dst_srt_media_id',
};

/**
 * The items of a batch CSV: a header row naming the columns (name, link or upload id, source language, target
 * languages separated by ";" "|" or spaces, dictionary id, source SRT upload id, target SRT upload id).
 */
export function parseBatchCsv(text: string): BatchItemRequest[] {
  const parsed = Papa.parse<Record<string, string>>(text.replace(/^\uFEFF/, ''), {
    header: true, skipEmptyLines: 'greedy', transformHeader: (h) => h.trim().toLowerCase().replace(/[\s-]+/g, '_'),
  });
  const fields = parsed.meta.fields ?? [];
  if (!fields.some((f) => COLUMNS[f] === 'source')) {
    throw unprocessable([{ loc: ['body', 'csv'], msg: 'The CSV needs a "link" (or "upload id") column', type: 'csv_columns' }]);
  }
  if (parsed.data.length > MAX_BATCH_ITEMS) throw unprocessable([{ loc: ['body', 'csv'], msg: `At most ${MAX_BATCH_ITEMS} videos in a batch`, type: 'too_long' }]);
  return parsed.data.map((row) => {
    const item: Record<string, unknown> = {};
    for (const [k, raw] of Object.entries(row)) {
      const col = COLUMNS[k];
      const val = (raw ?? '').trim();
      if (!col || !val) continue;
      if (col === 'source') item[isUuid(val) ? 'media_id' : 'link'] = val;
      else if (col === 'dst_langs') item.dst_langs = val.split(/[;|,\s]+/).map((l) => l.trim().toLowerCase()).filter(Boolean);
      else if (col === 'src_lang') item.src_lang = val.toLowerCase();
      else item[col] = val;
    }
    return item as BatchItemRequest;
  });
}

// ------------------------------------------------------------------ create

interface PlannedItem {
  name: string;
  request: Parameters<typeof projects.createTranscript>[3];
  dstLangs: string[];
}

/** The default name of an item: its upload's file name, the link, or "Video N". */
async function itemName(db: Db, it: BatchItemRequest, i: number): Promise<string> {
  if (it.name) return it.name;
  if (it.media_id) {
    const m = await findMedia(db, it.media_id);
    if (m?.filename) return m.filename.replace(/\.[^.]+$/, '').slice(0, 255) || `Video ${i + 1}`;
  }
  return (it.link ?? `Video ${i + 1}`).slice(0, 255);
}

export async function createBatch(deps: AppDeps, user: UserRow, spaceId: string | null, body: CreateBatchRequest): Promise<Batch> {
  const space = await spaceAccess(deps.db, user, spaceId);
  const raw = body.csv ? parseBatchCsv(body.csv) : (body.items ?? []);
  if (raw.length === 0) throw badRequest('Add at least one video to the batch');
  const planned: PlannedItem[] = [];
  const issues: { loc: (string | number)[]; msg: string; type: string }[] = [];
  for (const [i, it] of raw.entries()) {
    const src = it.src_lang ?? body.src_lang;
    const langs = it.dst_langs ?? body.dst_langs ?? [];
    const where = body.csv ? ['body', 'csv', i + 1] : ['body', 'items', i];
    if (!src) issues.push({ loc: where, msg: 'Choose the source language', type: 'missing' });
    if (langs.length === 0) issues.push({ loc: where, msg: 'Choose at least one target language', type: 'missing' });
    if (!!it.media_id === !!it.link) issues.push({ loc: where, msg: 'Give either an uploaded file or a video link', type: 'missing' });
    const name = await itemName(deps.db, it, i);
    planned.push({
      name,
      dstLangs: [...new Set(langs)],
      request: {
        name, src_lang: src ?? '', dst_langs: [...new Set(langs)], media_id: it.media_id ?? null, link: it.link ?? null,
        glossary_id: it.glossary_id ?? null, src_srt_media_id: it.src_srt_media_id ?? null, dst_srt_media_id: it.dst_srt_media_id ?? null,
      },
    });
  }
  if (issues.length > 0) throw unprocessable(issues);
  // The plan gates of the create path that the batch asks for (multilanguage is gated on the route itself).
  if (planned.some((p) => p.request.glossary_id)) await requireFeature(deps.db, { spaceId: space.id }, 'glossary');
  if (planned.some((p) => p.request.src_srt_media_id || p.request.dst_srt_media_id)) await requireFeature(deps.db, { spaceId: space.id }, 'srt_upload');
  // The whole batch's minutes before anything starts: each upload's length once per language (links are
  // measured when downloaded, and checked again when each dub starts).
  let needed = 0;
  for (const p of planned) {
    if (!p.request.media_id) continue;
    const m = await findMedia(deps.db, p.request.media_id);
    const seconds = Number((m?.probe as { durationSec?: unknown } | null)?.durationSec ?? 0);
    needed += minutesNeeded(Number.isFinite(seconds) ? seconds : 0) * p.dstLangs.length;
  }
  const available = (await ledger.balances(deps.db, space.id)).minutes.available;
  if (needed > available) {
    throw new DomainError('payment_required', `${ledger.notEnoughMinutesText(needed, available)} (for the whole batch: ${planned.length} ${planned.length === 1 ? 'video' : 'videos'})`);
  }
  const batch = await repo.insertBatch(deps.db, {
    spaceId: space.id, userId: user.id, name: body.name || `Batch of ${planned.length} ${planned.length === 1 ? 'video' : 'videos'}`,
    autoGenerate: body.generate === true, minutesNeeded: needed,
  });
  // One project per item by the multi-language create; an item refused there (bad link, unsupported pair...)
  // keeps its reason and the others go on.
  for (const [i, p] of planned.entries()) {
    const item = await repo.insertItem(deps.db, { batchId: batch.id, position: i, name: p.name, dstLangs: p.dstLangs, request: p.request });
    await createItemProject(deps, user, space.id, item.id, p.request);
  }
  await settle(deps.db, batch.id);
  return batchView(deps.db, (await repo.findBatch(deps.db, batch.id))!);
}

async function createItemProject(deps: AppDeps, user: UserRow, spaceId: string, itemId: string, request: PlannedItem['request']): Promise<void> {
  try {
    const project = await projects.createTranscript(deps, user, spaceId, request);
    await repo.updateItem(deps.db, itemId, { projectId: project.id, error: null });
  } catch (e) {
    if (!(e instanceof DomainError)) deps.logger.warn({ err: message(e), item: itemId }, 'batch item not created');
    await repo.updateItem(deps.db, itemId, { projectId: null, error: message(e) });
  }
}

// ------------------------------------------------------------------ read

export async function loadBatch(deps: AppDeps, user: UserRow, id: string): Promise<repo.BatchRow> {
  if (!isUuid(id)) throw notFound('Batch not found');
  const b = await repo.findBatch(deps.db, id);
  if (!b) throw notFound('Batch not found');
  await spaceAccess(deps.db, user, b.space_id);
  return b;
}

/** The item error of a language whose automatic dub could not start (continueBatch): "ES: Not enough minutes...". */
const langError = (itemError: string | null, lang: string) => (itemError?.startsWith(`${lang.toUpperCase()}: `) ? itemError : null);

function languageState(p: repo.LangProjectRow, autoGenerate: boolean, itemError: string | null = null): BatchLanguage['state'] {
  const s = p.status as ProjectStatus;
  if (isFinished(s)) return 'done';
  if (isFailure(s) || (s === 'voice_suggest_failed' && p.error_code === 'cancelled')) return 'failed';
  if (isGeneratable(s)) return !autoGenerate ? 'ready' : langError(itemError, p.dst_lang) ? 'failed' : 'running';
  return 'running';
}

interface View {
  items: BatchItem[];
  projects: repo.LangProjectRow[];
}

async function itemsView(db: Db, b: repo.BatchRow): Promise<View> {
  const items = await repo.itemsOf(db, b.id);
  const rows = await repo.projectsOfItems(db, items.flatMap((i) => (i.project_id ? [i.project_id] : [])));
  const out = items.map((i): BatchItem => {
    const group = rows.filter((r) => r.root === i.project_id);
    const root = group.find((r) => r.id === i.project_id);
    const languages = i.dst_langs.map((lang): BatchLanguage => {
      // the latest project of that language (a retried one replaces the failed one)
      const p = [...group].reverse().find((r) => r.dst_lang === lang);
      if (p) {
        const state = languageState(p, b.auto_generate, i.error);
        // a dub that could not start says so (recorded on the item by continueBatch)
        const error = state === 'failed' ? langError(i.error, lang) ?? p.error_message ?? 'Processing failed' : null;
        return { dst_lang: lang, project_id: p.id, status: p.status as ProjectStatus, progress: Number(p.progress), state, error };
      }
      const rootFailed = !i.project_id || (root && languageState(root, false) === 'failed');
      const error = !i.project_id ? i.error ?? 'Not created' : rootFailed ? root?.error_message ?? 'Processing failed' : null;
      return { dst_lang: lang, project_id: null, status: null, progress: 0, state: rootFailed || (b.status === 'cancelled' && i.project_id) ? 'failed' : 'pending', error: b.status === 'cancelled' && !error ? 'Cancelled' : error };
    });
    return { id: i.id, position: i.position, name: i.name, project_id: i.project_id, error: i.error, languages };
  });
  return { items: out, projects: rows };
}

function counts(items: BatchItem[]) {
  const all = items.flatMap((i) => i.languages);
  return {
    total: all.length,
    done: all.filter((l) => l.state === 'done' || l.state === 'ready').length,
    failed: all.filter((l) => l.state === 'failed').length,
    running: all.filter((l) => l.state === 'running' || l.state === 'pending').length,
  };
}

async function batchView(db: Db, b: repo.BatchRow): Promise<Batch> {
  const { items } = await itemsView(db, b);
  return {
    id: b.id, space_id: b.space_id, name: b.name, status: b.status, generate: b.auto_generate, minutes_needed: Number(b.minutes_needed),
    created_at: iso(b.created_at), completed_at: b.completed_at ? iso(b.completed_at) : null, counts: counts(items), items,
  };
}

export async function getBatch(deps: AppDeps, user: UserRow, id: string): Promise<Batch> {
  return batchView(deps.db, await loadBatch(deps, user, id));
}

export async function listBatches(deps: AppDeps, user: UserRow, spaceId: string | null) {
  const space = await spaceAccess(deps.db, user, spaceId);
  const rows = await repo.listBatches(deps.db, space.id);
  return {
    data: rows.map((b) => ({
      id: b.id, space_id: b.space_id, name: b.name, status: b.status, generate: b.auto_generate, items: Number(b.items),
      created_at: iso(b.created_at), completed_at: b.completed_at ? iso(b.completed_at) : null,
    })),
  };
}

// ------------------------------------------------------------------ cancel, retry

/** Cancels every project of the batch that still runs (each as the project's own Cancel does). */
export async function cancelBatch(deps: AppDeps, user: UserRow, id: string): Promise<Batch> {
  const b = await loadBatch(deps, user, id);
  // Marked first: the cancelled projects' failures must not complete it.
  if (!(await repo.finishBatch(deps.db, b.id, 'cancelled'))) throw conflict(`The batch is already ${b.status === 'running' ? 'finished' : b.status}`);
  const { projects: rows } = await itemsView(deps.db, b);
  // no more languages are made from the items' analyses
  for (const r of rows) if (r.pending_dst_langs.length > 0) await projectsRepo.setPendingLanguages(deps.db, r.id, []);
  for (const r of rows) {
    if (languageState(r, b.auto_generate) !== 'running') continue;
    try {
      await projects.cancelProject(deps, user, r.id);
    } catch (e) {
      if (!(e instanceof DomainError && e.code === 'conflict')) throw e;
    }
  }
  return batchView(deps.db, (await repo.findBatch(deps.db, b.id))!);
}

/**
 * Retry of an item's failures: an item never created, or whose analysis failed, is created again (a new
 * project by the same path); a language whose dub failed is generated again; a cancelled language restarted.
 */
export async function retryItem(deps: AppDeps, user: UserRow, id: string, itemId: string): Promise<Batch> {
  const b = await loadBatch(deps, user, id);
  const item = isUuid(itemId) ? (await repo.itemsOf(deps.db, b.id)).find((i) => i.id === itemId) : undefined;
  if (!item) throw notFound('Batch item not found');
  const view = (await itemsView(deps.db, b)).items.find((i) => i.id === item.id)!;
  const failed = view.languages.filter((l) => l.state === 'failed');
  if (failed.length === 0) throw conflict('Nothing failed in this video');
  if (b.status !== 'running') await repo.reopenBatch(deps.db, b.id);
  await repo.setItemError(deps.db, item.id, null);
  const root = item.project_id ? await projectsRepo.findProject(deps.db, item.project_id) : null;
  const rootFailedEarly = !root || (isFailure(root.status) && !isGeneratable(root.status));
  if (rootFailedEarly && !(root?.error_code === 'cancelled')) {
    await createItemProject(deps, user, b.space_id, item.id, item.request as PlannedItem['request']);
  } else {
    for (const l of failed) {
      if (!l.project_id) continue;
      const p = (await projectsRepo.findProject(deps.db, l.project_id))!;
      try {
        if (isGeneratable(p.status)) await projects.generate(deps, user, p.id);
        else await projects.restartProject(deps, user, p.id);
      } catch (e) {
        if (!(e instanceof DomainError) || e.code === 'payment_required') throw e;
        await repo.setItemError(deps.db, item.id, message(e));
      }
    }
  }
  await settle(deps.db, b.id);
  return batchView(deps.db, (await repo.findBatch(deps.db, b.id))!);
}

// ------------------------------------------------------------------ the ZIP of the dubbed videos

const fileSafe = (s: string) => s.replace(/[^\p{L}\p{N} ._-]+/gu, '_').replace(/\s+/g, ' ').trim().slice(0, 80) || 'video';

/** The finished dubbed videos of the batch: the ZIP entry name and the storage key of each. */
export async function zipEntries(deps: AppDeps, user: UserRow, id: string): Promise<{ batch: repo.BatchRow; entries: { name: string; key: string }[] }> {
  const b = await loadBatch(deps, user, id);
  const { items, projects: rows } = await itemsView(deps.db, b);
  const entries: { name: string; key: string }[] = [];
  for (const i of items) {
    for (const l of i.languages) {
      const key = l.state === 'done' ? rows.find((r) => r.id === l.project_id)?.translated_video : null;
      if (key) entries.push({ name: `${String(i.position + 1).padStart(2, '0')} ${fileSafe(i.name)}/${fileSafe(i.name)}_${l.dst_lang}.mp4`, key });
    }
  }
  if (entries.length === 0) throw conflict('No dubbed video of this batch is ready yet');
  return { batch: b, entries };
}

export const zipFileName = (b: repo.BatchRow) => `${fileSafe(b.name)}.zip`;

// ------------------------------------------------------------------ pipeline and status hooks

/**
 * Registered as the pipeline's continueAfter (after the demo's): a language of a batch asked with "generate when
 * ready" goes straight on to its dub once translated, debited as Generate debits (in the transaction that records
 * the translation done). Without the minutes it stays translated and the item says why.
 */
export async function continueBatch(db: Db, projectId: string, stage: StageName): Promise<StageName | null> {
  if (stage !== 'translation') return null;
  const b = await repo.runningBatchOfProject(db, projectId);
  if (!b || !b.auto_generate) return null;
  const p = await projectsRepo.lockProject(db, projectId);
  if (!p || p.status !== 'translation_done' || p.dubbed_generation !== null) return null;
  const generation = Number(p.generation) + 1;
  try {
    await ledger.debit(db, {
      spaceId: p.space_id, minutes: minutesNeeded(p.free_dubbing ? 0 : (p.duration ?? 0)), ref: ledger.generationRef(p.id, generation),
      projectId: p.id, userId: b.user_id, note: 'dub (batch)',
    });
  } catch (e) {
    if (!(e instanceof DomainError)) throw e;
    await repo.setItemError(db, b.item_id, `${p.dst_lang.toUpperCase()}: ${message(e)}`);
    return null;
  }
  await setSegmentsStatus(db, p.id, ['updated', 'error'], 'processing');
  await projectsRepo.bumpGeneration(db, p.id);
  await setStatus(db, p.id, 'voiceover_started');
  return 'voiceover';
}

/** Marks the batch completed once every language is settled, and writes its batch.completed webhook event. */
async function settle(db: Db, batchId: string): Promise<void> {
  const b = await repo.findBatch(db, batchId);
  if (!b || b.status !== 'running') return;
  const { items } = await itemsView(db, b);
  const c = counts(items);
  if (c.running > 0) return;
  if (!(await repo.finishBatch(db, b.id, 'completed'))) return;
  const endpoints = await webhooksRepo.subscribers(db, b.space_id);
  const payload = {
    type: 'batch.completed',
    timestamp: new Date().toISOString(),
    data: {
      batch_id: b.id, space_id: b.space_id, name: b.name, videos: items.length, languages: c.total, done: c.done, failed: c.failed,
      items: items.map((i) => ({ name: i.name, languages: i.languages.map((l) => ({ dst_lang: l.dst_lang, project_id: l.project_id, state: l.state, error: l.error })) })),
    },
  };
  for (const e of endpoints) if (e.events.includes('batch.completed')) await webhooksRepo.insertDelivery(db, e.id, 'batch.completed', payload);
}

/** Registered with the pipeline's onStatusChange: a change of a batch's project may complete the batch. */
export async function batchesOnStatus(db: Db, ch: StatusChange): Promise<void> {
  if (ch.status === ch.previous) return;
  const b = await repo.runningBatchOfProject(db, ch.projectId);
  if (b) await settle(db, b.id);
}
