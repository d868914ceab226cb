/**
 * POST /api/tasks/:task_id/retry { reason? } (the body may be empty): start a new attempt of a task that failed, was
 * cancelled or timed out (server/lifecycle/retry-task.ts). A person who may read its channel, or
 * the agent that requested it (or a task above it). 200 { task, attempt }; 400 invalid_body;
 * 403 not_your_task; 404 unknown_task; 409 task_not_retryable / parent_ended.
 */
import { z } from "zod";
import { toTaskSummary } from "@/server/events/runs";
import { actorOf, taskFor, ReasonBody } from "@/server/lifecycle/authorize";
import { retryTask } from "@/server/lifecycle/retry-task";
import { getClutch } from "@/server/instance";
import { json } from "../../../_lib/http";
import { route } from "../../../_lib/route";

export const dynamic = "force-dynamic";

export const POST = route({ auth: "signed-in", params: z.object({ task_id: z.string().min(1) }), body: ReasonBody, emptyBody: true }, async ({ principal, params: { task_id }, body }) => {
  const rt = getClutch();
  const task = await taskFor(principal, task_id, rt);
  const attempt = await retryTask(rt.store, task, actorOf(principal), body.reason || undefined);
  return json({ task: toTaskSummary((await rt.store.queries.task(task_id)) ?? task), attempt });
});
