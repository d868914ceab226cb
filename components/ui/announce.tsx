"use client";
/**
 * Spoken feedback for actions with nothing new to see (a shortcut that found nothing, a channel
 * marked read): `announce(text)` writes into the shell's polite live region (`Announcer`), which
 * screen readers read out and sighted people see as a short note at the bottom of the window.
 */
import { useEffect, useState } from "react";

const EVENT = "clutch:announce";

/** Says `text` through the page's live region (no-op outside a browser). */
export function announce(text: string): void {
  if (typeof window === "undefined") return;
  window.dispatchEvent(new CustomEvent<string>(EVENT, { detail: text }));
}

/** The live region; shows the last note for 4 s. Render it once (the workspace shell does). */
export function Announcer() {
  const [note, setNote] = useState<{ text: string; n: number } | null>(null);
  useEffect(() => {
    const on = (e: Event) => setNote((prev) => ({ text: (e as CustomEvent<string>).detail, n: (prev?.n ?? 0) + 1 }));
    window.addEventListener(EVENT, on);
    return () => window.removeEventListener(EVENT, on);
  }, []);
  useEffect(() => {
    if (!note) return;
    const t = setTimeout(() => setNote(null), 4_000);
    return () => clearTimeout(t);
  }, [note]);
  return (
    <div role="status" aria-live="polite" className="pointer-events-none fixed inset-x-0 bottom-20 z-50 flex justify-center px-3">
      {note && (
        <p key={note.n} className="animate-fade-in rounded-lg bg-fg px-3 py-1.5 text-[13px] font-medium text-canvas shadow-pop">
          {note.text}
        </p>
      )}
    </div>
  );
}
