/** GET /api/threads/:thread_id/runs: { runs: RunSummary[] } oldest first; 404 unknown thread. */
import { ClutchError } from "@/server/errors";
import { threadRuns } from "@/server/events/runs";
import { getClutch } from "@/server/instance";
import { json, route } from "../../../_lib/http";

export const dynamic = "force-dynamic";

export const GET = route(async (_req, { params }: { params: Promise<{ thread_id: string }> }) => {
  const { thread_id } = await params;
  const { store } = getClutch();
  if (!(await store.getThread(thread_id))) throw new ClutchError("unknown_thread", `thread ${thread_id} does not exist`, 404);
  return json({ runs: await threadRuns(store.queries, thread_id) });
});
