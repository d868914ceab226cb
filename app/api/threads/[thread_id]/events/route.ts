/**
 * GET /api/threads/:thread_id/events?after=<seq>&limit=<n> (or ?before=<seq>|end):
 * EventPage { events, next_after, has_more_before? } in seq order; 404 unknown thread.
 */
import { ClutchError } from "@/server/errors";
import { getClutch } from "@/server/instance";
import { json, pageQuery, route } from "../../../_lib/http";

export const dynamic = "force-dynamic";

export const GET = route(async (req, { params }: { params: Promise<{ thread_id: string }> }) => {
  const { thread_id } = await params;
  const q = pageQuery(req.url);
  const store = getClutch().store;
  if (!(await store.getThread(thread_id))) throw new ClutchError("unknown_thread", `thread ${thread_id} does not exist`, 404);
  return json(await store.read({ thread_id }, q));
});
