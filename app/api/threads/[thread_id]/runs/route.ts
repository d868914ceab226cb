/** GET /api/threads/:thread_id/runs: { runs: RunSummary[] } oldest first; 404 unknown (or unreadable) thread. */
import { z } from "zod";
import { threadRuns } from "@/server/events/runs";
import { getClutch } from "@/server/instance";
import { json } from "../../../_lib/http";
import { route } from "../../../_lib/route";

export const dynamic = "force-dynamic";

export const GET = route({ auth: "signed-in", params: z.object({ thread_id: z.string().min(1) }) }, async ({ principal, params: { thread_id } }) => {
  const { store, identity } = getClutch();
  await identity.channels.assertRead(principal, thread_id);
  return json({ runs: await threadRuns(store.queries, thread_id) });
});
