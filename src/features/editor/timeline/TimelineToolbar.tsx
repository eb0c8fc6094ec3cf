// The timeline's toolbar: zoom buttons, follow and snap switches, the times of the selected or dragged block, and
// the show/hide button.
import { ZOOM_STEP } from './view';

export function TimelineToolbar(p: {
  collapsed: boolean;
  onCollapsedChange: (collapsed: boolean) => void;
  onZoom: (factor: number) => void;
  onWholeVideo: () => void;
  following: boolean;
  onFollowingChange: (on: boolean) => void;
  snapping: boolean;
  onSnappingChange: (on: boolean) => void;
  /** The times shown (empty when no block is selected). */
  readout: string;
}) {
  return (
    <div className="tl-toolbar">
      <strong className="tl-title">Timeline</strong>
      <button type="button" className="ed-btn" onClick={() => p.onZoom(1 / ZOOM_STEP)} aria-label="Zoom out" disabled={p.collapsed}>−</button>
      <button type="button" className="ed-btn" onClick={() => p.onZoom(ZOOM_STEP)} aria-label="Zoom in" disabled={p.collapsed}>+</button>
      <button type="button" className="ed-btn" onClick={p.onWholeVideo} disabled={p.collapsed}>
        Whole video
      </button>
      <label className="tl-check">
        <input type="checkbox" checked={p.following} onChange={(e) => p.onFollowingChange(e.target.checked)} /> Follow playhead
      </label>
      <label className="tl-check">
        <input type="checkbox" checked={p.snapping} onChange={(e) => p.onSnappingChange(e.target.checked)} /> Snap to speech
      </label>
      <span className="tl-readout" aria-live="polite" data-testid="timeline-readout">
        {p.readout}
      </span>
      <span className="ed-spacer" />
      <span className="tl-hint">Drag a block or its edges · Ctrl + wheel zooms · Alt drags without snapping</span>
      <button type="button" className="ed-btn" onClick={() => p.onCollapsedChange(!p.collapsed)} aria-expanded={!p.collapsed}>
        {p.collapsed ? 'Show timeline' : 'Hide timeline'}
      </button>
    </div>
  );
}
