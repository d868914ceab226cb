/**
 * A fork beside its parent (`GET /api/runs/:id/compare`; docs/channels.md "Forks"): both runs'
 * summaries and what each told people after the fork point, with the figures that differ
 * (lib/fold/fork-compare.ts).
 */
import type { ForkCompareResponse } from "@/lib/api/types";
import { compareFork } from "@/lib/fold/fork-compare";
import { ClutchError } from "../errors";
import type { EventStore } from "../events/store";
import { runDetail } from "../events/runs";

/**
 * Compare run `run_id` (a fork) with the run it was forked from. `canRead` says whether the
 * caller may read a channel. Throws ClutchError unknown_run (404) for a run that does not exist
 * or that the caller may not read (either side), not_a_fork (400) for a run that is no fork.
 */
export async function compareWithParent(store: EventStore, run_id: string, canRead: (thread_id: string) => Promise<boolean>): Promise<ForkCompareResponse> {
  const missing = (id: string) => new ClutchError("unknown_run", `run ${id} does not exist (a run appears with its first task)`, 404);
  const fork = await runDetail(store.queries, run_id);
  if (!fork || !(await canRead(fork.run.thread_id))) throw missing(run_id);
  const from = fork.run.forked_from;
  if (!from) throw new ClutchError("not_a_fork", `run ${run_id} was not forked from another run, so there is nothing to compare it with`, 400);
  const parent = await runDetail(store.queries, from.run_id);
  if (!parent || !(await canRead(parent.run.thread_id))) throw missing(from.run_id);
  const [parentEvents, forkEvents] = await Promise.all([store.readAll({ run_id: from.run_id }), store.readAll({ run_id })]);
  const comparison = compareFork(
    parentEvents.filter((e) => e.seq > from.seq),
    forkEvents,
  );
  return { at_seq: from.seq, runs: { parent: parent.run, fork: fork.run }, ...comparison };
}
