// The speaker lanes of the timeline: a label per speaker and the segment blocks in view, or, when too many are in
// view, the lanes drawn on a canvas that zooms in on a click.
import type { KeyboardEvent as ReactKeyboardEvent, PointerEvent as ReactPointerEvent, ReactNode, RefObject } from 'react';
import { formatNumber } from '../../../lib/format';
import type { EditorSegment } from '../lib/segments';
import { GUTTER_PX, LANE_H, MAX_LANES_SHOWN } from './layout';
import { TimelineBlock } from './TimelineBlock';
import type { Drag } from './useBlockDrag';
import type { Lane, TimelineView } from './view';

export function TimelineLanes(p: {
  lanes: readonly Lane<EditorSegment>[];
  /** The range of each lane's items in view. */
  visible: readonly (readonly [number, number])[];
  visibleCount: number;
  dense: boolean;
  lanesShown: number;
  nameOf: ReadonlyMap<string, string>;
  indexOf: ReadonlyMap<string, number>;
  v: TimelineView;
  drag: Drag | null;
  selectedId: string | null;
  dirty: ReadonlySet<string>;
  readOnly: boolean;
  canvasRef: RefObject<HTMLCanvasElement>;
  onDenseClick: (e: ReactPointerEvent<HTMLDivElement>) => void;
  onBlockPointerDown: (e: ReactPointerEvent<HTMLDivElement>, seg: EditorSegment) => void;
  onBlockKeyDown: (e: ReactKeyboardEvent<HTMLDivElement>, seg: EditorSegment) => void;
}) {
  const { lanes, v, drag } = p;
  return (
    <div className="tl-lanes-scroll" style={{ maxHeight: MAX_LANES_SHOWN * LANE_H }}>
      <div className="tl-row" style={{ height: p.lanesShown * LANE_H }}>
        <div className="tl-gutter" style={{ width: GUTTER_PX }}>
          {lanes.map((lane) => (
            <div key={lane.speaker} className="tl-label" style={{ height: LANE_H }} title={p.nameOf.get(lane.speaker) ?? lane.speaker}>
              {p.nameOf.get(lane.speaker) ?? (lane.speaker || 'No speaker')}
            </div>
          ))}
        </div>
        <div className="tl-cell tl-lanes">
          <canvas ref={p.canvasRef} className="tl-canvas" style={{ height: p.lanesShown * LANE_H, display: p.dense ? 'block' : 'none' }} />
          {p.dense ? (
            <div className="tl-dense" onPointerDown={p.onDenseClick} title="Click to zoom in and edit the segments">
              <span className="tl-note">{formatNumber(p.visibleCount)} segments in view: click or zoom in to drag them</span>
            </div>
          ) : (
            lanes.map((lane, li) => {
              const [a, b] = p.visible[li]!;
              const blocks: ReactNode[] = [];
              for (let i = a; i < b; i++) {
                const s0 = lane.items[i]!;
                const s = drag && drag.id === s0.id && drag.moved ? { ...s0, start: drag.start, end: drag.end } : s0;
                blocks.push(
                  <TimelineBlock
                    key={s.id}
                    seg={s}
                    index={p.indexOf.get(s.id) ?? 0}
                    left={s.start * v.pxPerSec}
                    width={(s.end - s.start) * v.pxPerSec}
                    selected={s.id === p.selectedId}
                    dirty={p.dirty.has(s.id)}
                    dragging={drag?.id === s.id}
                    readOnly={p.readOnly}
                    onPointerDown={p.onBlockPointerDown}
                    onKeyDown={p.onBlockKeyDown}
                  />,
                );
              }
              return (
                <div key={lane.speaker} className="tl-lane" style={{ top: li * LANE_H, height: LANE_H }} data-speaker={lane.speaker}>
                  {/* Blocks sit at their time (px from 0 s); panning moves only this strip, not each block. */}
                  <div className="tl-strip" style={{ transform: `translateX(${-v.startSec * v.pxPerSec}px)` }}>
                    {blocks}
                  </div>
                </div>
              );
            })
          )}
        </div>
      </div>
    </div>
  );
}
