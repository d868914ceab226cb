"use client";
/**
 * Page shortcuts: single keys (j, k, /, ?) that act on the page only while the person is not
 * typing. `isTextField` says whether an element takes typing; `useHotkeys` listens for keys
 * meant as shortcuts.
 */
import { useEffect, useRef } from "react";

/** Inputs that take no typing, so single keys stay shortcuts while one has the focus. */
const NOT_TYPED = new Set(["range", "checkbox"]);

/** True when `el` takes typing: a text input, a textarea, a select or editable content. */
export function isTextField(el: EventTarget | null): boolean {
  if (!(el instanceof HTMLElement)) return false;
  if (el.isContentEditable || el.tagName === "TEXTAREA" || el.tagName === "SELECT") return true;
  return el instanceof HTMLInputElement && !NOT_TYPED.has(el.type);
}

/**
 * Calls `onKey` for each keydown on the page that is meant as a shortcut: not already handled,
 * without Ctrl, ⌘ or Alt, not in a text field, and not while a dialog is open. `onKey` may be a
 * new function on every render; the latest one is called.
 */
export function useHotkeys(onKey: (e: KeyboardEvent) => void): void {
  const latest = useRef(onKey);
  useEffect(() => {
    latest.current = onKey;
  });
  useEffect(() => {
    const listener = (e: KeyboardEvent) => {
      if (e.defaultPrevented || e.metaKey || e.ctrlKey || e.altKey) return;
      if (isTextField(e.target) || document.querySelector("dialog[open]")) return;
      latest.current(e);
    };
    window.addEventListener("keydown", listener);
    return () => window.removeEventListener("keydown", listener);
  }, []);
}
