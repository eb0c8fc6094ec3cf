// A small windowed list: fixed row height, renders only the rows in view (plus overscan). Used by the
// segment list so 1,000+ segments scroll smoothly.
import { forwardRef, useCallback, useEffect, useImperativeHandle, useLayoutEffect, useRef, useState, type ReactNode } from 'react';

export interface VirtualListHandle {
  /** Scrolls so row i is visible ('auto': only when it is not; 'center': centred). */
  scrollToIndex(i: number, align?: 'auto' | 'start' | 'center'): void;
  element(): HTMLDivElement | null;
}

export interface VirtualListProps {
  count: number;
  rowHeight: number;
  /** CSS height of the scrolling viewport. */
  height: number | string;
  overscan?: number;
  renderRow: (index: number) => ReactNode;
  rowKey: (index: number) => string;
  ariaLabel: string;
  /** A row kept mounted even when scrolled away (the focused/selected one, so focus is not lost). */
  pinned?: number | null;
  /** Viewport height to assume before it can be measured (tests, first paint). */
  initialViewport?: number;
  className?: string;
}

export function visibleRange(scrollTop: number, viewport: number, rowHeight: number, count: number, overscan: number): [number, number] {
  if (count === 0) return [0, -1];
  const first = Math.max(0, Math.floor(scrollTop / rowHeight) - overscan);
  const last = Math.min(count - 1, Math.ceil((scrollTop + viewport) / rowHeight) + overscan - 1);
  return [first, Math.max(first, last)];
}

export const VirtualList = forwardRef<VirtualListHandle, VirtualListProps>(function VirtualList(
  { count, rowHeight, height, overscan = 4, renderRow, rowKey, ariaLabel, initialViewport = 800, className, pinned },
  ref,
) {
  const outer = useRef<HTMLDivElement>(null);
  const [scrollTop, setScrollTop] = useState(0);
  const [viewport, setViewport] = useState(initialViewport);
  const frame = useRef(0);
  // Re-render only when the rendered range changes, not on every scrolled pixel.
  const rangeOf = useCallback(
    (top: number, vh: number) => visibleRange(top, vh, rowHeight, count, overscan),
    [rowHeight, count, overscan],
  );
  const current = useRef<[number, number]>(rangeOf(0, initialViewport));

  useLayoutEffect(() => {
    const el = outer.current;
    if (!el) return;
    const measure = () => {
      if (el.clientHeight > 0) setViewport(el.clientHeight);
    };
    measure();
    if (typeof ResizeObserver === 'undefined') return;
    const ro = new ResizeObserver(measure);
    ro.observe(el);
    return () => ro.disconnect();
  }, []);

  useEffect(() => () => cancelAnimationFrame(frame.current), []);

  const onScroll = useCallback(() => {
    if (frame.current) return;
    frame.current = requestAnimationFrame(() => {
      frame.current = 0;
      const el = outer.current;
      if (!el) return;
      const [a, b] = rangeOf(el.scrollTop, viewport);
      if (a !== current.current[0] || b !== current.current[1]) setScrollTop(el.scrollTop);
    });
  }, [rangeOf, viewport]);

  useImperativeHandle(
    ref,
    () => ({
      element: () => outer.current,
      scrollToIndex(i, align = 'auto') {
        const el = outer.current;
        if (!el || i < 0 || i >= count) return;
        const top = i * rowHeight;
        const vh = el.clientHeight || viewport;
        let next = el.scrollTop;
        if (align === 'start') next = top;
        else if (align === 'center') next = top - (vh - rowHeight) / 2;
        else if (top < el.scrollTop) next = top;
        else if (top + rowHeight > el.scrollTop + vh) next = top + rowHeight - vh;
        next = Math.max(0, Math.min(next, count * rowHeight - vh));
        if (next !== el.scrollTop) {
          el.scrollTop = next;
          setScrollTop(next);
        }
      },
    }),
    [count, rowHeight, viewport],
  );

  const [first, last] = rangeOf(scrollTop, viewport);
  current.current = [first, last];
  const rows: ReactNode[] = [];
  const indexes: number[] = [];
  if (pinned != null && pinned >= 0 && pinned < count && pinned < first) indexes.push(pinned);
  for (let i = first; i <= last; i++) indexes.push(i);
  if (pinned != null && pinned >= 0 && pinned < count && pinned > last) indexes.push(pinned);
  for (const i of indexes) {
    rows.push(
      <div
        key={rowKey(i)}
        role="listitem"
        aria-setsize={count}
        aria-posinset={i + 1}
        style={{ position: 'absolute', top: i * rowHeight, left: 0, right: 0, height: rowHeight, contain: 'strict' }}
      >
        {renderRow(i)}
      </div>,
    );
  }
  return (
    <div
      ref={outer}
      className={className}
      onScroll={onScroll}
      style={{ height, overflowY: 'auto', position: 'relative', contain: 'strict', willChange: 'scroll-position' }}
      data-testid="virtual-list"
    >
      <div role="list" aria-label={ariaLabel} style={{ height: count * rowHeight, position: 'relative' }}>
        {rows}
      </div>
    </div>
  );
});
