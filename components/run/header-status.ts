/**
 * The run view header's status (docs/channels.md "Run states"): the run now, as the channel's
 * card and /runs say it. Pure.
 *
 *   the run's events loaded  → their fold at the newest event (lib/fold/run-graph.ts `runStatusAt`)
 *   else                     → the server's RunSummary (the same fold over the projections)
 *   neither yet              → null (no badge)
 *
 * Cancel run is offered while the run is in progress: running or waiting on someone.
 *
 * Its clock (`headerDurationMs`): an ended run's duration, first event to the event that ended
 * it; a run that has not ended counts on to now (the header re-reads the time every second while
 * the run goes on), never less than up to its newest event. A clock computed from the newest event
 * alone would stand still while the run waits for something.
 */
import { runDurationMs, runStatusAt, type RunGraphState } from "@/lib/fold/run-graph";
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

/** True while the run in `head` has not ended (its clock keeps counting). */
export function clockRunning(head: Pick<RunGraphState, "count" | "started_at" | "ended_at"> | null): boolean {
  return Boolean(head && head.count > 0 && head.started_at && !head.ended_at);
}

/**
 * The duration the header shows for the run in `head` at time `now` (ms since the epoch), or null
 * before its first event: to its end once it ended, else to `now` (see the module doc).
 */
export function headerDurationMs(head: RunGraphState | null, now: number): number | null {
  if (!head || head.count === 0) return null;
  const toNewest = runDurationMs(head);
  if (!clockRunning(head)) return toNewest;
  const start = Date.parse(head.started_at!);
  if (!Number.isFinite(start)) return toNewest;
  return Math.max(toNewest ?? 0, now - start, 0);
}
