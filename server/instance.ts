/**
 * The Clutch this process runs, for route handlers: Next bundles app/api/** as a module graph
 * of its own, so they cannot import the instance server.ts built; `createClutch`
 * (server/clutch.ts) registers it on globalThis and `getClutch()` reads it back. This module
 * imports no part of the system, so a route bundle stays small.
 */
import type { Clutch } from "./clutch";

const KEY = Symbol.for("clutch.instance");
type Holder = { [KEY]?: Clutch };

/** The running Clutch. Throws when the server was not started through server.ts. */
export function getClutch(): Clutch {
  const clutch = (globalThis as Holder)[KEY];
  if (!clutch) throw new Error("Clutch is not started: run the app with `npm start` or `npm run dev` (server.ts)");
  return clutch;
}

/** Make `clutch` the process's instance. */
export function setClutch(clutch: Clutch): void {
  (globalThis as Holder)[KEY] = clutch;
}

/** Forget `clutch` if it is the process's instance (it stopped). */
export function clearClutch(clutch: Clutch): void {
  if ((globalThis as Holder)[KEY] === clutch) delete (globalThis as Holder)[KEY];
}
