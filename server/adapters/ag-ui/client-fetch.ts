/**
 * The fetch the AG-UI driver gives `@ag-ui/client`'s HttpAgent (docs/adapters.md "AG-UI agents
 * in Clutch"): the platform's `fetch`, with the response body passed through a stream that never
 * errors on its reader.
 *
 * Why: when the agent's connection drops in the middle of a run, the HttpAgent's reader errors,
 * and the client's clean-up cancels that errored reader and re-throws the rejection outside any
 * caller (`@ag-ui/client` 1.0 `runHttpRequest`), which would be an unhandled rejection in Clutch's
 * process. Here a lost body instead ends the stream as if it closed, and `lost()` says what broke
 * (e.g. "terminated: other side closed"): the driver then sees a stream that ended before its run
 * did, and tries again. A body that breaks because the run was aborted (`signal`) errors with an
 * AbortError whatever the abort's reason, the one error the client's clean-up lets pass.
 */
import type { HttpAgentFetchFn } from "@ag-ui/client";

export interface GuardedFetch {
  fetch: HttpAgentFetchFn;
  /** What broke the last response's body before it ended, or null. */
  lost(): Error | null;
}

/** The error's message with its cause's, e.g. "terminated: other side closed". */
function describe(err: unknown): string {
  const e = err as { message?: string; cause?: { message?: string } };
  const message = e?.message ?? String(err);
  return e?.cause?.message ? `${message}: ${e.cause.message}` : message;
}

/** A fetch for one run (see the module's docstring); `signal` is the run's abort signal. */
export function guardedFetch(signal: AbortSignal, base: typeof fetch = fetch): GuardedFetch {
  let lost: Error | null = null;
  const guarded: HttpAgentFetchFn = async (url, init) => {
    lost = null;
    const response = await base(url, init);
    if (!response.body) return response;
    const reader = response.body.getReader();
    const body = new ReadableStream<Uint8Array>({
      async pull(controller) {
        try {
          const { done, value } = await reader.read();
          if (done) controller.close();
          else controller.enqueue(value);
        } catch (err) {
          if (signal.aborted) {
            // Whatever the abort's reason, the client must see an AbortError (it drops only those).
            controller.error(new DOMException("The run was aborted", "AbortError"));
            return;
          }
          lost = new Error(describe(err));
          controller.close();
        }
      },
      cancel(reason) {
        return reader.cancel(reason).catch(() => undefined);
      },
    });
    return new Response(body, { status: response.status, statusText: response.statusText, headers: response.headers });
  };
  return { fetch: guarded, lost: () => lost };
}
