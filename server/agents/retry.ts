/**
 * Trying again after a passing failure (docs/lifecycle.md "Retries"): which model errors are
 * worth another attempt, how long to wait before it, and a wait a cancel cuts short.
 */
import { APICallError } from "ai";

/** The wait before attempt `failed + 1` after `failed` failures: `first_ms` doubled each time, at most 60 s. */
export function backoff(first_ms: number, failed: number): number {
  return Math.min(first_ms * 2 ** (failed - 1), 60_000);
}

/** "1.5 s", "200 ms": a delay as people read it. */
export function formatDelay(ms: number): string {
  return ms >= 1000 ? `${Number((ms / 1000).toFixed(1))} s` : `${ms} ms`;
}

/** Resolves after `ms`, or at once when `signal` aborts (never rejects). */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  if (signal?.aborted || ms <= 0) return Promise.resolve();
  return new Promise((resolve) => {
    const done = () => {
      clearTimeout(timer);
      signal?.removeEventListener("abort", done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal?.addEventListener("abort", done, { once: true });
  });
}

/**
 * Whether a model call's failure may pass: the provider answered 408, 409, 429 or 5xx, or the
 * network failed (the AI SDK marks both `isRetryable`). A bad request, a wrong key or a cancel is not.
 */
export function isPassingModelError(err: unknown): boolean {
  return APICallError.isInstance(err) && err.isRetryable;
}

/** One line saying what went wrong with a model call, for people and for task.error. */
export function describeModelError(err: unknown): string {
  if (APICallError.isInstance(err)) {
    const status = err.statusCode ? `HTTP ${err.statusCode}` : "no answer";
    return `${status} from ${err.url}: ${err.message}`.slice(0, 500);
  }
  return (err instanceof Error ? err.message : String(err)).slice(0, 500);
}
