/**
 * POST /api/workflows/<name>/runs `{ text, thread_id? }`: start a run of the workflow (docs/workflows.md)
 * in a channel the caller may read (default: the workspace's first), with `text` as the request.
 * 201 `{ run_id, task_id, thread_id }`; people watch it live in the channel and the run view.
 * 404 unknown_workflow / unknown_thread; 409 no_workspace. `uncovered` names the steps no agent
 * offers the capability of now (server/workflows/coverage.ts): the run starts, and such a step
 * waits for an agent as routing says (`on_no_match`).
 */
import { z } from "zod";
import { ClutchError } from "@/server/errors";
import { getClutch } from "@/server/instance";
import { requester } from "@/server/runs/remote";
import { WorkflowRunner } from "@/server/workflows/runner";
import { uncoveredSteps } from "@/server/workflows/coverage";
import { json } from "../../../_lib/http";
import { route } from "../../../_lib/route";

export const dynamic = "force-dynamic";

const Body = z.strictObject({
  text: z.string().trim().min(1, "text is the request the workflow works on").max(20_000),
  thread_id: z.string().min(1).optional(),
});

export const POST = route({ auth: "signed-in", params: z.object({ name: z.string().min(1) }), body: Body }, async ({ principal, params, body }) => {
  const clutch = getClutch();
  if (clutch.agents() === "none") throw new ClutchError("no_workspace", "this Clutch runs without a workspace (CLUTCH_WORKSPACE=none): no agent could do the workflow's steps");
  const wf = await clutch.workflows.get(params.name);
  if (!wf) throw new ClutchError("unknown_workflow", `no workflow ${params.name}; GET /api/workflows lists them`, 404);
  const uncovered = uncoveredSteps(wf.workflow, clutch.registry);
  const thread_id = body.thread_id ?? clutch.channels[0]?.thread_id;
  if (!thread_id || !(await clutch.store.getThreads([thread_id])).length || !(await clutch.identity.channels.canRead(principal, thread_id))) {
    throw new ClutchError("unknown_thread", body.thread_id ? `no channel ${body.thread_id} that you may use` : "this Clutch has no channel to run in; name one with thread_id", 404);
  }
  const started = await WorkflowRunner.startRun(clutch.store, wf, { thread_id, from: requester(principal), text: body.text });
  return json({ ...started, thread_id, uncovered }, 201);
});
