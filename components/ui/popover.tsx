"use client";
/**
 * `Popover`: a small non-modal panel beside the control that opened it (an emoji picker, a
 * message's edit history, the channel's pins), drawn in the page's body with fixed position so no
 * scrolling list clips it: under its anchor, or above when there is no room below, aligned to
 * the anchor's end. It follows the anchor while the page scrolls and closes once the anchor is
 * out of view.
 *
 * Keyboard and focus: it takes the focus when it opens (its `initialFocus`, else its first
 * control); Escape closes it; so do a click outside and Tab past either end. When it closes while
 * it holds the focus (or the focus was lost with it), the focus goes back to the anchor.
 */
import { useEffect, useLayoutEffect, useRef, type KeyboardEvent, type ReactNode, type RefObject } from "react";
import { createPortal } from "react-dom";

const FOCUSABLE = 'button:not([disabled]), [href], input:not([disabled]), textarea:not([disabled]), select:not([disabled]), [tabindex]:not([tabindex="-1"])';

/** A popover anchored to `anchor` while `open` (see the file comment). */
export function Popover({
  id,
  anchor,
  open,
  onClose,
  label,
  role = "dialog",
  initialFocus,
  className = "",
  onKeyDown,
  children,
}: {
  id?: string;
  anchor: RefObject<HTMLElement | null>;
  open: boolean;
  onClose: () => void;
  /** Its accessible name. */
  label: string;
  /** `dialog` (default) or `menu` (components/ui/menu.tsx). */
  role?: "dialog" | "menu";
  /** What takes the focus when it opens; its first control by default. */
  initialFocus?: RefObject<HTMLElement | null>;
  className?: string;
  /** Keys inside it (a menu's arrows); Escape is its own. */
  onKeyDown?: (e: KeyboardEvent<HTMLDivElement>) => void;
  children: ReactNode;
}) {
  const box = useRef<HTMLDivElement>(null);
  const focusInside = useRef(false);
  const close = useRef(onClose);
  useLayoutEffect(() => {
    close.current = onClose;
  });

  // Placed before the first paint, then focused; the focus returns to the anchor on close.
  useLayoutEffect(() => {
    if (!open) return;
    const trigger = anchor.current;
    if (!place(anchor.current, box.current)) {
      close.current();
      return;
    }
    const first = initialFocus?.current ?? box.current?.querySelector<HTMLElement>(FOCUSABLE) ?? box.current;
    first?.focus({ preventScroll: true });
    return () => {
      const active = document.activeElement;
      if (focusInside.current || !active || active === document.body) trigger?.focus({ preventScroll: true });
      focusInside.current = false;
    };
  }, [open, anchor, initialFocus]);

  useEffect(() => {
    if (!open) return;
    const onDown = (e: PointerEvent) => {
      const t = e.target as Node;
      if (!box.current?.contains(t) && !anchor.current?.contains(t)) {
        focusInside.current = false;
        close.current();
      }
    };
    const onMove = (e: Event) => {
      if (box.current?.contains(e.target as Node)) return;
      if (!place(anchor.current, box.current)) close.current();
    };
    document.addEventListener("pointerdown", onDown);
    document.addEventListener("scroll", onMove, true);
    window.addEventListener("resize", onMove);
    return () => {
      document.removeEventListener("pointerdown", onDown);
      document.removeEventListener("scroll", onMove, true);
      window.removeEventListener("resize", onMove);
    };
  }, [open, anchor]);

  if (!open || typeof document === "undefined") return null;
  return createPortal(
    <div
      ref={box}
      id={id}
      role={role}
      aria-label={label}
      tabIndex={-1}
      onFocus={() => {
        focusInside.current = true;
      }}
      onBlur={(e) => {
        const next = e.relatedTarget as Node | null;
        // To the anchor: its click toggles the popover.
        if (next && !box.current?.contains(next) && !anchor.current?.contains(next)) {
          // Tab past its end (or a click on another control): the focus went on, it stays there.
          focusInside.current = false;
          close.current();
        }
      }}
      onKeyDown={(e) => {
        onKeyDown?.(e);
        if (e.defaultPrevented) return;
        if (e.key === "Tab") {
          // Tab past either end: closed, back on the anchor (the panel is drawn at the end of the page).
          const all = [...(box.current?.querySelectorAll<HTMLElement>(FOCUSABLE) ?? [])].filter((el) => el.tabIndex >= 0);
          const edge = e.shiftKey ? all[0] : all[all.length - 1];
          if (!all.length || document.activeElement === edge || document.activeElement === box.current) {
            e.preventDefault();
            close.current();
          }
          return;
        }
        if (e.key !== "Escape") return;
        // Not the channel's Escape (mark read, close the thread) as well.
        e.preventDefault();
        e.stopPropagation();
        close.current();
      }}
      className={`fixed left-0 top-0 z-50 animate-pop-in rounded-lg border border-line bg-surface text-fg shadow-pop focus:outline-none ${className}`}
    >
      {children}
    </div>,
    document.body,
  );
}

/** Puts `el` under `anchor` (or above it), aligned to its end; false when the anchor is out of view. */
function place(anchor: HTMLElement | null, el: HTMLElement | null): boolean {
  if (!anchor || !el) return false;
  const at = anchor.getBoundingClientRect();
  if (at.bottom < 0 || at.top > window.innerHeight || (at.width === 0 && at.height === 0)) return false;
  const width = el.offsetWidth;
  const height = el.offsetHeight;
  const below = at.bottom + 4 + height <= window.innerHeight - 8 || at.top - 4 - height < 8;
  el.style.left = `${Math.max(8, Math.min(at.right - width, window.innerWidth - width - 8))}px`;
  el.style.top = `${below ? Math.min(at.bottom + 4, window.innerHeight - height - 8) : at.top - 4 - height}px`;
  return true;
}
