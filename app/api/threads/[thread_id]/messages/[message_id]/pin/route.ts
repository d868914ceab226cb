/**
 * Pinning a message in its channel (docs/channels.md "Message actions"): anyone who may write in
 * the channel may pin or unpin any message of it (not a deleted one, not a fork's or an import's
 * copy). No body.
 *
 * PUT /api/threads/:thread_id/messages/:message_id/pin pins it (a chat.pin `pinned: true`);
 * DELETE unpins it (`pinned: false`).
 * → 201 { event, message: MessageState }; 200 { event: null, message } when it was so already.
 *
 * 404 unknown (or unreadable) thread; 409 message_deleted, copy; 422 unknown_message.
 */
import { route } from "../../../../../_lib/route";
import { act, MessageParams } from "../act";

export const dynamic = "force-dynamic";

export const PUT = route({ auth: "person", params: MessageParams }, async ({ principal, params: { thread_id, message_id } }) =>
  act(principal, thread_id, message_id, { type: "chat.pin", pinned: true }),
);

export const DELETE = route({ auth: "person", params: MessageParams }, async ({ principal, params: { thread_id, message_id } }) =>
  act(principal, thread_id, message_id, { type: "chat.pin", pinned: false }),
);
