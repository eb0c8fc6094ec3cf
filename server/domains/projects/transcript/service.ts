// Transcript rules: segment edits in batches of at most 50; a segment ends after it starts; segments of
// the same speaker never overlap (spec section 5); edits move the project to transcript_edited.
import type { Segment } from '../../../../contract/schemas/project';
import { endsAfterStart, findOverlap, type TimedSegment } from '../../../../contract/segments';
import { isEditable, type ProjectStatus } from '../../../../contract/statuses';
import type { Db } from '../../../db/index';
import { keptRead } from '../../../cache/kept-reads';
import { badRequest, conflict, notFound } from '../../../errors';
import type { AppDeps } from '../../../deps';
import type { UserRow } from '../../../caller';
import { setStatus } from '../pipeline/stages';
import { ensureSpeaker, findGlossary, findProjectWithTranscriptVersion, lockProject, type ProjectRow } from '../repository';
import { checkSpaceFacts, isUuid } from '../../spaces/guard';
import { loadProject } from '../service';
import { segmentJson } from '../shape';
import { checkSegmentTerms } from '../../glossaries/check';
import * as repo from './repository';
import { etagMatches, transcriptCache, transcriptEtag } from './cache';
import type { KeptAnswer } from '../../../cache/answers';

/** Rejects end <= start. */
function checkTimes(s: { id?: string; start: number; end: number }): void {
  if (!endsAfterStart(s)) {
    throw badRequest(`Segment ${s.id ? `${s.id} ` : ''}must end after it starts (start ${s.start}, end ${s.end})`);
  }
}

function overlapText(a: TimedSegment, b: TimedSegment): string {
  const f = (x: number) => x.toFixed(3).replace(/\.?0+$/, '');
  return `Segments of the same speaker cannot overlap: ${a.id} (${f(a.start)}-${f(a.end)}) and ${b.id} (${f(b.start)}-${f(b.end)}), speaker ${a.speaker || '(none)'}`;
}

export async function editable(db: Db, projectId: string): Promise<ProjectRow> {
  const p = (await lockProject(db, projectId))!;
  if (!isEditable(p.status)) throw conflict('The transcript cannot be edited while the project is being processed');
  return p;
}

export async function markEdited(db: Db, p: ProjectRow): Promise<void> {
  if (p.status !== 'transcript_edited' && p.status !== 'voice_update_started') {
    await setStatus(db, p.id, 'transcript_edited' as ProjectStatus);
  }
}

/** Segments as JSON with their dictionary check (computed on the current texts, so an edit updates it). */
export async function shapeSegments(deps: AppDeps, project: ProjectRow, rows: repo.SegmentRow[]): Promise<Segment[]> {
  const glossary = project.glossary_id ? await findGlossary(deps.db, project.glossary_id) : null;
  return rows.map((s) => {
    const json = segmentJson(s, project.src_lang, project.dst_lang);
    if (!glossary) return json;
    const c = checkSegmentTerms(s.src_text, s.dst_text, glossary.terms ?? []);
    // terms the translation engine recorded as not applied (term_hits) that the text still lacks
    const unapplied = c.missing.filter((m) => (s.term_hits ?? []).some((h) => !h.applied && h.source === m.source && h.target === m.target));
    return { ...json, terms: { expected: c.expected, missing: c.missing, ...(unapplied.length ? { unapplied } : {}) } };
  });
}

const toTimed = (s: repo.TimedRow): TimedSegment => ({ id: s.id, start: s.start_sec, end: s.end_sec, speaker: s.speaker });

export async function getTranscript(deps: AppDeps, user: UserRow, projectId: string, ids: string[] | null): Promise<{ segments: Segment[] }> {
  const { project } = await loadProject(deps, user, projectId);
  const rows = await repo.segmentsOf(deps.db, project.id, ids);
  return { segments: await shapeSegments(deps, project, rows) };
}

/**
 * The whole transcript as its kept answer and version (ETag), for the editor's read: answered from the process's
 * cache while the transcript, languages and dictionary are unchanged (server/domains/projects/transcript/cache.ts);
 * `notModified` when the client's If-None-Match already names this version. Access is checked on every call.
 */
export async function getTranscriptJson(
  deps: AppDeps,
  user: UserRow,
  projectId: string,
  ifNoneMatch: string | null,
): Promise<{ etag: string; notModified: true } | { etag: string; notModified: false; answer: KeptAnswer }> {
  // The project, its transcript's version and the caller's access in one query: the read most often repeated.
  // Kept between requests while nothing changes (server/cache/kept-reads.ts): most reads then ask no query at all.
  const found = isUuid(projectId)
    ? await keptRead(deps.db, 'transcript-version', `${projectId}|${user.id}`, () => findProjectWithTranscriptVersion(deps.db, projectId, user.id))
    : null;
  if (!found) throw notFound('Project not found');
  const { project } = found;
  checkSpaceFacts(user, found.space);
  const etag = transcriptEtag(project, found.rev, found.glossary);
  if (etagMatches(ifNoneMatch, etag)) return { etag, notModified: true };
  const answer = await transcriptCache(deps.db).answer(project.id, etag, async () =>
    JSON.stringify({ segments: await shapeSegments(deps, project, await repo.segmentsOf(deps.db, project.id)) }),
  );
  return { etag, answer, notModified: false };
}

export interface NewSegmentBody {
  start: number;
  end: number;
  speaker: string;
  src?: { text: string };
  dst?: { text: string };
}

export async function addSegments(deps: AppDeps, user: UserRow, projectId: string, segs: NewSegmentBody[]): Promise<{ segments: Segment[] }> {
  const { project } = await loadProject(deps, user, projectId);
  for (const s of segs) checkTimes(s);
  const rows = await deps.db.tx(async (t) => {
    const p = await editable(t, project.id);
    const fresh = segs.map((s, i) => ({ id: `new-${i + 1}`, start: s.start, end: s.end, speaker: s.speaker }));
    const existing = (await repo.segmentsNear(t, p.id, fresh)).map(toTimed);
    const hit = findOverlap([...existing, ...fresh], new Set(fresh.map((f) => f.id)));
    if (hit) throw badRequest(overlapText(hit[0], hit[1]));
    for (const sp of new Set(segs.map((s) => s.speaker).filter((x) => x !== ''))) await ensureSpeaker(t, p.id, sp);
    const inserted = await repo.insertSegments(
      t,
      p.id,
      segs.map((s) => ({ start: s.start, end: s.end, speaker: s.speaker, src: s.src?.text ?? '', dst: s.dst?.text ?? '', status: 'updated' })),
    );
    await markEdited(t, p);
    return inserted;
  });
  return { segments: await shapeSegments(deps, project, rows) };
}

export interface SegmentPatchBody {
  id: string;
  start?: number;
  end?: number;
  speaker?: string;
  src?: { text: string };
  dst?: { text: string };
}

export async function patchSegments(deps: AppDeps, user: UserRow, projectId: string, patches: SegmentPatchBody[]): Promise<{ segments: Segment[] }> {
  const { project } = await loadProject(deps, user, projectId);
  const ids = patches.map((p) => p.id);
  if (new Set(ids).size !== ids.length) throw badRequest('A segment appears twice in one batch');
  const rows = await deps.db.tx(async (t) => {
    const p = await editable(t, project.id);
    // the patched segments, and the others only where the patched ones will be (what they can collide with)
    const byId = new Map((await repo.segmentsOf(t, p.id, ids)).map((s) => [s.id, s]));
    const next = new Map<string, TimedSegment>();
    for (const patch of patches) {
      const cur = byId.get(patch.id);
      if (!cur) throw notFound(`Segment not found: ${patch.id}`);
      const n = { id: cur.id, start: patch.start ?? cur.start_sec, end: patch.end ?? cur.end_sec, speaker: patch.speaker ?? cur.speaker };
      checkTimes(n);
      next.set(cur.id, n);
    }
    for (const s of await repo.segmentsNear(t, p.id, [...next.values()])) if (!next.has(s.id)) next.set(s.id, toTimed(s));
    const hit = findOverlap([...next.values()], new Set(ids));
    if (hit) throw badRequest(overlapText(hit[0], hit[1]));
    const out: repo.SegmentRow[] = [];
    let anyVoiced = false;
    for (const patch of patches) {
      const cur = byId.get(patch.id)!;
      const change: repo.SegmentPatch = {};
      if (patch.start !== undefined && patch.start !== cur.start_sec) change.start_sec = patch.start;
      if (patch.end !== undefined && patch.end !== cur.end_sec) change.end_sec = patch.end;
      if (patch.speaker !== undefined && patch.speaker !== cur.speaker) change.speaker = patch.speaker;
      if (patch.src !== undefined && patch.src.text !== cur.src_text) change.src_text = patch.src.text;
      if (patch.dst !== undefined && patch.dst.text !== cur.dst_text) change.dst_text = patch.dst.text;
      const voiced = change.start_sec !== undefined || change.end_sec !== undefined || change.speaker !== undefined || change.dst_text !== undefined;
      if (voiced) {
        change.status = 'updated';
        anyVoiced = true;
      }
      if (change.speaker) await ensureSpeaker(t, p.id, change.speaker);
      out.push((await repo.updateSegment(t, p.id, cur.id, change))!);
    }
    if (anyVoiced || patches.some((x) => x.src !== undefined)) await markEdited(t, p);
    return out;
  });
  return { segments: await shapeSegments(deps, project, rows) };
}

export async function deleteSegment(deps: AppDeps, user: UserRow, projectId: string, segmentId: string): Promise<{ id: string }> {
  const { project } = await loadProject(deps, user, projectId);
  await deps.db.tx(async (t) => {
    const p = await editable(t, project.id);
    const n = await repo.deleteSegments(t, p.id, [segmentId]);
    if (n === 0) throw notFound(`Segment not found: ${segmentId}`);
    await markEdited(t, p);
  });
  return { id: segmentId };
}

export async function mergeSegments(deps: AppDeps, user: UserRow, projectId: string, ids: string[]): Promise<{ segments: Segment[] }> {
  const { project } = await loadProject(deps, user, projectId);
  if (new Set(ids).size !== ids.length) throw badRequest('A segment appears twice in the merge');
  const merged = await deps.db.tx(async (t) => {
    const p = await editable(t, project.id);
    const byId = new Map((await repo.segmentsOf(t, p.id, ids)).map((s) => [s.id, s]));
    const picked = ids.map((id) => {
      const s = byId.get(id);
      if (!s) throw notFound(`Segment not found: ${id}`);
      return s;
    });
    picked.sort((a, b) => a.start_sec - b.start_sec || a.end_sec - b.end_sec);
    const first = picked[0]!;
    const start = Math.min(...picked.map((s) => s.start_sec));
    const end = Math.max(...picked.map((s) => s.end_sec));
    const join = (xs: string[]) => xs.map((x) => x.trim()).filter(Boolean).join(' ');
    const result: TimedSegment = { id: first.id, start, end, speaker: first.speaker };
    const others = (await repo.segmentsNear(t, p.id, [result])).filter((s) => !ids.includes(s.id)).map(toTimed);
    const hit = findOverlap([...others, result], new Set([first.id]));
    if (hit) throw badRequest(overlapText(hit[0], hit[1]));
    await repo.deleteSegments(t, p.id, picked.slice(1).map((s) => s.id));
    const row = await repo.updateSegment(t, p.id, first.id, {
      start_sec: start,
      end_sec: end,
      src_text: join(picked.map((s) => s.src_text)),
      dst_text: join(picked.map((s) => s.dst_text)),
      status: 'updated',
    });
    await markEdited(t, p);
    return row!;
  });
  return { segments: await shapeSegments(deps, project, [merged]) };
}
