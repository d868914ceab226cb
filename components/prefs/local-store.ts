/**
 * A tiny localStorage-backed store for React (useSyncExternalStore), in sync across tabs
 * through the `storage` event. Values are JSON; a broken or blocked storage falls back to the
 * default instead of throwing.
 */
import { useCallback, useSyncExternalStore } from "react";

const listeners = new Map<string, Set<() => void>>();
const cache = new Map<string, { raw: string | null; value: unknown }>();

function notify(key: string): void {
  listeners.get(key)?.forEach((fn) => fn());
}

if (typeof window !== "undefined") {
  window.addEventListener("storage", (e) => {
    if (e.key) notify(e.key);
  });
}

/** Reads a JSON value from localStorage, or `fallback`. */
export function readLocal<T>(key: string, fallback: T): T {
  if (typeof window === "undefined") return fallback;
  let raw: string | null = null;
  try {
    raw = window.localStorage.getItem(key);
  } catch {
    return fallback;
  }
  const hit = cache.get(key);
  if (hit && hit.raw === raw) return hit.value as T;
  let value: unknown = fallback;
  if (raw !== null) {
    try {
      value = JSON.parse(raw);
    } catch {
      value = fallback;
    }
  }
  cache.set(key, { raw, value });
  return value as T;
}

/** Writes a JSON value to localStorage and notifies this tab's subscribers. */
export function writeLocal<T>(key: string, value: T): void {
  try {
    window.localStorage.setItem(key, JSON.stringify(value));
  } catch {
    // storage full or blocked: keep working without persistence
  }
  notify(key);
}

/** `[value, setValue]` for one localStorage key; `fallback` on the server and when unset. */
export function useLocalValue<T>(key: string, fallback: T): [T, (value: T) => void] {
  const subscribe = useCallback(
    (fn: () => void) => {
      let set = listeners.get(key);
      if (!set) listeners.set(key, (set = new Set()));
      set.add(fn);
      return () => set.delete(fn);
    },
    [key],
  );
  const value = useSyncExternalStore(
    subscribe,
    () => readLocal(key, fallback),
    () => fallback,
  );
  const set = useCallback((v: T) => writeLocal(key, v), [key]);
  return [value, set];
}
