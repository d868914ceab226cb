/**
 * `watchFile(file, onChange)`: call `onChange` 100 ms after the last change to `file` (its folder
 * is watched, so an editor's save-by-rename is seen too). Returns the watcher, unref'd so it never
 * keeps the process alive; close it to stop. Used for the files Clutch reloads while it runs: the
 * policy (server/policy/kernel.ts) and workspace.json's prices (server/usage/prices.ts).
 */
import fs from "node:fs";

export function watchFile(file: string, onChange: () => void): fs.FSWatcher {
  let timer: NodeJS.Timeout | null = null;
  const dir = file.replace(/[/\\][^/\\]*$/, "") || ".";
  const name = file.slice(dir.length + 1);
  const watcher = fs.watch(dir, (_event, changed) => {
    if (changed && changed.toString() !== name) return;
    if (timer) clearTimeout(timer);
    timer = setTimeout(onChange, 100);
  });
  watcher.unref();
  return watcher;
}
