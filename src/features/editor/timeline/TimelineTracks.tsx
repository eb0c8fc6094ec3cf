// The timeline's fixed rows: the time ruler, a waveform row (source or dub), and the scroll bar under the lanes.
import type { PointerEvent as ReactPointerEvent, ReactNode, RefObject } from 'react';
import { GUTTER_PX, RULER_H, WAVE_H } from './layout';

type Seek = (e: ReactPointerEvent<HTMLElement>) => void;

/** The ruler; its cell is the time area the timeline measures (`areaRef`). A click moves the playhead. */
export function TimelineRuler(p: { areaRef: RefObject<HTMLDivElement>; canvasRef: RefObject<HTMLCanvasElement>; onSeek: Seek }) {
  return (
    <div className="tl-row" style={{ height: RULER_H }}>
      <div className="tl-label" style={{ width: GUTTER_PX }} />
      <div className="tl-cell" ref={p.areaRef}>
        <canvas ref={p.canvasRef} className="tl-canvas" style={{ height: RULER_H }} onPointerDown={p.onSeek} aria-label="Time ruler: click to move the playhead" />
      </div>
    </div>
  );
}

/** A waveform row with its label and notes (not processed yet, could not load). A click moves the playhead. */
export function WaveformRow(p: {
  label: string;
  canvasRef: RefObject<HTMLCanvasElement>;
  ariaLabel: string;
  testId: string;
  /** Hides the canvas (`none`) or shows it (`block`); unset leaves it to the style sheet. */
  display?: 'block' | 'none';
  onSeek: Seek;
  children?: ReactNode;
}) {
  return (
    <div className="tl-row" style={{ height: WAVE_H }}>
      <div className="tl-label" style={{ width: GUTTER_PX }}>{p.label}</div>
      <div className="tl-cell tl-wave" onPointerDown={p.onSeek}>
        <canvas ref={p.canvasRef} className="tl-canvas" style={{ height: WAVE_H, display: p.display }} aria-label={p.ariaLabel} data-testid={p.testId} />
        {p.children}
      </div>
    </div>
  );
}

/** The bar that scrolls the timeline (milliseconds of the left edge). */
export function TimelineScrollbar(p: { duration: number; visibleSec: number; startSec: number; onScroll: (startSec: number) => void }) {
  return (
    <div className="tl-row">
      <div className="tl-label" style={{ width: GUTTER_PX }} />
      <div className="tl-cell">
        <input
          type="range"
          className="tl-scroll"
          aria-label="Scroll the timeline"
          min={0}
          max={Math.max(0, Math.round((p.duration - p.visibleSec) * 1000))}
          value={Math.round(p.startSec * 1000)}
          disabled={p.duration <= p.visibleSec}
          onChange={(e) => p.onScroll(Number(e.target.value) / 1000)}
        />
      </div>
    </div>
  );
}

/** Drawn over the rows: the playhead line (placed by usePlayhead) and the snap line while a drag snaps. */
export function TimelineOverlay(p: { playheadRef: RefObject<HTMLDivElement>; snapX: number | null }) {
  return (
    <div className="tl-overlay" style={{ left: GUTTER_PX }} aria-hidden>
      {p.snapX != null && <div className="tl-snap" style={{ transform: `translateX(${p.snapX}px)` }} />}
      <div className="tl-playhead" ref={p.playheadRef} />
    </div>
  );
}
