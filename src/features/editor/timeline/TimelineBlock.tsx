// One segment on the timeline: a block at its time in its speaker's lane, with grab edges and its fit in words.
import { memo } from 'react';
import type { KeyboardEvent as ReactKeyboardEvent, PointerEvent as ReactPointerEvent } from 'react';
import { formatSrtTime } from '../../../../contract/timecodes';
import type { EditorSegment } from '../lib/segments';
import { segmentFit } from '../lib/timing';

interface BlockProps {
  seg: EditorSegment;
  index: number;
  left: number;
  width: number;
  selected: boolean;
  dirty: boolean;
  dragging: boolean;
  readOnly: boolean;
  onPointerDown: (e: ReactPointerEvent<HTMLDivElement>, seg: EditorSegment) => void;
  onKeyDown: (e: ReactKeyboardEvent<HTMLDivElement>, seg: EditorSegment) => void;
}

export const TimelineBlock = memo(function TimelineBlock(p: BlockProps) {
  const s = p.seg;
  const overlap = !!s.overlappedTimestamps?.length;
  // the dub's fit (issue 29), in words too: "Too fast 1.32×", "Original audio"
  const fit = segmentFit(s);
  const fitText = fit.level === 'unknown' ? '' : `, ${fit.label}`;
  return (
    <div
      className="tl-block"
      role="button"
      tabIndex={p.selected ? 0 : -1}
      data-tl-segment={s.id}
      data-selected={p.selected}
      data-dirty={p.dirty}
      data-overlap={overlap}
      data-dragging={p.dragging}
      data-fit={fit.level}
      aria-label={`Segment ${p.index + 1}: ${formatSrtTime(s.start)} to ${formatSrtTime(s.end)}${fitText}`}
      aria-pressed={p.selected}
      style={{ transform: `translateX(${p.left}px)`, width: Math.max(2, p.width) }}
      onPointerDown={(e) => p.onPointerDown(e, s)}
      onKeyDown={(e) => p.onKeyDown(e, s)}
      title={`${formatSrtTime(s.start)} – ${formatSrtTime(s.end)}${overlap ? ' · overlaps another segment of this speaker' : ''}${fit.level === 'unknown' ? '' : ` · ${fit.description}`}`}
    >
      {!p.readOnly && p.width >= 14 && <span className="tl-edge tl-edge-start" data-edge="start" aria-hidden />}
      {p.width >= 28 && <span className="tl-block-text">{s.dst.text || s.src.text}</span>}
      {!p.readOnly && p.width >= 14 && <span className="tl-edge tl-edge-end" data-edge="end" aria-hidden />}
    </div>
  );
});
