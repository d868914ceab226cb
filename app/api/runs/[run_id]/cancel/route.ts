/**
 * POST /api/runs/:run_id/cancel { reason? } (the body may be empty): cancel the run, every task of it that has not ended
 * (server/lifecycle/cancel.ts), by a signed-in person who may read its channel. 200 { run,
 * cancelled: [task_id] }; 400 invalid_body; 404 unknown_run; 409 run_ended.
 */
import { z } from "zod";
import { ClutchError } from "@/server/errors";
import { runDetail } from "@/server/events/runs";
import { actorOf, ReasonBody } from "@/server/lifecycle/authorize";
import { cancelRun } from "@/server/lifecycle/cancel";
import { getClutch } from "@/server/instance";
import { json } from "../../../_lib/http";
import { route } from "../../../_lib/route";

export const dynamic = "force-dynamic";

export const POST = route({ auth: "person", params: z.object({ run_id: z.string().min(1) }), body: ReasonBody, emptyBody: true }, async ({ principal, params: { run_id }, body }) => {
  const { store, identity } = getClutch();
  await identity.readableRun(principal, run_id);
  const cancelled = await cancelRun(store, run_id, actorOf(principal), body.reason || undefined);
  const detail = await runDetail(store.queries, run_id);
  if (!detail) throw new ClutchError("unknown_run", `run ${run_id} does not exist`, 404);
  return json({ run: detail.run, cancelled });
});
