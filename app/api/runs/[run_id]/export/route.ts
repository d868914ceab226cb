/** GET /api/runs/:run_id/export: the run as JSON Lines, one ClutchMessage a line; 404 unknown run. */
import { ClutchError } from "@/server/errors";
import { exportRun } from "@/server/runs/runs";
import { getClutch } from "@/server/instance";
import { route } from "../../../_lib/http";

export const dynamic = "force-dynamic";

export const GET = route(async (_req, { params }: { params: Promise<{ run_id: string }> }) => {
  const { run_id } = await params;
  const { store } = getClutch();
  if (!(await store.read({ run_id }, { limit: 1 })).events.length) throw new ClutchError("unknown_run", `run ${run_id} has no events`, 404);
  const lines = exportRun(store, run_id);
  const body = new ReadableStream<Uint8Array>({
    async pull(controller) {
      const next = await lines.next();
      if (next.done) controller.close();
      else controller.enqueue(new TextEncoder().encode(next.value));
    },
  });
  return new Response(body, {
    headers: {
      "content-type": "application/x-ndjson; charset=utf-8",
      "content-disposition": `attachment; filename="${run_id}.jsonl"`,
      "cache-control": "no-store",
    },
  });
});
