// The windowed segment list with its toolbar (add segment, counts).
import { forwardRef, useCallback, useImperativeHandle, useRef } from 'react';
import type { EditorSegment } from '../lib/segments';
import { canMergeWithNext } from '../lib/segments';
import { ROW_HEIGHT, ROW_HEIGHT_NARROW, SegmentRow, type SegmentRowProps, type SpeakerOption } from './SegmentRow';
import { VirtualList, type VirtualListHandle } from './VirtualList';
import type { AttentionItem } from '../../../../contract/schemas/quality';

export interface SegmentListHandle {
  scrollTo(id: string, align?: 'auto' | 'start' | 'center'): void;
  /** Scrolls to the row and focuses its translation field. */
  focus(id: string): void;
}

export interface SegmentListProps {
  segments: readonly EditorSegment[];
  dirty: ReadonlySet<string>;
  selectedId: string | null;
  activeId: string | null;
  speakers: readonly SpeakerOption[];
  durationSec: number | null;
  readOnly: boolean;
  height: number | string;
  onSelect: SegmentRowProps['onSelect'];
  onChange: SegmentRowProps['onChange'];
  onInvalid: SegmentRowProps['onInvalid'];
  onPlay: SegmentRowProps['onPlay'];
  onSplit: SegmentRowProps['onSplit'];
  onMergeNext: SegmentRowProps['onMergeNext'];
  onDelete: SegmentRowProps['onDelete'];
  /** The quality report's flags by segment id. */
  flags?: ReadonlyMap<string, AttentionItem[]>;
  /** Narrow rows (phones): times on a second line, actions in a menu. */
  narrow?: boolean;
  /** The project, for the timing fixes of each row. */
  projectId?: string;
  /** The last dub's drift by segment id (seconds). */
  drift?: ReadonlyMap<string, number | null>;
  onServerSegment?: SegmentRowProps['onServerSegment'];
}

export const SegmentList = forwardRef<SegmentListHandle, SegmentListProps>(function SegmentList(p, ref) {
  const list = useRef<VirtualListHandle>(null);
  const indexOf = useCallback((id: string) => p.segments.findIndex((s) => s.id === id), [p.segments]);

  const focus = useCallback(
    (id: string) => {
      const i = indexOf(id);
      if (i < 0) return;
      list.current?.scrollToIndex(i, 'auto');
      // The row may mount on the next frame.
      requestAnimationFrame(() => {
        const el = list.current?.element()?.querySelector<HTMLTextAreaElement>(`[data-segment-id="${CSS.escape(id)}"] textarea[data-translation]`);
        el?.focus();
      });
    },
    [indexOf],
  );
  useImperativeHandle(
    ref,
    () => ({
      scrollTo(id, align = 'auto') {
        const i = indexOf(id);
        if (i >= 0) list.current?.scrollToIndex(i, align);
      },
      focus,
    }),
    [indexOf, focus],
  );

  const onMove = useCallback(
    (id: string, delta: 1 | -1) => {
      const i = indexOf(id);
      const next = p.segments[i + delta];
      if (next) {
        p.onSelect(next.id);
        focus(next.id);
      }
    },
    // eslint-disable-next-line react-hooks/exhaustive-deps
    [indexOf, p.segments, p.onSelect, focus],
  );

  const renderRow = (i: number) => {
    const s = p.segments[i];
    return (
      <SegmentRow
        segment={s}
        index={i}
        selected={s.id === p.selectedId}
        active={s.id === p.activeId}
        dirty={p.dirty.has(s.id)}
        speakers={p.speakers}
        durationSec={p.durationSec}
        canMergeNext={canMergeWithNext(p.segments, i)}
        readOnly={p.readOnly}
        onSelect={p.onSelect}
        onChange={p.onChange}
        onInvalid={p.onInvalid}
        onPlay={p.onPlay}
        onSplit={p.onSplit}
        onMergeNext={p.onMergeNext}
        onDelete={p.onDelete}
        onMove={onMove}
        flags={p.flags?.get(s.id)}
        narrow={p.narrow}
        projectId={p.projectId}
        driftSec={p.drift?.get(s.id)}
        onServerSegment={p.onServerSegment}
      />
    );
  };

  return (
    <VirtualList
      ref={list}
      count={p.segments.length}
      rowHeight={p.narrow ? ROW_HEIGHT_NARROW : ROW_HEIGHT}
      height={p.height}
      renderRow={renderRow}
      rowKey={(i) => p.segments[i].id}
      ariaLabel="Segments"
      overscan={2}
      pinned={p.selectedId ? indexOf(p.selectedId) : null}
    />
  );
});
