/**
 * PUT /api/threads/:thread_id/read { seq, count } → { read: { seq, count } }: the signed-in
 * person has read the channel up to log seq `seq`, having seen `count` of its unread-worthy
 * events (`ThreadSummary.message_count`). Marks only move forward and never past the channel's
 * end (server/events/read-marks.ts; docs/channels.md "Welcome, drafts and reading"). The For
 * you inbox's unread items and the sidebar's badges follow it. 400 invalid_body; 404
 * unknown_thread for a channel the person may not read.
 */
import { z } from "zod";
import { ClutchError } from "@/server/errors";
import { getClutch } from "@/server/instance";
import { json } from "../../../_lib/http";
import { route } from "../../../_lib/route";

export const dynamic = "force-dynamic";

const Body = z.strictObject({
  seq: z.number().int().min(0),
  count: z.number().int().min(0),
});

export const PUT = route({ auth: "person", params: z.object({ thread_id: z.string().min(1) }), body: Body }, async ({ principal, params: { thread_id }, body }) => {
  const { identity } = getClutch();
  await identity.channels.assertRead(principal, thread_id);
  const read = await identity.readMarks.mark(principal.agent_id, thread_id, body.seq, body.count);
  if (!read) throw new ClutchError("unknown_thread", `thread ${thread_id} does not exist`, 404);
  return json({ read });
});
