/** GET /api/runs/:run_id: { run: RunSummary, tasks: TaskSummary[] }; 404 unknown run (or one in a channel the principal may not read). */
import { z } from "zod";
import { ClutchError } from "@/server/errors";
import { runDetail } from "@/server/events/runs";
import { getClutch } from "@/server/instance";
import { json } from "../../_lib/http";
import { route } from "../../_lib/route";

export const dynamic = "force-dynamic";

export const GET = route({ auth: "signed-in", params: z.object({ run_id: z.string().min(1) }) }, async ({ principal, params: { run_id } }) => {
  const { store, identity } = getClutch();
  const detail = await runDetail(store.queries, run_id);
  if (!detail || !(await identity.channels.canRead(principal, detail.run.thread_id))) {
    throw new ClutchError("unknown_run", `run ${run_id} does not exist (a run appears with its first task)`, 404);
  }
  return json(detail);
});
