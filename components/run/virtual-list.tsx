"use client";
/**
 * `VirtualList`: a windowed list of fixed-height rows (the run's event list):
 * only the rows in view (plus a few) are in the DOM, so 50,000 events scroll like 50. Rows are
 * absolutely placed in a spacer of `count × rowHeight` px. `ensureVisible(i)` scrolls the least
 * needed to bring row i into view (used to follow the replay position).
 */
import { forwardRef, useCallback, useEffect, useImperativeHandle, useLayoutEffect, useRef, useState, type ReactNode } from "react";

export interface VirtualListHandle {
  /** Scrolls so row `index` is in view, centring it when it was far away. */
  ensureVisible(index: number): void;
}

const OVERSCAN = 8;

export const VirtualList = forwardRef<
  VirtualListHandle,
  {
    count: number;
    rowHeight: number;
    renderRow: (index: number, style: React.CSSProperties) => ReactNode;
    className?: string;
    style?: React.CSSProperties;
    label: string;
  }
>(function VirtualList({ count, rowHeight, renderRow, className = "", style, label }, ref) {
  const box = useRef<HTMLDivElement>(null);
  const [scrollTop, setScrollTop] = useState(0);
  const [height, setHeight] = useState(240);
  const frame = useRef(0);

  useLayoutEffect(() => {
    const el = box.current;
    if (!el) return;
    setHeight(el.clientHeight || 240);
    const ro = new ResizeObserver(() => setHeight(el.clientHeight || 240));
    ro.observe(el);
    return () => ro.disconnect();
  }, []);

  useEffect(() => () => cancelAnimationFrame(frame.current), []);

  const onScroll = useCallback(() => {
    if (frame.current) return;
    frame.current = requestAnimationFrame(() => {
      frame.current = 0;
      if (box.current) setScrollTop(box.current.scrollTop);
    });
  }, []);

  useImperativeHandle(
    ref,
    () => ({
      ensureVisible(index: number) {
        const el = box.current;
        if (!el || index < 0) return;
        const top = index * rowHeight;
        const view = el.clientHeight;
        if (top >= el.scrollTop && top + rowHeight <= el.scrollTop + view) return;
        const far = top < el.scrollTop - view || top > el.scrollTop + 2 * view;
        el.scrollTop = far ? top - view / 2 + rowHeight / 2 : top < el.scrollTop ? top : top + rowHeight - view;
        setScrollTop(el.scrollTop);
      },
    }),
    [rowHeight],
  );

  const first = Math.max(0, Math.floor(scrollTop / rowHeight) - OVERSCAN);
  const last = Math.min(count, Math.ceil((scrollTop + height) / rowHeight) + OVERSCAN);
  const rows: ReactNode[] = [];
  for (let i = first; i < last; i++) rows.push(renderRow(i, { position: "absolute", top: i * rowHeight, left: 0, right: 0, height: rowHeight }));

  return (
    <div ref={box} onScroll={onScroll} style={style} className={`scroll-slim relative overflow-y-auto overscroll-contain ${className}`}>
      <div role="list" aria-label={label} style={{ height: count * rowHeight, position: "relative" }}>
        {rows}
      </div>
    </div>
  );
});
