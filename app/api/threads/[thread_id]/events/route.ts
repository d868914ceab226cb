/**
 * GET /api/threads/:thread_id/events?after=<seq>&limit=<n> (or ?before=<seq>|end):
 * EventPage { events, next_after, has_more_before? } in seq order; 404 unknown thread (or one the
 * principal may not read).
 */
import { z } from "zod";
import { getClutch } from "@/server/instance";
import { json, pageQuery } from "../../../_lib/http";
import { route } from "../../../_lib/route";

export const dynamic = "force-dynamic";

export const GET = route({ auth: "signed-in", params: z.object({ thread_id: z.string().min(1) }) }, async ({ req, principal, params: { thread_id } }) => {
  const q = pageQuery(req.url);
  const { store, identity } = getClutch();
  await identity.channels.assertRead(principal, thread_id);
  return json(await store.read({ thread_id }, q));
});
