/**
 * Clutch as an AG-UI client (docs/adapters.md "AG-UI agents in Clutch (runtime ag-ui)"): a
 * workspace agent whose manifest names `runtime: { kind: "ag-ui", url, headers }` is an AG-UI
 * agent, spoken to over HTTP with the official `@ag-ui/client` HttpAgent (SSE, AG-UI 1.0).
 *
 * Each wake of a task sends one run (`RunAgentInput`, POSTed to `url` with the manifest's headers,
 * `${NAME}`s filled in from the environment):
 *   threadId        the Clutch task id (the same for every run of the task)
 *   runId           `<task id>.<attempt>.<n>`: run n of the attempt (client-log.ts)
 *   messages        the request's text as the user's message, then what the agent said in this
 *                   attempt and the answers to its questions
 *   tools, context  [] (the agent's tools are its own); state {}
 *   forwardedProps  { clutch: { thread_id, run_id, task_id, agent_id } }
 *   resume          after an interrupt: one `{ interruptId, status: "resolved", payload }` per
 *                   question, with its answer
 * and maps what streams back into the task's events (client-events.ts): a streamed reply, tool
 * calls and results, steps as progress, the result, an error, or questions (the run's interrupts;
 * the wake then ends, and the wake that follows the answers resumes the run).
 *
 * Failures: a connection that cannot be made, HTTP 408/429/5xx, or a stream that ends before its
 * run did (RUN_FINISHED or RUN_ERROR) is tried again, the same run, `lifecycle.retry_attempts`
 * times in all with backoff (each retry a task.progress "retrying"); then task.error
 * AG_UI_UNREACHABLE (retryable). Another HTTP status is task.error AG_UI_HTTP_ERROR, a stream
 * that breaks the protocol AG_UI_PROTOCOL_ERROR (neither retryable). A Clutch cancel or timeout,
 * or a person's Stop on the reply being streamed, aborts the HTTP request at once and stores
 * nothing more.
 */
import { HttpAgent } from "@ag-ui/client";
import { log } from "../../log";
import { formatDelay, withRetries } from "../../agents/retry";
import { expandEnv, expandHeaders, type DriverWake, type RuntimeDriver } from "../../agents/driver";
import { AgUiRunMapper } from "./client-events";
import { guardedFetch } from "./client-fetch";
import { agUiRunId, agUiThreadId, nextRun } from "./client-log";

/** Why a try failed; `again`: worth another try of the same run. */
interface Failure {
  code: "AG_UI_UNREACHABLE" | "AG_UI_HTTP_ERROR" | "AG_UI_PROTOCOL_ERROR";
  message: string;
  again: boolean;
  status?: number;
}

/** What a failed `runAgent` says: a passing HTTP status or a network error is worth another try. */
export function classify(err: unknown): Failure {
  const e = err as { status?: unknown; message?: string; cause?: { message?: string } };
  const message = `${e?.message ?? String(err)}${e?.cause?.message ? ` (${e.cause.message})` : ""}`.slice(0, 500);
  if (typeof e?.status === "number") {
    const passing = e.status === 408 || e.status === 429 || e.status >= 500;
    return { code: passing ? "AG_UI_UNREACHABLE" : "AG_UI_HTTP_ERROR", message, again: passing, status: e.status };
  }
  // undici's network failures ("fetch failed", "terminated") are TypeErrors; a bad event is a ZodError, bad JSON a SyntaxError.
  if (err instanceof TypeError) return { code: "AG_UI_UNREACHABLE", message, again: true };
  return { code: "AG_UI_PROTOCOL_ERROR", message, again: false };
}

export class AgUiClientDriver implements RuntimeDriver {
  async wake(w: DriverWake): Promise<void> {
    const runtime = w.ctx.agent.manifest.runtime;
    if (runtime.kind !== "ag-ui" || w.signal.aborted) return;
    const agent_id = w.ctx.agent.agent_id;
    const next = nextRun(await w.events(), w.request, agent_id);
    if (next.state !== "run") return;
    const url = expandEnv(runtime.url);
    const headers = expandHeaders(runtime.headers);
    const ids = { thread_id: agUiThreadId(w.ctx.task_id), run_id: agUiRunId(w.ctx.task_id, w.attempt, next.run), run: next.run };
    const forwardedProps = { clutch: { thread_id: w.ctx.thread_id, run_id: w.ctx.run_id, task_id: w.ctx.task_id, agent_id } };

    // Aborted with the wake's signal, or by a person's Stop on the reply (AgUiRunMapper's onStop);
    // without a reason: the client lets only an AbortError pass quietly (client-fetch.ts).
    const abort = new AbortController();
    const stop = () => abort.abort();
    w.signal.addEventListener("abort", stop, { once: true });
    let mapper = new AgUiRunMapper(w, ids, stop);
    try {
      const { outcome: failure, attempts } = await withRetries<Failure | null>(
        { attempts: w.retry.attempts, first_ms: w.retry.delay_ms, signal: w.signal },
        async () => {
          mapper = new AgUiRunMapper(w, ids, stop);
          const failure = await this.once(w, url, headers, ids, next, forwardedProps, abort, mapper);
          return { outcome: failure, again: failure?.again ?? false };
        },
        async (n, delay_ms, f) => {
          const message = `${w.ctx.agent.card.display.name} (AG-UI) could not be reached (${f?.message}); trying again in ${formatDelay(delay_ms)} (attempt ${n} of ${w.retry.attempts})`;
          await w.store.append(
            w.ctx.envelope("task.progress", { message, status: "retrying" }, { idempotency_key: `${w.ctx.instance_id}:ag-ui:${w.attempt}:${ids.run}:retry:${n}`, meta: { ag_ui: ids } }),
          );
        },
      );
      if (w.signal.aborted || abort.signal.aborted || !failure) return;
      log.warn({ agent_id, url, failure, attempts }, "AG-UI run failed");
      const where = `${agent_id} (AG-UI, ${url || runtime.url})`;
      const message = failure.again ? `${where} could not be reached after ${attempts} attempts: ${failure.message}` : `${where}: ${failure.message}`;
      await mapper.fail(failure.code, message, failure.again, failure.status ? { status: failure.status } : undefined);
    } finally {
      w.signal.removeEventListener("abort", stop);
      mapper.interrupt(w.signal.aborted ? "the task was stopped" : "the run ended");
    }
  }

  /** One try of the run; null when it ended (its end is stored) or the wake was aborted. Throws what the store refuses. */
  private async once(
    w: DriverWake,
    url: string,
    headers: Record<string, string>,
    ids: { thread_id: string; run_id: string; run: number },
    next: Extract<ReturnType<typeof nextRun>, { state: "run" }>,
    forwardedProps: Record<string, unknown>,
    abort: AbortController,
    mapper: AgUiRunMapper,
  ): Promise<Failure | null> {
    const guarded = guardedFetch(abort.signal);
    const agent = new HttpAgent({ url, headers, threadId: ids.thread_id, initialMessages: next.messages, initialState: {}, fetch: guarded.fetch });
    let failed: unknown = null;
    let refused: unknown = null;
    await agent.runAgent(
      { runId: ids.run_id, tools: [], context: [], forwardedProps, abortController: abort, ...(next.resume.length ? { resume: next.resume } : {}) },
      {
        onEvent: async ({ event }) => {
          try {
            await mapper.onEvent(event);
          } catch (err) {
            refused = err;
            throw err;
          }
        },
        // The failure is the driver's to report: `stopPropagation` keeps the client from logging it
        // and throwing it again (honoured by @ag-ui/client 1.0's onError, though its type leaves it out).
        onRunFailed: ({ error }) => {
          failed = error;
          return { stopPropagation: true } as never;
        },
      },
    );
    if (refused) {
      mapper.interrupt("the agent's events could not be stored");
      throw refused;
    }
    if (w.signal.aborted || abort.signal.aborted || mapper.ended) return null;
    mapper.interrupt("the connection to the agent was lost");
    if (failed) return classify(failed);
    const lost = guarded.lost();
    return { code: "AG_UI_UNREACHABLE", message: `the stream ended before the run did${lost ? ` (${lost.message})` : ""}`, again: true };
  }
}
