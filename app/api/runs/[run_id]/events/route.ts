/** GET /api/runs/:run_id/events?after=<seq>&limit=<n> (or ?before=): EventPage in seq order; 404 for a run in a channel the principal may not read. */
import { z } from "zod";
import { ClutchError } from "@/server/errors";
import { getClutch } from "@/server/instance";
import { json, pageQuery } from "../../../_lib/http";
import { route } from "../../../_lib/route";

export const dynamic = "force-dynamic";

export const GET = route({ auth: "signed-in", params: z.object({ run_id: z.string().min(1) }) }, async ({ req, principal, params: { run_id } }) => {
  const q = pageQuery(req.url);
  const { store, identity } = getClutch();
  const first = (await store.read({ run_id }, { limit: 1 })).events[0];
  if (first && !(await identity.channels.canRead(principal, first.thread_id))) throw new ClutchError("unknown_run", `run ${run_id} does not exist`, 404);
  return json(await store.read({ run_id }, q));
});
