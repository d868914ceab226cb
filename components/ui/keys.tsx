"use client";
/**
 * Shortcuts as people read them, on their platform (lib/platform.ts): `usePlatformMac` says
 * whether the browser runs on macOS (false on the server and during hydration, then the truth),
 * `useShortcutText` formats a platform-free combo ("Mod+K" → "Ctrl+K" or "⌘K"), and `Kbd` shows
 * one as a key cap.
 */
import { useSyncExternalStore } from "react";
import { browserPlatform, formatShortcut, isMacPlatform } from "@/lib/platform";

const noSubscribe = () => () => {};

/** True in a browser on macOS; false on the server and while hydrating (the first HTML says Ctrl). */
export function usePlatformMac(): boolean {
  return useSyncExternalStore(
    noSubscribe,
    () => isMacPlatform(browserPlatform()),
    () => false,
  );
}

/** `combo` ("Mod+K", "Alt+↓", "?") as this platform writes it. */
export function useShortcutText(combo: string): string {
  return formatShortcut(combo, usePlatformMac());
}

/** A key cap showing `combo` the platform's way; `className` replaces the default look. */
export function Kbd({ combo, className }: { combo: string; className?: string }) {
  const text = useShortcutText(combo);
  return <kbd className={className ?? "rounded border border-line-strong bg-sunken px-1.5 py-0.5 font-sans text-[11.5px] font-semibold"}>{text}</kbd>;
}
