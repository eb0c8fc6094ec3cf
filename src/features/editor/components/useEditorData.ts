// The editor's transcript data: the local store of segments (loaded from the server, reloaded when the project's
// status changes), which fields are invalid, saving (autosave after typing stops, Ctrl/Cmd+S, Save now, before
// leaving), the save-failure and notice banners' state, and the guard that asks before leaving unsaved changes.
import { useCallback, useEffect, useMemo, useRef, useState, useSyncExternalStore } from 'react';
import type { KeyedMutator } from 'swr';
import { SEGMENT_SAVE_ERROR_MS } from '../../../../contract/constants';
import type { Project } from '../../../../contract/schemas/project';
import { patchSegments, useTranscript } from '../api';
import { TranscriptStore } from '../lib/store';
import { useLeaveGuard } from '../useLeaveGuard';
import type { SegmentListHandle } from './SegmentList';

export const TRANSCRIPT_POLL_MS = 2000;
/** Edits are saved this long after the last keystroke (tests that drive saving by hand lengthen it). */
export const autosaveTiming = { delayMs: 1200 };

export function useEditorData(project: Project, mutateProject: KeyedMutator<Project>) {
  const pid = project.id;
  const [store] = useState(() => new TranscriptStore());
  const snap = useSyncExternalStore(store.subscribe, store.getSnapshot);
  const segments = snap.segments;
  const anyProcessing = segments.some((s) => s.status === 'processing');
  const { data: transcript, error: transcriptError, mutate: reloadTranscript } = useTranscript(pid, anyProcessing ? TRANSCRIPT_POLL_MS : 0);
  /** The segment list (focus a field, scroll to a segment). */
  const list = useRef<SegmentListHandle>(null);
  const [invalid, setInvalid] = useState<ReadonlySet<string>>(new Set());
  const [saveErrorAt, setSaveErrorAt] = useState<number | null>(null);
  const [loaded, setLoaded] = useState(false);
  const [notice, setNotice] = useState<string | null>(null);

  useEffect(() => {
    if (!transcript) return;
    store.receive(transcript.segments);
    setLoaded(true);
  }, [transcript, store]);

  // A new status (generated, voices updated ...) can change segment statuses: reload them.
  const lastStatus = useRef(project.status);
  useEffect(() => {
    if (lastStatus.current === project.status) return;
    lastStatus.current = project.status;
    void reloadTranscript();
  }, [project.status, reloadTranscript]);

  // The failure text stays for SEGMENT_SAVE_ERROR_MS.
  useEffect(() => {
    if (saveErrorAt === null) return;
    const t = setTimeout(() => setSaveErrorAt(null), SEGMENT_SAVE_ERROR_MS);
    return () => clearTimeout(t);
  }, [saveErrorAt]);
  const showSaveError = useCallback(() => setSaveErrorAt(Date.now()), []);
  const hideSaveError = useCallback(() => setSaveErrorAt(null), []);

  const unsaved = snap.dirty.size > 0 || invalid.size > 0;

  const save = useCallback(async (o: { auto?: boolean } = {}): Promise<boolean> => {
    if (invalid.size > 0) {
      // An autosave waits for the field to be fixed; an explicit save shows where.
      if (!o.auto) list.current?.focus([...invalid][0]);
      return false;
    }
    if (!store.hasUnsaved()) return true;
    // Segments of the same speaker may not overlap (the server refuses them): fix first.
    const snapNow = store.getSnapshot();
    const overlapping = snapNow.segments.find((s) => snapNow.dirty.has(s.id) && s.overlappedTimestamps?.length);
    if (overlapping) {
      setNotice('Segments of the same speaker overlap: fix the start and end times before saving.');
      if (!o.auto) list.current?.focus(overlapping.id);
      return false;
    }
    if (!o.auto) setNotice(null);
    const r = await store.flush((chunk) => patchSegments(pid, chunk));
    void mutateProject();
    if (r.failed.length > 0) {
      showSaveError();
      return false;
    }
    return true;
  }, [invalid, store, pid, mutateProject, showSaveError]);

  const guard = useLeaveGuard(
    unsaved,
    () => {
      store.discard();
      setInvalid(new Set());
    },
    () => save(),
  );

  // Autosave: autosaveTiming.delayMs after the last edit (each edit restarts the wait), segment by segment (only the
  // changed ones are sent). A failed save shows the spec's message and restores the server copy.
  const dirtyKey = useMemo(() => [...snap.dirty].sort().join(','), [snap.dirty]);
  useEffect(() => {
    if (!dirtyKey || invalid.size > 0 || snap.saving) return;
    const t = setTimeout(() => void save({ auto: true }), autosaveTiming.delayMs);
    return () => clearTimeout(t);
  }, [dirtyKey, segments, invalid, snap.saving, save]);

  // Ctrl/Cmd+S saves.
  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      if ((e.ctrlKey || e.metaKey) && !e.altKey && e.key.toLowerCase() === 's') {
        e.preventDefault();
        void save();
      }
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, [save]);

  /** A field of a segment became invalid (or valid again): autosave waits for it. */
  const onInvalid = useCallback((id: string, bad: boolean) => {
    setInvalid((cur) => {
      if (cur.has(id) === bad) return cur;
      const next = new Set(cur);
      if (bad) next.add(id);
      else next.delete(id);
      return next;
    });
  }, []);

  const saveState = snap.saving ? 'Saving…' : saveErrorAt !== null ? 'Not saved' : unsaved ? 'Unsaved changes' : 'Saved';

  return {
    store, snap, segments, list, loaded, transcript, transcriptError, reloadTranscript,
    unsaved, save, saveState, saveFailed: saveErrorAt !== null, showSaveError, hideSaveError, notice, setNotice, onInvalid, guard,
  };
}
