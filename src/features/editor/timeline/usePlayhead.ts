// The timeline's playhead: the player reports its time a few times a second (through the Timeline's handle); while
// it plays, the line moves every frame from the last report (so it glides), and the view turns the page when the
// line leaves it (when following is on and no block is being dragged).
import { useCallback, useEffect, useImperativeHandle, useLayoutEffect, useRef } from 'react';
import type { ForwardedRef, MutableRefObject } from 'react';
import { follow, timeToX, type TimelineView } from './view';

export interface TimelineHandle {
  /** The player's position (the view follows it when following is on). */
  setPlayhead(t: number, playing: boolean): void;
}

export function usePlayhead(ref: ForwardedRef<TimelineHandle>, o: {
  duration: number;
  width: number;
  vRef: MutableRefObject<TimelineView>;
  following: boolean;
  /** Something is being dragged: the view stays put. */
  dragRef: MutableRefObject<unknown>;
  jumpTo: (next: TimelineView) => void;
}) {
  const { duration, width, vRef, following, dragRef, jumpTo } = o;
  const playheadEl = useRef<HTMLDivElement>(null);
  const playhead = useRef({ t: 0, playing: false, at: 0 });
  const playheadNow = useCallback(() => {
    const ph = playhead.current;
    return ph.playing ? Math.min(duration, ph.t + (performance.now() - ph.at) / 1000) : ph.t;
  }, [duration]);
  const placePlayhead = useCallback(() => {
    const el = playheadEl.current;
    if (!el) return;
    const x = timeToX(vRef.current, playheadNow());
    const w = el.parentElement?.clientWidth ?? width;
    el.style.display = x < 0 || x > w ? 'none' : 'block';
    el.style.transform = `translateX(${x}px)`;
  }, [width, playheadNow, vRef]);
  useLayoutEffect(placePlayhead);
  const followingRef = useRef(following);
  followingRef.current = following;
  /** Follows the playhead; true when the view moved (the next render places the line). */
  const followPlayhead = useCallback((): boolean => {
    if (!followingRef.current || dragRef.current) return false;
    const next = follow(vRef.current, playheadNow(), duration, width);
    if (next === vRef.current) return false;
    jumpTo(next);
    return true;
  }, [playheadNow, duration, width, vRef, dragRef, jumpTo]);
  const frame = useRef(0);
  const tick = useRef<() => void>(() => {});
  tick.current = () => {
    frame.current = 0;
    if (!playhead.current.playing) return;
    if (!followPlayhead()) placePlayhead();
    frame.current = requestAnimationFrame(() => tick.current());
  };
  useEffect(() => () => cancelAnimationFrame(frame.current), []);
  useImperativeHandle(ref, () => ({
    setPlayhead(t, playing) {
      playhead.current = { t, playing, at: performance.now() };
      if (!followPlayhead()) placePlayhead();
      if (playing && !frame.current) frame.current = requestAnimationFrame(() => tick.current());
    },
  }), [followPlayhead, placePlayhead]);

  return playheadEl;
}
