/**
 * `useHydrated`: false while the page's HTML is being hydrated (and on the server), true once
 * the page is live in the browser, and true at once for what mounts later. For what must be
 * drawn by the browser itself (times in the person's own zone, what localStorage says) although
 * its data came with the HTML: drawing it during hydration would not match the server's HTML.
 */
import { useSyncExternalStore } from "react";

const never = () => () => {};

/** See the module doc. */
export function useHydrated(): boolean {
  return useSyncExternalStore(
    never,
    () => true,
    () => false,
  );
}
