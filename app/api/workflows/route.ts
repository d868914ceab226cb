/**
 * Workflows (Clutch Protocol §3.4; docs/workflows.md).
 *
 * GET /api/workflows: `{ workflows: WorkflowSummary[] }` by name.
 * POST /api/workflows `{ source, version? }`: a person saves a workflow's YAML or JSON: a new one
 * (201) or the next version of the one its `workflow:` names (200). `version` is the version the
 * editor started from: a save over someone else's is a 409 workflow_changed. 400 invalid_workflow
 * lists every problem with its path (`steps.1.capability`). The workflow's `uncovered` lists the
 * steps no agent can take (server/workflows/coverage.ts): saved all the same, flagged.
 */
import { z } from "zod";
import type { WorkflowSummary } from "@/lib/api/types";
import { getClutch } from "@/server/instance";
import { workflowDetail, workflowSummary } from "@/server/workflows/summaries";
import { json } from "../_lib/http";
import { route } from "../_lib/route";

export const dynamic = "force-dynamic";

export const GET = route({ auth: "signed-in" }, async () => {
  const workflows: WorkflowSummary[] = (await getClutch().workflows.list()).map(workflowSummary);
  return json({ workflows });
});

const Body = z.strictObject({
  source: z.string().min(1, "source is the workflow's YAML or JSON").max(200_000, "a workflow is limited to 200,000 characters"),
  version: z.number().int().min(0).optional(),
});

export const POST = route({ auth: "person", body: Body }, async ({ principal, body }) => {
  const clutch = getClutch();
  const saved = await clutch.workflows.save(body.source, principal.agent_id, body.version);
  return json({ workflow: workflowDetail(saved, clutch.registry) }, saved.version === 1 ? 201 : 200);
});
