/**
 * The run view header's status (docs/channels.md "Run states"): the run now, as the channel's
 * card and /runs say it. Pure.
 *
 *   the run's events loaded  → their fold at the newest event (lib/fold/run-graph.ts `runStatusAt`)
 *   else                     → the server's RunSummary (the same fold over the projections)
 *   neither yet              → null (no badge)
 *
 * Cancel run is offered while the run is in progress: running or waiting on someone.
 */
import { runStatusAt, type RunGraphState } from "@/lib/fold/run-graph";
import type { RunStatus, RunStatusFacts } from "@/lib/fold/run-status";

/** The status the header shows: from `head` (the run's events, all loaded) when it has any, else `summary`. */
export function headerStatus(summary: RunStatusFacts | undefined, head: RunGraphState | null): RunStatusFacts | null {
  if (head && head.count > 0) return runStatusAt(head);
  return summary ?? null;
}

/** True while a run in `status` is in progress (running, or waiting on someone): it can be cancelled. */
export function inProgress(status: RunStatus): boolean {
  return status === "running" || status === "waiting";
}
