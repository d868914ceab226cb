/**
 * Reactions to a message (docs/channels.md "Message actions"): anyone who may write in the
 * channel may react, to anyone's message (not a deleted one).
 *
 * POST /api/threads/:thread_id/messages/:message_id/reactions { emoji } adds the signed-in
 * person's reaction: a chat.reaction `op: "add"`. `emoji` is one emoji (👍, 👍🏽, 🇫🇷) or a
 * `:shortcode:` (lowercase letters, digits, `_`, `+`, `-`), at most 64 characters.
 * → 201 { event, message: MessageState }; 200 { event: null, message } when they had reacted so already.
 *
 * DELETE /api/threads/:thread_id/messages/:message_id/reactions?emoji=<emoji> removes it
 * (`op: "remove"`; the emoji URL-encoded: `encodeURIComponent(":+1:")`, a bare `+` reads as a space).
 * → 201 { event, message }; 200 { event: null, message } when there was no such reaction of theirs.
 *
 * 400 invalid_body / invalid_query (no or a bad emoji); 404 unknown (or unreadable) thread;
 * 409 message_deleted; 422 unknown_message. Nothing is stored on an error.
 */
import { z } from "zod";
import { ChatReactionPayload } from "@/lib/protocol";
import { route } from "../../../../../_lib/route";
import { act, MessageParams } from "../act";

export const dynamic = "force-dynamic";

const Emoji = z.strictObject({ emoji: ChatReactionPayload.shape.emoji });

export const POST = route({ auth: "person", params: MessageParams, body: Emoji }, async ({ principal, params: { thread_id, message_id }, body }) =>
  act(principal, thread_id, message_id, { type: "chat.reaction", emoji: body.emoji, op: "add" }),
);

export const DELETE = route({ auth: "person", params: MessageParams, query: Emoji }, async ({ principal, params: { thread_id, message_id }, query }) =>
  act(principal, thread_id, message_id, { type: "chat.reaction", emoji: query.emoji, op: "remove" }),
);
