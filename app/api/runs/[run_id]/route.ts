/** GET /api/runs/:run_id: { run: RunSummary, tasks: TaskSummary[] }; 404 unknown run. */
import { ClutchError } from "@/server/errors";
import { runDetail } from "@/server/events/runs";
import { getClutch } from "@/server/instance";
import { json, route } from "../../_lib/http";

export const dynamic = "force-dynamic";

export const GET = route(async (_req, { params }: { params: Promise<{ run_id: string }> }) => {
  const { run_id } = await params;
  const detail = await runDetail(getClutch().store.queries, run_id);
  if (!detail) throw new ClutchError("unknown_run", `run ${run_id} does not exist (a run appears with its first task)`, 404);
  return json(detail);
});
