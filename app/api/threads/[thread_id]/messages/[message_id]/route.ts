/**
 * A person's own message, changed by events (docs/channels.md "Message actions"; docs/protocol.md
 * "Message actions (Clutch extension)"):
 *
 * PATCH /api/threads/:thread_id/messages/:message_id { text } edits it: a chat.edit with the new
 * markdown text (1–100,000 characters, not blank) and its @mentions read again like a new
 * message's (lib/mentions.ts); only its author may, and an edit never starts a run.
 * → 200 { event, message: MessageState } (`event: null` when the text and mentions are unchanged).
 *
 * DELETE /api/threads/:thread_id/messages/:message_id { reason? } (body optional) deletes it: a
 * chat.delete tombstone; the message stays in the log. Its author or an admin may.
 * → 200 { event, message: MessageState }.
 *
 * 400 invalid_body; 403 not_author; 404 unknown (or unreadable) thread; 409 message_deleted (already
 * deleted), copy (a fork's or an import's copy); 422 unknown_message. Nothing is stored on an error.
 */
import { z } from "zod";
import { PersonMessageSchema } from "@/server/events/chat";
import { route } from "../../../../_lib/route";
import { act, MessageParams } from "./act";

export const dynamic = "force-dynamic";

const EditBody = z.strictObject({ text: PersonMessageSchema.shape.text });
const DeleteBody = z.strictObject({ reason: z.string().trim().max(500, "a reason is at most 500 characters").optional() });

export const PATCH = route({ auth: "person", params: MessageParams, body: EditBody }, async ({ principal, params: { thread_id, message_id }, body }) =>
  act(principal, thread_id, message_id, { type: "chat.edit", text: body.text }, 200),
);

export const DELETE = route({ auth: "person", params: MessageParams, body: DeleteBody, emptyBody: true }, async ({ principal, params: { thread_id, message_id }, body }) =>
  act(principal, thread_id, message_id, { type: "chat.delete", ...(body.reason ? { reason: body.reason } : {}) }, 200),
);
