"use client";
/**
 * `useSelection`: the inbox's selected approval. The selection follows its approval's id; when
 * that approval leaves the list (decided), the one now in its place is selected. The selected
 * item holds the focus: when the page opens, when the selection moves, and after a decision (the
 * decided item leaves the list with the focus), but never on a refetch, so the view is not
 * pulled away from what the person is doing.
 */
import { useCallback, useEffect, useRef, useState, type RefObject } from "react";
import type { ApprovalSummary } from "@/lib/api/types";

/** The selection over `items`; `listRef` is the list element their items are rendered in. */
export function useSelection(items: readonly ApprovalSummary[], listRef: RefObject<HTMLUListElement | null>) {
  // The selected approval, and where it was (the fallback once it leaves the list).
  const [sel, setSel] = useState<{ id: string | null; index: number }>({ id: null, index: 0 });
  const refocus = useRef(true);

  let index = sel.id ? items.findIndex((a) => a.approval_id === sel.id) : -1;
  if (index < 0 && items.length) index = Math.min(sel.index, items.length - 1);
  const selected = index >= 0 ? items[index] : undefined;

  /** Focuses the item of this approval and scrolls it into view. */
  const focusItem = useCallback((id: string | undefined) => {
    if (!id) return;
    const el = listRef.current?.querySelector<HTMLElement>(`[data-approval-item="${CSS.escape(id)}"]`);
    if (!el) return;
    el.focus({ preventScroll: true });
    el.scrollIntoView({ block: "nearest" });
  }, [listRef]);

  /** Selects the item at `i` (clamped to the list) and focuses it. */
  const select = useCallback(
    (i: number) => {
      const at = Math.max(0, Math.min(items.length - 1, i));
      const next = items[at];
      if (!next) return;
      setSel({ id: next.approval_id, index: at });
      requestAnimationFrame(() => focusItem(next.approval_id));
    },
    [items, focusItem],
  );

  useEffect(() => {
    if (!selected || !refocus.current) return;
    const active = document.activeElement;
    const lost = active === null || active === document.body || !document.contains(active);
    refocus.current = false;
    if (lost && !document.querySelector("dialog[open]")) focusItem(selected.approval_id);
  }, [items, selected, focusItem]);

  return {
    /** The selected item's index in `items`; -1 when the list is empty. */
    index,
    selected,
    select,
    focusItem,
    /** Marks the item at `i` selected (it already has the focus). */
    mark: (i: number) => setSel({ id: items[i]?.approval_id ?? null, index: i }),
    /** Back to the first item (another tab). */
    reset: () => setSel({ id: null, index: 0 }),
    /** After a decision: the item that takes the decided one's place gets the focus. */
    refocusNext: () => {
      refocus.current = true;
    },
  };
}
