/**
 * Light / dark theme. The choice is a cookie the root layout reads on the server to put `light`
 * or `dark` on <html> (no flash on load); with no choice the CSS follows `prefers-color-scheme`.
 * The class on <html> is the single source of truth.
 */
import { useCallback, useSyncExternalStore } from "react";
import { THEME_COOKIE, type ThemeChoice } from "./theme-cookie";

/** "light", "dark" or "system". */
export type { ThemeChoice };

const listeners = new Set<() => void>();
const darkQuery = () => window.matchMedia("(prefers-color-scheme: dark)");

function choiceNow(): ThemeChoice {
  const cl = document.documentElement.classList;
  return cl.contains("dark") ? "dark" : cl.contains("light") ? "light" : "system";
}

function effectiveNow(): "light" | "dark" {
  const c = choiceNow();
  if (c !== "system") return c;
  return darkQuery().matches ? "dark" : "light";
}

function subscribe(fn: () => void): () => void {
  listeners.add(fn);
  const mq = darkQuery();
  mq.addEventListener("change", fn);
  return () => {
    listeners.delete(fn);
    mq.removeEventListener("change", fn);
  };
}

/** Applies a choice: class on <html>, remembered in a cookie for a year. */
export function setThemeChoice(choice: ThemeChoice): void {
  const root = document.documentElement;
  root.classList.remove("light", "dark");
  if (choice !== "system") root.classList.add(choice);
  document.cookie =
    choice === "system"
      ? `${THEME_COOKIE}=; path=/; max-age=0; samesite=lax`
      : `${THEME_COOKIE}=${choice}; path=/; max-age=31536000; samesite=lax`;
  listeners.forEach((fn) => fn());
}

/** The current choice, the theme in effect, and setters. */
export function useTheme() {
  const choice = useSyncExternalStore(subscribe, choiceNow, () => "system" as ThemeChoice);
  const effective = useSyncExternalStore(subscribe, effectiveNow, () => "light" as const);
  const toggle = useCallback(() => setThemeChoice(effectiveNow() === "dark" ? "light" : "dark"), []);
  return { choice, effective, setChoice: setThemeChoice, toggle };
}
