/**
 * GET /api/runs/:run_id/events/stream?after=<seq>: the run's events with seq > after (default 0)
 * up to its newest when asked, as JSON Lines (`text/x-ndjson`, one StoredEvent a line, in seq
 * order), written while they are read, so the run page folds the first while the rest arrive
 * (docs/architecture.md "Reading a run"). Later events come over the socket (subscribe with the
 * last seq received). An unknown run answers an empty body; 404 for a run in a channel the
 * principal may not read; 400 invalid_query for a bad `after`.
 */
import { z } from "zod";
import { ClutchError } from "@/server/errors";
import { getClutch } from "@/server/instance";
import { ndjson } from "../../../../_lib/http";
import { route } from "../../../../_lib/route";

export const dynamic = "force-dynamic";

const Query = z.strictObject({ after: z.coerce.number().int().nonnegative().optional() });

export const GET = route({ auth: "signed-in", params: z.object({ run_id: z.string().min(1) }), query: Query }, async ({ principal, params: { run_id }, query }) => {
  const { store, identity } = getClutch();
  const head = await store.runHead(run_id);
  if (head && !(await identity.channels.canRead(principal, head.thread_id))) throw new ClutchError("unknown_run", `run ${run_id} does not exist`, 404);
  return ndjson(store.readLines({ run_id }, query.after ?? 0, head?.last_seq ?? 0));
});
