/**
 * POST /api/threads/:thread_id/read/unread { message_id } → { read: { seq, count } }: "Mark
 * unread" (docs/channels.md "Message actions"). The signed-in person's read mark of the channel
 * moves to just before that message (or any event of the channel), so it and everything after
 * it count as unread again: the mark's `seq` is the event's seq − 1 and its `count` the channel's
 * `message_count` less the unread-worthy events from there on (lib/unread.ts), the one move back
 * of a mark (server/events/read-marks.ts `markUnreadFrom`). The browser's own mark
 * (components/prefs/read-marks.ts) must follow it, as the sidebar counts from the further of the two.
 * 400 invalid_body; 404 unknown_thread for a channel the person may not read; 422
 * unknown_message when the channel has no event of that id.
 */
import { z } from "zod";
import type { MarkUnreadResponse } from "@/lib/api/message-actions";
import { ClutchError } from "@/server/errors";
import { getClutch } from "@/server/instance";
import { json } from "../../../../_lib/http";
import { route } from "../../../../_lib/route";

export const dynamic = "force-dynamic";

const Body = z.strictObject({ message_id: z.string().min(1).max(200) });

export const POST = route({ auth: "person", params: z.object({ thread_id: z.string().min(1).max(200) }), body: Body }, async ({ principal, params: { thread_id }, body }) => {
  const { store, identity } = getClutch();
  await identity.channels.assertRead(principal, thread_id);
  const [event] = await store.queries.messageWithActions(thread_id, body.message_id);
  if (!event) throw new ClutchError("unknown_message", `there is no message ${body.message_id} in this channel`, 422);
  const read = await identity.readMarks.markUnreadFrom(principal.agent_id, thread_id, event.seq);
  if (!read) throw new ClutchError("unknown_thread", `thread ${thread_id} does not exist`, 404);
  return json({ read } satisfies MarkUnreadResponse);
});
