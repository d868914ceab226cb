"use client";
/**
 * `Foldable`: long content folded to `lines` lines of text with "Show more" (and "Show less"
 * once open), so a very long message or report does not take over the channel. Content that
 * fits is shown whole, with no button. The height is measured after layout and again when the
 * content resizes (images, fonts).
 */
import { useLayoutEffect, useRef, useState, type ReactNode } from "react";

/** Folds `children` taller than `lines` lines of 1.4rem (the message line height). */
export function Foldable({ children, lines = 14 }: { children: ReactNode; lines?: number }) {
  const inner = useRef<HTMLDivElement>(null);
  const [tall, setTall] = useState(false);
  const [open, setOpen] = useState(false);
  const max = `${lines * 1.4}rem`;
  useLayoutEffect(() => {
    const el = inner.current;
    if (!el) return;
    const measure = () => {
      const limit = lines * 1.4 * parseFloat(getComputedStyle(document.documentElement).fontSize || "16");
      setTall(el.scrollHeight > limit + 24);
    };
    measure();
    if (typeof ResizeObserver === "undefined") return;
    const ro = new ResizeObserver(measure);
    ro.observe(el);
    return () => ro.disconnect();
  }, [lines]);
  const folded = tall && !open;
  return (
    <div>
      <div
        ref={inner}
        className={folded ? "relative overflow-hidden [mask-image:linear-gradient(to_bottom,black_70%,transparent)]" : undefined}
        style={folded ? { maxHeight: max } : undefined}
      >
        {children}
      </div>
      {tall && (
        <button
          type="button"
          aria-expanded={open}
          onClick={() => setOpen((o) => !o)}
          className="mt-0.5 rounded text-xs font-semibold text-accent hover:underline"
        >
          {open ? "Show less" : "Show more"}
        </button>
      )}
    </div>
  );
}
