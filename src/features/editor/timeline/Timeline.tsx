// The timeline editor under the player (issue 15, `audio_track_editor`): a ruler, the source waveform, the dub
// waveform once generated, and one lane per speaker with the segments as blocks. Drag a block or its edges to
// change its start and end (snapped to speech and segment edges; Alt drags freely), zoom with Ctrl + wheel or the
// buttons, pan with the wheel or the bar, and the view follows the playhead. Waveforms are drawn on canvases for
// the visible window only, from peaks the server computed once; only the blocks in view are mounted (when more
// than MAX_DOM_BLOCKS would be, the lanes are drawn on a canvas and a click zooms in). A drag is shown locally and
// handed to the editor's store on release, like an edit of the time fields (same save call, same rules).
// The parts are in this folder: the hooks (useTimelineViewport, useTrackPeaks, useBlockDrag, useTimelineCanvases,
// usePlayhead) and the pieces drawn (TimelineToolbar, TimelineTracks, TimelineLanes, TimelineBlock).
import { forwardRef, memo, useMemo, useState } from 'react';
import type { PointerEvent as ReactPointerEvent } from 'react';
import { formatSrtTime } from '../../../../contract/timecodes';
import type { EditorSegment } from '../lib/segments';
import { MAX_DOM_BLOCKS } from './layout';
import type { PeaksCache } from './peaks';
import { TimelineLanes } from './TimelineLanes';
import { TimelineToolbar } from './TimelineToolbar';
import { TimelineOverlay, TimelineRuler, TimelineScrollbar, WaveformRow } from './TimelineTracks';
import { useBlockDrag } from './useBlockDrag';
import { usePlayhead, type TimelineHandle } from './usePlayhead';
import { useTimelineCanvases } from './useTimelineCanvases';
import { useRevealSelected, useTimelineViewport } from './useTimelineViewport';
import { useTrackPeaks } from './useTrackPeaks';
import { inView, lanesOf, pickResolution, timeToX, xToTime } from './view';
import './timeline.css';

export { MAX_DOM_BLOCKS };
export type { TimelineHandle };

export interface TimelineProps {
  projectId: string;
  durationSec: number | null;
  segments: readonly EditorSegment[];
  speakers: readonly { id: string; name: string }[];
  selectedId: string | null;
  dirty: ReadonlySet<string>;
  readOnly: boolean;
  /** The source audio exists (ingest done). */
  sourceReady: boolean;
  /** Identifies the current dub (null before the first generate). */
  dubVersion: string | null;
  collapsed: boolean;
  onCollapsedChange: (collapsed: boolean) => void;
  onSelect: (id: string) => void;
  onSeek: (t: number) => void;
  onChange: (id: string, times: { start: number; end: number }) => void;
  /** Peaks source (tests); the page's shared cache by default. */
  cache?: PeaksCache;
}

export const Timeline = memo(forwardRef<TimelineHandle, TimelineProps>(function Timeline(p, ref) {
  const view = useTimelineViewport({ durationSec: p.durationSec, segments: p.segments, collapsed: p.collapsed });
  const { width, duration, v, vRef, setView } = view;
  const [following, setFollowing] = useState(true);
  const [snapping, setSnapping] = useState(true);

  const speakerOrder = useMemo(() => p.speakers.map((s) => s.id), [p.speakers]);
  const lanes = useMemo(() => lanesOf(p.segments, speakerOrder), [p.segments, speakerOrder]);
  const indexOf = useMemo(() => {
    const m = new Map<string, number>();
    p.segments.forEach((s, i) => m.set(s.id, i));
    return m;
  }, [p.segments]);
  const nameOf = useMemo(() => new Map(p.speakers.map((s) => [s.id, s.name])), [p.speakers]);

  const t0 = v.startSec;
  const t1 = v.startSec + width / v.pxPerSec;
  const resolution = pickResolution(v.pxPerSec);
  const { chunkAccess, sourceError, dubError } = useTrackPeaks({
    cache: p.cache, projectId: p.projectId, sourceReady: p.sourceReady, dubVersion: p.dubVersion, resolution, t0, t1,
  });

  // Blocks in view per lane; too many -> the lanes are drawn.
  const visible = useMemo(() => lanes.map((lane) => inView(lane, t0, t1)), [lanes, t0, t1]);
  const visibleCount = visible.reduce((n, [a, b]) => n + (b - a), 0);
  const dense = visibleCount > MAX_DOM_BLOCKS;
  const lanesShown = Math.max(1, lanes.length);

  const { drag, dragRef, onBlockPointerDown, onBlockKeyDown } = useBlockDrag({
    area: view.area, vRef, width, pxPerSec: v.pxPerSec, lanes, snapping, chunkAccess, resolution,
    readOnly: p.readOnly, durationSec: p.durationSec, onSelect: p.onSelect, onChange: p.onChange,
  });
  const canvases = useTimelineCanvases({ chunkAccess, dubVersion: p.dubVersion, width, v, t0, t1, resolution, duration, lanes, visible, dense, lanesShown });
  const playheadEl = usePlayhead(ref, { duration, width, vRef, following, dragRef, jumpTo: view.jumpTo });
  useRevealSelected({ selectedId: p.selectedId, segments: p.segments, indexOf, width, vRef, setView });

  // Clicks on the ruler and the waves seek; a click on the drawn lanes zooms in until the blocks can be grabbed.
  const seekAt = (e: ReactPointerEvent<HTMLElement>) => {
    const rect = e.currentTarget.getBoundingClientRect();
    p.onSeek(Math.max(0, Math.min(duration, xToTime(v, e.clientX - rect.left))));
  };
  const onDenseLaneClick = (e: ReactPointerEvent<HTMLDivElement>) => {
    const rect = e.currentTarget.getBoundingClientRect();
    view.zoomInAt(e.clientX - rect.left);
  };

  const dragged = drag ? p.segments[indexOf.get(drag.id) ?? -1] : undefined;
  const shownTimes = drag?.moved ? { start: drag.start, end: drag.end } : dragged ? { start: dragged.start, end: dragged.end } : null;
  const selected = p.selectedId ? p.segments[indexOf.get(p.selectedId) ?? -1] : undefined;
  const readout = shownTimes ?? (selected ? { start: selected.start, end: selected.end } : null);

  return (
    <section className="tl" data-tour="timeline" aria-label="Timeline" data-collapsed={p.collapsed}>
      <TimelineToolbar
        collapsed={p.collapsed}
        onCollapsedChange={p.onCollapsedChange}
        onZoom={view.zoomBy}
        onWholeVideo={view.showWholeVideo}
        following={following}
        onFollowingChange={setFollowing}
        snapping={snapping}
        onSnappingChange={setSnapping}
        readout={readout ? `${formatSrtTime(readout.start)} – ${formatSrtTime(readout.end)}${drag?.snapped != null ? ' · snapped' : ''}` : ''}
      />
      {!p.collapsed && (
        <div className="tl-body" ref={view.body} data-testid="timeline-area">
          <TimelineRuler areaRef={view.area} canvasRef={canvases.ruler} onSeek={seekAt} />
          <WaveformRow label="Source" canvasRef={canvases.source} ariaLabel="Source waveform" testId="timeline-source-wave" onSeek={seekAt}>
            {!p.sourceReady && <span className="tl-note">The waveform appears once the video is processed</span>}
            {sourceError != null && <span className="tl-note">The source waveform could not be loaded</span>}
          </WaveformRow>
          <WaveformRow
            label="Dub" canvasRef={canvases.dub} ariaLabel="Dub waveform" testId="timeline-dub-wave" display={p.dubVersion ? 'block' : 'none'} onSeek={seekAt}
          >
            {!p.dubVersion && <span className="tl-note">The dub waveform appears once the video is generated</span>}
            {dubError != null && <span className="tl-note">The dub waveform could not be loaded</span>}
          </WaveformRow>
          <TimelineLanes
            lanes={lanes}
            visible={visible}
            visibleCount={visibleCount}
            dense={dense}
            lanesShown={lanesShown}
            nameOf={nameOf}
            indexOf={indexOf}
            v={v}
            drag={drag}
            selectedId={p.selectedId}
            dirty={p.dirty}
            readOnly={p.readOnly}
            canvasRef={canvases.lanes}
            onDenseClick={onDenseLaneClick}
            onBlockPointerDown={onBlockPointerDown}
            onBlockKeyDown={onBlockKeyDown}
          />
          <TimelineScrollbar duration={duration} visibleSec={width / v.pxPerSec} startSec={v.startSec} onScroll={view.scrollTo} />
          <TimelineOverlay playheadRef={playheadEl} snapX={drag?.snapped != null ? timeToX(v, drag.snapped) : null} />
        </div>
      )}
    </section>
  );
}));
