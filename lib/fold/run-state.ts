/**
 * Run state, derived from the states of a run's root tasks (those without a parent in the run).
 * Pure; shared by the server's `runs` projection and the browser. What people read is the run's
 * status (lib/fold/run-status.ts: whom it waits on, Not done, who cancelled it), folded on it.
 *
 *   any root not ended          → running
 *   all ended, any failed       → failed
 *   all ended, any timed out    → timed_out
 *   all ended, any cancelled    → cancelled
 *   all succeeded               → succeeded
 */
import { TERMINAL_STATES, type TaskState } from "./task-state";

export const RUN_STATES = ["running", "succeeded", "failed", "cancelled", "timed_out"] as const;
export type RunState = (typeof RUN_STATES)[number];

/** The run's state from its root tasks' states; `running` for a run with no root task yet. */
export function runStateOf(rootStates: readonly TaskState[]): RunState {
  if (rootStates.length === 0 || rootStates.some((s) => !TERMINAL_STATES.has(s))) return "running";
  for (const s of ["failed", "timed_out", "cancelled"] as const) if (rootStates.includes(s)) return s;
  return "succeeded";
}
