/**
 * The Clutch this process runs, for route handlers: Next bundles app/api/** as a module graph
 * of its own, so they cannot import the instance server.ts built. Whoever starts Clutch for the
 * routes (server.ts, the tests' `testClutch`) registers it on globalThis with `setClutch`, and
 * `getClutch()` reads it back. This module imports no part of the system at run time (only the
 * `Clutch` type), so a route bundle stays small (docs/architecture.md "Layers").
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

const forgottenOnStop = new WeakSet<Clutch>();

/**
 * Make `clutch` the process's instance until it stops: once its `stop()` has taken it down, it is
 * forgotten (`clearClutch`), unless another has been made the instance since. Returns `clutch`.
 */
export function setClutch(clutch: Clutch): Clutch {
  (globalThis as Holder)[KEY] = clutch;
  if (!forgottenOnStop.has(clutch)) {
    forgottenOnStop.add(clutch);
    const stop = clutch.stop;
    clutch.stop = async (opts) => {
      await stop(opts);
      clearClutch(clutch);
    };
  }
  return clutch;
}

/** Forget `clutch` if it is the process's instance (it stopped). */
export function clearClutch(clutch: Clutch): void {
  if ((globalThis as Holder)[KEY] === clutch) delete (globalThis as Holder)[KEY];
}
