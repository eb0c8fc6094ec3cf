// The editor's transcript state outside React (read through useSyncExternalStore): local edits, the
// last server copy of every segment, and the batched save with failure recovery (spec sections 4, 8, 9):
// a failed chunk flags its segments isSavingError, drops their local pending changes and restores the
// server copy.
import type { Segment } from '../../../../contract/schemas/project';
import { saveInBatches } from './batching';
import { findOverlaps, type OverlapEdge } from '../../../../contract/segments';
import { applyPatch, sameContent, sortByTime, toServer, type EditorSegment, type SegmentPatch } from './segments';

export interface TranscriptSnapshot {
  /** Sorted by start time, with overlappedTimestamps computed. */
  segments: EditorSegment[];
  /** Ids with local changes not yet saved. */
  dirty: ReadonlySet<string>;
  saving: boolean;
}

export type SendChunk = (segments: Segment[]) => Promise<Segment[]>;

export interface FlushResult {
  saved: number;
  failed: string[];
  error: unknown;
}

function sameEdges(a: readonly OverlapEdge[] | undefined, b: readonly OverlapEdge[]): boolean {
  return !!a && a.length === b.length && a.every((e, i) => e === b[i]);
}

export class TranscriptStore {
  private server = new Map<string, Segment>();
  private local = new Map<string, EditorSegment>();
  private versions = new Map<string, number>();
  private dirtyIds = new Set<string>();
  private savingCount = 0;
  private listeners = new Set<() => void>();
  private snap: TranscriptSnapshot;
  private baseOf = new WeakMap<EditorSegment, EditorSegment>();

  constructor(initial: readonly Segment[] = []) {
    for (const s of initial) {
      this.server.set(s.id, s);
      this.local.set(s.id, s);
    }
    this.snap = this.build();
  }

  subscribe = (fn: () => void): (() => void) => {
    this.listeners.add(fn);
    return () => this.listeners.delete(fn);
  };
  getSnapshot = (): TranscriptSnapshot => this.snap;

  private build(): TranscriptSnapshot {
    const prevById = new Map((this.snap?.segments ?? []).map((s) => [s.id, s]));
    const sorted = sortByTime([...this.local.values()]);
    const overlaps = findOverlaps(sorted);
    // Keep object identity for unchanged rows so memoised rows do not re-render.
    const segments = sorted.map((s): EditorSegment => {
      const edges = overlaps.get(s.id);
      if (!edges) return s;
      const p = prevById.get(s.id);
      if (p && this.baseOf.get(p) === s && sameEdges(p.overlappedTimestamps, edges)) return p;
      const d = { ...s, overlappedTimestamps: edges };
      this.baseOf.set(d, s);
      return d;
    });
    return { segments, dirty: new Set(this.dirtyIds), saving: this.savingCount > 0 };
  }
  private emit(): void {
    this.snap = this.build();
    for (const l of this.listeners) l();
  }

  get(id: string): EditorSegment | undefined {
    return this.local.get(id);
  }
  serverCopy(id: string): Segment | undefined {
    return this.server.get(id);
  }
  hasUnsaved(): boolean {
    return this.dirtyIds.size > 0;
  }

  /** A local edit. Editing clears a previous saving-error flag. No-op edits do not mark the segment dirty. */
  update(id: string, patch: SegmentPatch): void {
    const cur = this.local.get(id);
    if (!cur) throw new Error(`Unknown segment ${id}`);
    const { isSavingError: _e, ...rest } = applyPatch(cur, patch);
    const next: EditorSegment = rest;
    this.local.set(id, next);
    this.versions.set(id, (this.versions.get(id) ?? 0) + 1);
    const server = this.server.get(id);
    if (server && sameContent(server, next)) this.dirtyIds.delete(id);
    else this.dirtyIds.add(id);
    this.emit();
  }

  /** Drops every local change (used by "Discard changes"). */
  discard(): void {
    for (const id of this.dirtyIds) {
      const s = this.server.get(id);
      if (s) this.local.set(id, s);
      this.versions.set(id, (this.versions.get(id) ?? 0) + 1);
    }
    this.dirtyIds.clear();
    this.emit();
  }

  /**
   * Saves every dirty segment in chunks (parallel). Saved segments take the server's copy unless they were
   * edited again meanwhile; failed ones get the server copy back with isSavingError.
   */
  async flush(send: SendChunk, size?: number): Promise<FlushResult> {
    const ids = [...this.dirtyIds];
    if (ids.length === 0) return { saved: 0, failed: [], error: null };
    const sentVersion = new Map(ids.map((id) => [id, this.versions.get(id) ?? 0]));
    const items = ids.map((id) => toServer(this.local.get(id)!));
    for (const id of ids) this.dirtyIds.delete(id);
    this.savingCount++;
    this.emit();
    const result = await saveInBatches(items, send, size);
    this.savingCount--;
    for (const s of result.saved) {
      this.server.set(s.id, s);
      if ((this.versions.get(s.id) ?? 0) === sentVersion.get(s.id)) {
        this.local.set(s.id, s);
      } else if (!this.dirtyIds.has(s.id)) {
        this.dirtyIds.add(s.id);
      }
    }
    const failed: string[] = [];
    for (const s of result.failed) {
      failed.push(s.id);
      const server = this.server.get(s.id);
      if (server) this.local.set(s.id, { ...server, isSavingError: true });
      this.dirtyIds.delete(s.id);
      this.versions.set(s.id, (this.versions.get(s.id) ?? 0) + 1);
    }
    this.emit();
    return { saved: result.saved.length, failed, error: result.error };
  }

  /**
   * Server copies from a (re)load of the transcript. Segments without local changes take the server copy;
   * a processing segment that comes back non-processing replaces the local one (flagged on error);
   * segments gone from the server disappear unless `partial`.
   */
  receive(segments: readonly Segment[], o: { partial?: boolean } = {}): void {
    const seen = new Set<string>();
    for (const s of segments) {
      seen.add(s.id);
      const local = this.local.get(s.id);
      this.server.set(s.id, s);
      const wasProcessing = local?.status === 'processing' && s.status !== 'processing';
      if (!local || !this.dirtyIds.has(s.id) || wasProcessing) {
        this.local.set(s.id, s.status === 'error' && wasProcessing ? { ...s, isSavingError: true } : s);
        if (wasProcessing) this.dirtyIds.delete(s.id);
      }
    }
    if (!o.partial) {
      for (const id of [...this.local.keys()]) {
        if (!seen.has(id)) this.forget(id);
      }
    }
    this.emit();
  }

  /** Takes the server's copy as it is, dropping local changes of that segment (split, merge). */
  accept(s: Segment): void {
    this.server.set(s.id, s);
    this.local.set(s.id, s);
    this.dirtyIds.delete(s.id);
    this.versions.set(s.id, (this.versions.get(s.id) ?? 0) + 1);
    this.emit();
  }

  /** A segment the server created (add, split). */
  insert(s: Segment): void {
    this.server.set(s.id, s);
    this.local.set(s.id, s);
    this.emit();
  }

  /** Removes a segment locally (after the server deleted or merged it away). */
  remove(id: string): void {
    this.forget(id);
    this.emit();
  }

  /** Flags a segment with a saving error and restores its server copy (structural edits that failed). */
  restore(id: string): void {
    const s = this.server.get(id);
    if (!s) return;
    this.local.set(id, { ...s, isSavingError: true });
    this.dirtyIds.delete(id);
    this.versions.set(id, (this.versions.get(id) ?? 0) + 1);
    this.emit();
  }

  private forget(id: string): void {
    this.local.delete(id);
    this.server.delete(id);
    this.dirtyIds.delete(id);
    this.versions.delete(id);
  }
}
