/**
 * Who may cancel or retry work (docs/lifecycle.md; docs/identity.md "Every door is closed by
 * default"): a person who may read the run's channel; an agent key only for a task it requested
 * itself, or one under such a task. A task or run in a channel one may not read answers like one
 * that does not exist (404).
 */
import { z } from "zod";
import { ClutchError } from "../errors";
import type { TaskRow } from "../events/queries";
import type { Identity } from "../auth/identity";
import type { Principal } from "../auth/principal";
import type { EventStore } from "../events/store";
import type { Actor } from "./cancel";

/** The body of a cancel or a retry: `{ reason? }`, shown to everyone with the events (may be empty). */
export const ReasonBody = z.strictObject({ reason: z.string().trim().max(500, "reason is at most 500 characters").optional() });

/** The `from` of the events a principal's cancel or retry appends. */
export function actorOf(p: Principal): Actor {
  if (p.kind === "person") return { agent_id: p.agent_id, role: "human", display_name: p.name };
  return p.kind === "agent" ? { agent_id: p.agent_id, role: "worker" } : { agent_id: "agent:orchestrator", role: "orchestrator" };
}

/**
 * The task `task_id` when `p` may end or retry it. Throws unknown_task (404) when it does not
 * exist or its channel is not readable by `p`; not_your_task (403) for an agent key that did not
 * request it or a task above it.
 */
export async function taskFor(p: Principal, task_id: string, deps: { store: EventStore; identity: Identity }): Promise<TaskRow> {
  const task = await deps.store.queries.task(task_id);
  if (!task || !(await deps.identity.channels.canRead(p, task.thread_id))) throw new ClutchError("unknown_task", `task ${task_id} does not exist`, 404);
  if (p.kind !== "agent") return task;
  for (let t: TaskRow | null = task; t; t = t.parent_task_id ? await deps.store.queries.task(t.parent_task_id) : null) {
    if (t.requester === p.agent_id) return task;
  }
  throw new ClutchError("not_your_task", `task ${task_id} was not requested by ${p.agent_id}; an agent may only cancel or retry work it asked for`, 403);
}
