/** GET /api/runs/:run_id/export: the run as JSON Lines, one ClutchMessage a line; 404 unknown run (or one the principal may not read). */
import { ClutchError } from "@/server/errors";
import { exportRun } from "@/server/runs/runs";
import { getClutch } from "@/server/instance";
import { z } from "zod";
import { ndjson } from "../../../_lib/http";
import { route } from "../../../_lib/route";

export const dynamic = "force-dynamic";

export const GET = route({ auth: "signed-in", params: z.object({ run_id: z.string().min(1) }) }, async ({ principal, params: { run_id } }) => {
  const { store, identity } = getClutch();
  const head = await store.runHead(run_id);
  if (!head || !(await identity.channels.canRead(principal, head.thread_id))) throw new ClutchError("unknown_run", `run ${run_id} has no events`, 404);
  return ndjson(exportRun(store, run_id), { "content-disposition": `attachment; filename="${run_id}.jsonl"` });
});
