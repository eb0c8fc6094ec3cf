// The timeline's canvases (ruler, source and dub waveforms, dense lanes), redrawn after every render for the
// visible window only (cheap), asking the peaks they need on the way.
import { useLayoutEffect, useRef } from 'react';
import type { EditorSegment } from '../lib/segments';
import { drawLanes, drawRuler, drawWave, type ChunkAccess } from './draw';
import type { Track } from './useTrackPeaks';
import type { Lane, TimelineView } from './view';

export function useTimelineCanvases(o: {
  chunkAccess: (track: Track) => ChunkAccess | null;
  dubVersion: string | null;
  width: number;
  v: TimelineView;
  t0: number;
  t1: number;
  resolution: number;
  duration: number;
  lanes: readonly Lane<EditorSegment>[];
  visible: readonly (readonly [number, number])[];
  dense: boolean;
  lanesShown: number;
}) {
  const ruler = useRef<HTMLCanvasElement>(null);
  const source = useRef<HTMLCanvasElement>(null);
  const dub = useRef<HTMLCanvasElement>(null);
  const lanes = useRef<HTMLCanvasElement>(null);

  // Draw after every render that can change a picture (cheap: only the visible window).
  useLayoutEffect(() => {
    const { chunkAccess, width, v, resolution, duration } = o;
    drawRuler(ruler.current, o);
    // Asks for the peaks of the window even where nothing can be drawn.
    drawWave(source.current, chunkAccess('source'), '#5b6cbf', { width, v, resolution, duration });
    if (o.dubVersion) drawWave(dub.current, chunkAccess('dub'), '#2f8f5b', { width, v, resolution, duration });
    drawLanes(lanes.current, o);
  });

  return { ruler, source, dub, lanes };
}
