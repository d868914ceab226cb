/** GET /api/workflows/<name>: `{ workflow: WorkflowDetail }` with its source and steps; 404 unknown_workflow. */
import { z } from "zod";
import { ClutchError } from "@/server/errors";
import { getClutch } from "@/server/instance";
import { workflowDetail } from "@/server/workflows/summaries";
import { json } from "../../_lib/http";
import { route } from "../../_lib/route";

export const dynamic = "force-dynamic";

export const GET = route({ auth: "signed-in", params: z.object({ name: z.string().min(1) }) }, async ({ params }) => {
  const wf = await getClutch().workflows.get(params.name);
  if (!wf) throw new ClutchError("unknown_workflow", `no workflow ${params.name}; GET /api/workflows lists them`, 404);
  return json({ workflow: workflowDetail(wf, getClutch().registry) });
});
