/** GET /api/runs/:run_id/export: the run as JSON Lines, one ClutchMessage a line; 404 unknown run (or one the principal may not read). */
import { ClutchError } from "@/server/errors";
import { exportRun } from "@/server/runs/runs";
import { getClutch } from "@/server/instance";
import { z } from "zod";
import { route } from "../../../_lib/route";

export const dynamic = "force-dynamic";

export const GET = route({ auth: "signed-in", params: z.object({ run_id: z.string().min(1) }) }, async ({ principal, params: { run_id } }) => {
  const { store, identity } = getClutch();
  const first = (await store.read({ run_id }, { limit: 1 })).events[0];
  if (!first || !(await identity.channels.canRead(principal, first.thread_id))) throw new ClutchError("unknown_run", `run ${run_id} has no events`, 404);
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
