/**
 * A person retries a task that ended without a result (docs/lifecycle.md "Retries"; Clutch
 * Protocol §2.1: a repeated task.request is a new attempt). The task's newest request is sent
 * again, to the same agent (or to the router, when it was still being routed), from the same
 * requester, with `attempt` one higher and `meta.retried_by` naming the person. The agent carries
 * on from the recorded conversation: its earlier tool calls and their results are reused.
 *
 * Errors (ClutchError, 409): task_not_retryable when the task succeeded or has not ended;
 * parent_ended when the task it reports to has ended (retry that one instead).
 */
import { makeMessage } from "@/lib/protocol";
import { ClutchError } from "../errors";
import type { TaskRow } from "../events/queries";
import type { EventStore } from "../events/store";
import type { Actor } from "./cancel";

/** Start attempt `task.attempts + 1` of `task`; returns that attempt's number. */
export async function retryTask(store: EventStore, task: TaskRow, by: Actor, reason?: string): Promise<number> {
  if (task.ended_at === null) throw new ClutchError("task_not_retryable", `task ${task.id} is still ${task.state}; only a task that ended can be retried`, 409);
  if (task.state === "succeeded") throw new ClutchError("task_not_retryable", `task ${task.id} succeeded; only a failed, cancelled or timed-out task can be retried`, 409);
  const parent = task.parent_task_id ? await store.queries.task(task.parent_task_id) : null;
  if (parent && parent.ended_at !== null) {
    throw new ClutchError("parent_ended", `task ${task.id} reports to task ${parent.id}, which has ended (${parent.state}); retry ${parent.id} instead`, 409);
  }
  const request = await store.queries.latestRequest(task.run_id, task.id);
  if (!request) throw new ClutchError("unknown_task", `task ${task.id} has no request to send again`, 404);
  const attempt = task.attempts + 1;
  const { v: _v, id: _id, ts: _ts, seq: _seq, idempotency_key: _k, meta, ...rest } = request;
  await store.append(
    makeMessage({
      ...rest,
      attempt,
      meta: { ...(meta ?? {}), retried_by: by.agent_id, ...(by.display_name ? { retried_by_name: by.display_name } : {}), ...(reason ? { retry_reason: reason } : {}) },
      idempotency_key: `retry:${task.id}:${attempt}`,
    }),
  );
  return attempt;
}
