/**
 * Trying again after a passing failure (docs/lifecycle.md "Retries"): the one retry loop (model
 * calls, MCP calls, webhook deliveries), which model errors are worth another attempt, how long to
 * wait before it, a wait a cancel cuts short, and the task.progress that tells people.
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

/**
 * Calls `once(n)` (n = 1, 2, …) until it says its outcome cannot improve (`again: false`),
 * `attempts` calls were made, or `signal` aborts; before each wait of `backoff(first_ms, n)` ms,
 * `onRetry(n + 1, delay_ms, outcome)` (to record the retry). Resolves with the last outcome and
 * the number of calls made.
 */
export async function withRetries<T>(
  opts: { attempts: number; first_ms: number; signal?: AbortSignal },
  once: (n: number) => Promise<{ outcome: T; again: boolean }>,
  onRetry?: (next: number, delay_ms: number, outcome: T) => Promise<void>,
): Promise<{ outcome: T; attempts: number }> {
  for (let n = 1; ; n++) {
    const { outcome, again } = await once(n);
    if (!again || n >= opts.attempts || opts.signal?.aborted) return { outcome, attempts: n };
    const delay_ms = backoff(opts.first_ms, n);
    await onRetry?.(n + 1, delay_ms, outcome);
    await sleep(delay_ms, opts.signal);
    if (opts.signal?.aborted) return { outcome, attempts: n };
  }
}

/**
 * The task.progress payload of a retry (status "retrying"): "<what> failed (<error>); trying
 * again in 2 s (attempt 2 of 3)", with `retry` holding the same as data.
 */
export function retryNotice(what: { of: "model" | "tool"; label: string; tool?: string }, error: unknown, next: number, max_attempts: number, delay_ms: number) {
  const said = typeof error === "string" ? error : ((error as { message?: string }).message ?? String(error));
  return {
    message: `${what.label} failed (${said}); trying again in ${formatDelay(delay_ms)} (attempt ${next} of ${max_attempts})`,
    status: "retrying",
    retry: { of: what.of, ...(what.tool ? { tool: what.tool } : {}), attempt: next, max_attempts, delay_ms, error },
  };
}
