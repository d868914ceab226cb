"use client";
/**
 * Virtualized rendering of a thread's rows (docs/channels.md "Threads"): a channel's list and a
 * run's thread in the side pane draw only the rows near the view, each measured once it is
 * drawn (@tanstack/react-virtual, dynamic heights through `measureElement`), so a run of 20,000
 * events opens and scrolls like a short one. The rows themselves still come from `buildRows`
 * (rows.ts); only their rendering is windowed.
 *
 * Layout: item 0 is the list's header (the channel's intro or "loading older" line, the run's
 * card), items 1…n the rows. Every drawn item is absolutely placed in one box as tall as all of
 * them (estimated until measured); the header sits above the list element (`role="log"`), which
 * spans the rows and holds them alone, in order, as before. The row that holds the keyboard focus stays
 * drawn while it is scrolled out of view, so Tab goes on from where it was.
 */
import { useCallback, useMemo, useRef, type FocusEvent, type HTMLAttributes, type ReactNode, type RefObject } from "react";
import { defaultRangeExtractor, useVirtualizer, type Range, type Virtualizer } from "@tanstack/react-virtual";
import type { Row } from "./rows";

/** Rows drawn beyond each edge of the view. */
const OVERSCAN = 8;
/**
 * A list of at most this many rows is drawn whole, through the same path (a channel's first
 * page is 100 events): find-in-page and tests that look for a row without scrolling to it keep
 * working on short lists; longer ones are windowed.
 */
export const DRAW_ALL_BELOW = 150;

/** A first guess of a row's height in px, until it is measured. */
export function estimateRow(row: Row): number {
  switch (row.kind) {
    case "day":
      return 36;
    case "unread":
      return 28;
    case "run":
      return 110;
    case "details":
    case "policy-group":
      return 28;
    default:
      return 52;
  }
}

/** What `useVirtualRows` gives its list. */
export interface VirtualRows {
  virtualizer: Virtualizer<HTMLDivElement, Element>;
  /**
   * Brings item `index` (0 = header, row i = i + 1) to the middle of the view, then, once
   * `find()` returns its element (drawn, measured and still), calls `then(el)`. Gives up after
   * 90 frames (~1.5 s) when it is never drawn.
   */
  reveal(index: number, find: () => Element | null | undefined, then: (el: Element) => void): void;
  /** Focus handlers for the box that holds the items (the focused row stays drawn). */
  focusProps: { onFocus(e: FocusEvent<HTMLElement>): void; onBlur(e: FocusEvent<HTMLElement>): void };
}

/**
 * The virtualizer of a list of `rows` below a header, in the scrolling element `scroller`.
 * `startAtEnd`: the first layout is computed for the bottom of the list (a channel opens at its
 * newest event) rather than the top. `headerSize`: the header's estimated height in px.
 */
export function useVirtualRows({
  scroller,
  rows,
  headerSize,
  startAtEnd = false,
}: {
  scroller: RefObject<HTMLDivElement | null>;
  rows: readonly Row[];
  headerSize: number;
  startAtEnd?: boolean;
}): VirtualRows {
  const focused = useRef<number | null>(null);
  const rangeExtractor = useCallback((range: Range) => {
    const out = defaultRangeExtractor(range);
    const f = focused.current;
    if (f !== null && f < range.count && !out.includes(f)) {
      out.push(f);
      out.sort((a, b) => a - b);
    }
    return out;
  }, []);
  // eslint-disable-next-line react-hooks/incompatible-library -- the virtualizer keeps its state outside React; nothing here is compiled by React Compiler
  const virtualizer = useVirtualizer<HTMLDivElement, Element>({
    count: rows.length + 1,
    getScrollElement: () => scroller.current,
    estimateSize: (i) => (i === 0 ? headerSize : estimateRow(rows[i - 1]!)),
    getItemKey: (i) => (i === 0 ? "header" : rows[i - 1]!.key),
    overscan: rows.length < DRAW_ALL_BELOW ? DRAW_ALL_BELOW : OVERSCAN,
    rangeExtractor,
    initialOffset: startAtEnd ? () => headerSize + rows.length * 64 : 0,
  });

  const pending = useRef(0);
  const reveal = useCallback(
    (index: number, find: () => Element | null | undefined, then: (el: Element) => void) => {
      const ticket = ++pending.current;
      virtualizer.scrollToIndex(index, { align: "center" });
      let frames = 0;
      let top: number | null = null;
      let still = 0;
      const step = () => {
        if (ticket !== pending.current) return;
        const el = find();
        // Drawn, and in the same place for two frames: its own and its neighbours' heights are
        // measured and the virtualizer has finished moving to it.
        const now = el ? el.getBoundingClientRect().top : null;
        still = now !== null && top !== null && Math.abs(now - top) < 1 ? still + 1 : 0;
        top = now;
        if (el && still >= 2) return then(el);
        if (++frames < 90) requestAnimationFrame(step);
        else if (el) then(el);
      };
      requestAnimationFrame(step);
    },
    [virtualizer],
  );

  const focusProps = useMemo(
    () => ({
      onFocus(e: FocusEvent<HTMLElement>) {
        const item = (e.target as Element).closest("[data-index]");
        focused.current = item ? Number(item.getAttribute("data-index")) : null;
      },
      onBlur(e: FocusEvent<HTMLElement>) {
        if (!e.relatedTarget || !e.currentTarget.contains(e.relatedTarget as Node)) focused.current = null;
      },
    }),
    [],
  );
  return { virtualizer, reveal, focusProps };
}

/**
 * Draws the items of `list` in view: `header` as item 0, beside an element with `listProps`
 * (the `role="log"`) that holds `renderRow(i)` for each drawn row i (0-based in `rows`).
 */
export function VirtualRowsView({
  list,
  header,
  renderRow,
  listProps,
}: {
  list: VirtualRows;
  header: ReactNode;
  renderRow: (index: number) => ReactNode;
  listProps: HTMLAttributes<HTMLDivElement>;
}) {
  const v = list.virtualizer;
  const items = v.getVirtualItems();
  const place = (index: number, key: string | number | bigint, start: number, children: ReactNode) => (
    <div key={String(key)} data-index={index} ref={v.measureElement} className="absolute left-0 top-0 w-full" style={{ transform: `translateY(${start}px)` }}>
      {children}
    </div>
  );
  const total = v.getTotalSize();
  // The log spans the rows (below the header), so it has the rows' box, as a list in the flow had.
  const head = v.measurementsCache[0]?.end ?? 0;
  return (
    <div className="relative w-full" style={{ height: total }} {...list.focusProps}>
      {items[0]?.index === 0 && place(0, items[0].key, items[0].start, header)}
      <div {...listProps} className="absolute left-0 w-full" style={{ top: head, height: Math.max(0, total - head) }}>
        {items.map((it) => (it.index === 0 ? null : place(it.index, it.key, it.start - head, renderRow(it.index - 1))))}
      </div>
    </div>
  );
}
