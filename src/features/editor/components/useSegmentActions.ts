// What the editor does with segments: selecting one (from the list, a panel, the timeline) and moving the player
// there, the playing segment, edits, and the structural changes saved at once (split, merge, delete, add).
import { useCallback, useRef, useState } from 'react';
import type { RefObject } from 'react';
import type { KeyedMutator } from 'swr';
import type { Project, Segment } from '../../../../contract/schemas/project';
import { addSegments, deleteSegment, mergeSegments, patchSegments } from '../api';
import { newSegmentSlot, segmentAt, splitSegment, toServer, type EditorSegment } from '../lib/segments';
import type { TranscriptStore } from '../lib/store';
import type { TimelineHandle } from '../timeline/Timeline';
import type { PlayerHandle } from './Player';
import type { SegmentListHandle } from './SegmentList';

export function useSegmentActions(o: {
  project: Project;
  mutateProject: KeyedMutator<Project>;
  store: TranscriptStore;
  segments: EditorSegment[];
  list: RefObject<SegmentListHandle>;
  showSaveError: () => void;
  setNotice: (notice: string | null) => void;
}) {
  const { project, mutateProject, store, list, showSaveError, setNotice } = o;
  const pid = project.id;
  const [selectedId, setSelectedId] = useState<string | null>(null);
  const [activeId, setActiveId] = useState<string | null>(null);
  const player = useRef<PlayerHandle>(null);
  const timeline = useRef<TimelineHandle>(null);
  const segmentsRef = useRef(o.segments);
  segmentsRef.current = o.segments;

  // A timing fix saved a segment (shorten, borrow the pause, keep the original): take the server's copy.
  const onServerSegment = useCallback(
    (s: Segment) => {
      store.accept(s);
      void mutateProject();
    },
    [store, mutateProject],
  );

  const onSelect = useCallback((id: string) => {
    setSelectedId(id);
    const s = store.get(id);
    if (s && !player.current?.isPlaying()) player.current?.seek(s.start);
  }, [store]);
  /** A segment opened from a panel (quality report, timeline): selected, scrolled to, its translation focused. */
  const onOpenSegment = useCallback((id: string) => {
    setSelectedId(id);
    const s = store.get(id);
    if (s && !player.current?.isPlaying()) player.current?.seek(s.start);
    list.current?.focus(id);
  }, [store, list]);
  const onChange = useCallback((id: string, patch: Parameters<TranscriptStore['update']>[1]) => store.update(id, patch), [store]);
  const onPlay = useCallback((id: string) => {
    const s = store.get(id);
    if (s) {
      setSelectedId(id);
      player.current?.playRange(s.start, s.end);
    }
  }, [store]);
  const onTime = useCallback((t: number, playing: boolean) => {
    timeline.current?.setPlayhead(t, playing);
    const segs = segmentsRef.current;
    const i = segmentAt(segs, t);
    const id = i >= 0 ? segs[i].id : null;
    setActiveId((cur) => {
      if (id && id !== cur && playing) list.current?.scrollTo(id, 'auto');
      return id;
    });
  }, [list]);

  /** A block picked on the timeline: selected, the player there, the list scrolled to it (focus stays on the timeline). */
  const onTimelineSelect = useCallback((id: string) => {
    setSelectedId(id);
    const s = store.get(id);
    if (s && !player.current?.isPlaying()) player.current?.seek(s.start);
    list.current?.scrollTo(id, 'auto');
  }, [store, list]);
  const onTimelineSeek = useCallback((t: number) => player.current?.seek(t), []);
  const onTimelineChange = useCallback((id: string, times: { start: number; end: number }) => store.update(id, times), [store]);

  const structural = useCallback(async (ids: string[], fn: () => Promise<void>) => {
    try {
      await fn();
      void mutateProject();
    } catch {
      for (const id of ids) store.restore(id);
      showSaveError();
    }
  }, [store, mutateProject, showSaveError]);

  const onDelete = useCallback((id: string) => {
    void structural([id], async () => {
      await deleteSegment(pid, id);
      store.remove(id);
      setSelectedId((cur) => (cur === id ? null : cur));
    });
  }, [pid, store, structural]);

  const onSplit = useCallback((id: string, caret: { field: 'src' | 'dst'; at: number } | null) => {
    const s = store.get(id);
    if (!s) return;
    let parts: ReturnType<typeof splitSegment>;
    try {
      parts = splitSegment(s, caret ? (caret.field === 'src' ? { srcAt: caret.at } : { dstAt: caret.at }) : {});
    } catch {
      return;
    }
    void structural([id], async () => {
      const [first] = await patchSegments(pid, [toServer(parts.first)]);
      store.accept(first);
      const [second] = await addSegments(pid, [parts.second]);
      store.insert(second);
      setSelectedId(second.id);
    });
  }, [pid, store, structural]);

  const onMergeNext = useCallback((id: string) => {
    const segs = segmentsRef.current;
    const i = segs.findIndex((s) => s.id === id);
    const a = segs[i];
    const b = segs[i + 1];
    if (!a || !b) return;
    void structural([a.id, b.id], async () => {
      const dirty = [a, b].filter((s) => store.getSnapshot().dirty.has(s.id));
      if (dirty.length > 0) {
        const r = await store.flush((chunk) => patchSegments(pid, chunk));
        if (r.failed.length > 0) throw new Error('save failed');
      }
      const merged = await mergeSegments(pid, [a.id, b.id]);
      const kept = new Set(merged.map((s) => s.id));
      for (const s of merged) store.accept(s);
      for (const s of [a, b]) if (!kept.has(s.id)) store.remove(s.id);
      setSelectedId(merged[0]?.id ?? null);
    });
  }, [pid, store, structural]);

  const onAdd = useCallback(() => {
    const segs = segmentsRef.current;
    const idx = selectedId ? segs.findIndex((s) => s.id === selectedId) : segs.length - 1;
    const slot = newSegmentSlot(segs, idx, project.duration);
    if (!slot) {
      setNotice('There is no free time after this segment: shorten it or select another one first.');
      return;
    }
    const speaker = segs[idx]?.speaker ?? project.speakers[0]?.id ?? 'SPEAKER_00';
    void (async () => {
      try {
        const [created] = await addSegments(pid, [
          { ...slot, speaker, src: { lang: project.src_lang, text: '' }, dst: { lang: project.dst_lang, text: '' } },
        ]);
        store.insert(created);
        setSelectedId(created.id);
        requestAnimationFrame(() => list.current?.focus(created.id));
        void mutateProject();
      } catch {
        showSaveError();
      }
    })();
  }, [selectedId, project, pid, store, mutateProject, showSaveError, list, setNotice]);

  return {
    selectedId, activeId, player, timeline,
    onSelect, onOpenSegment, onChange, onPlay, onTime, onTimelineSelect, onTimelineSeek, onTimelineChange,
    onDelete, onSplit, onMergeNext, onAdd, onServerSegment,
  };
}
