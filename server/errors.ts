/**
 * ClutchError: an error a caller can act on, with a stable `code`, an HTTP `status` and, for
 * validation failures, the zod `issues`. Route handlers and socket acks turn it into
 * `{ error: { code, message, issues? } }`.
 *
 * Route handlers run in Next's bundle, a different module instance from the custom server's,
 * so `isClutchError` checks a global brand rather than `instanceof`.
 */
const BRAND = Symbol.for("clutch.error");

export class ClutchError extends Error {
  readonly [BRAND] = true;
  constructor(
    readonly code: string,
    message: string,
    readonly status = 400,
    readonly issues?: unknown[],
    /** For 429 and 503: seconds after which the same request may succeed (Retry-After). */
    readonly retryAfterSec?: number,
  ) {
    super(message);
    this.name = "ClutchError";
  }
}

/** True for a ClutchError from any copy of this module. */
export function isClutchError(e: unknown): e is ClutchError {
  return typeof e === "object" && e !== null && (e as Record<symbol, unknown>)[BRAND] === true;
}
