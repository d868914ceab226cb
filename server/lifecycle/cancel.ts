/**
 * Cancelling work (docs/lifecycle.md "Cancel"; Clutch Protocol §2.1 task.cancel). A cancel reaches
 * the whole subtree: every task under the one cancelled that has not ended gets its own
 * task.cancel, addressed to its assignee (an external agent receives it on its subscription;
 * the orchestrator stops an in-process agent at once), and the approvals those tasks wait for
 * close (approval.rejected, saying why). One append, so a cancel is all or nothing.
 *
 *   cancelRun(store, run_id, by, reason?)    every root task of the run and what is under it
 *   cancelTask(store, task_id, by, reason?)  one task and what is under it
 *   endSubtree(...)                          the same events for a timeout (deadlines.ts)
 *
 * Errors (ClutchError): unknown_run / unknown_task (404), run_ended / task_ended (409) when
 * nothing under it is still open.
 */
import { makeMessage, type ClutchMessage } from "@/lib/protocol";
import type { TaskRow as Task } from "../events/queries";
import { ClutchError } from "../errors";
import type { EventStore } from "../events/store";

/** Who ends the work: a person, an agent (its requester), or Clutch itself. */
export type Actor = {
  agent_id: string;
  role: "human" | "worker" | "orchestrator";
  display_name?: string;
};

const isOpen = (t: Task) => t.ended_at === null;

/** `roots` and every task under them (from `tasks`, the run's tasks), parents before children. */
export function subtree(tasks: Task[], roots: string[]): Task[] {
  const children = new Map<string, Task[]>();
  for (const t of tasks) if (t.parent_task_id) children.set(t.parent_task_id, [...(children.get(t.parent_task_id) ?? []), t]);
  const byId = new Map(tasks.map((t) => [t.id, t]));
  const out: Task[] = [];
  const queue = roots.map((id) => byId.get(id)).filter((t): t is Task => Boolean(t));
  const seen = new Set<string>();
  while (queue.length) {
    const t = queue.shift()!;
    if (seen.has(t.id)) continue;
    seen.add(t.id);
    out.push(t);
    queue.push(...(children.get(t.id) ?? []));
  }
  return out;
}

/**
 * The events that end the open tasks of `tasks` (children first, so no parent is woken by a
 * child's end when it ends too): `ending(task)` for each, then approval.rejected for each
 * approval they wait for.
 */
async function endEvents(store: EventStore, tasks: Task[], by: Actor, ending: (t: Task) => ClutchMessage, closing: string): Promise<ClutchMessage[]> {
  const open = tasks.filter(isOpen).reverse();
  const ids = new Set(open.map((t) => t.id));
  const approvals = (await store.queries.pendingApprovalsOfRuns([...new Set(open.map((t) => t.run_id))])).filter((a) => ids.has(a.task_id));
  return [
    ...open.map(ending),
    ...approvals.map((a) =>
      makeMessage({
        type: "approval.rejected",
        thread_id: a.thread_id,
        run_id: a.run_id,
        task_id: a.task_id,
        from: by,
        to: [{ agent_id: a.agent_id }],
        payload: { approval_id: a.id, by: by.agent_id, ...(by.display_name ? { display_name: by.display_name } : {}), comment: closing },
        meta: { closed_by: "task_ended" },
        idempotency_key: `${a.id}:decision`,
      }),
    ),
  ];
}

/**
 * End every open task in `tasks` with a task.cancel from `by` (or, with `timeout`, a
 * task.timeout from Clutch). Returns the ids of the tasks it ended.
 */
export async function endSubtree(
  store: EventStore,
  tasks: Task[],
  by: Actor,
  how: { kind: "cancel"; reason?: string } | { kind: "timeout"; timeout_ms: number; message: string },
): Promise<string[]> {
  const ending = (t: Task): ClutchMessage => {
    const at = { thread_id: t.thread_id, run_id: t.run_id, task_id: t.id, parent_task_id: t.parent_task_id, from: by, to: t.assignee ? [{ agent_id: t.assignee }] : [] };
    return how.kind === "cancel"
      ? makeMessage({
          type: "task.cancel",
          ...at,
          payload: { requested_by: by.agent_id, ...(how.reason ? { reason: how.reason } : {}) },
          attempt: t.attempts,
          idempotency_key: `cancel:${t.id}:${t.attempts}`,
        })
      : makeMessage({
          type: "task.timeout",
          ...at,
          payload: { timeout_ms: how.timeout_ms, message: how.message },
          attempt: t.attempts,
          idempotency_key: `timeout:${t.id}:${t.attempts}`,
        });
  };
  const closing = how.kind === "cancel" ? `Closed: the task was cancelled${how.reason ? ` (${how.reason})` : ""}` : `Closed: ${how.message}`;
  const events = await endEvents(store, tasks, by, ending, closing);
  if (!events.length) return [];
  await store.append(events);
  return tasks.filter(isOpen).map((t) => t.id);
}

/** Cancel a run: its root tasks and everything under them. Returns the ids of the tasks cancelled. */
export async function cancelRun(store: EventStore, run_id: string, by: Actor, reason?: string): Promise<string[]> {
  const tasks = await store.queries.tasksOfRun(run_id);
  if (!tasks.length) throw new ClutchError("unknown_run", `run ${run_id} does not exist`, 404);
  const ids = new Set(tasks.map((t) => t.id));
  const roots = tasks.filter((t) => !t.parent_task_id || !ids.has(t.parent_task_id)).map((t) => t.id);
  const cancelled = await endSubtree(store, subtree(tasks, roots), by, { kind: "cancel", reason });
  if (!cancelled.length) {
    const run = await store.queries.run(run_id);
    throw new ClutchError("run_ended", `run ${run_id} has already ended (${run?.state ?? "ended"}); there is nothing to cancel`, 409);
  }
  return cancelled;
}

/** Cancel one task and everything under it. Returns the ids of the tasks cancelled. */
export async function cancelTask(store: EventStore, task: Task, by: Actor, reason?: string): Promise<string[]> {
  if (!isOpen(task)) throw new ClutchError("task_ended", `task ${task.id} has already ended (${task.state}); there is nothing to cancel`, 409);
  const tasks = await store.queries.tasksOfRun(task.run_id);
  return endSubtree(store, subtree(tasks, [task.id]), by, { kind: "cancel", reason });
}
