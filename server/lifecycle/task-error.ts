/**
 * A task.error that Clutch itself writes (from agent:orchestrator) to end a task it cannot carry
 * on: a dispatch the policy refused, a request no agent would take in time, a webhook that never
 * answered (docs/lifecycle.md). `at` is the task (a request event or anything with its ids);
 * `attempt` the attempt it ends.
 */
import { makeMessage, type ClutchMessage, type Participant } from "@/lib/protocol";
import { ORCHESTRATOR } from "../router/router";

export function clutchTaskError(
  at: { thread_id: string; run_id: string; task_id: string; parent_task_id?: string | null },
  to: Participant[],
  payload: { code: string; message: string; retryable: boolean; details?: Record<string, unknown> },
  idempotency_key: string,
  attempt?: number,
): ClutchMessage {
  return makeMessage({
    type: "task.error",
    thread_id: at.thread_id,
    run_id: at.run_id,
    task_id: at.task_id,
    parent_task_id: at.parent_task_id ?? null,
    from: ORCHESTRATOR,
    to,
    payload,
    ...(attempt ? { attempt } : {}),
    idempotency_key,
  });
}
