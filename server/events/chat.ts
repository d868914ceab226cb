/**
 * A person's chat message (`POST /api/threads/:thread_id/messages`): `{ text, display_name? }`
 * becomes a chat.message from `user:<slug of display_name>` (role human) in the thread's
 * conversation context (server/events/threads.ts `conversationIds`).
 */
import { z } from "zod";
import { makeMessage, type ClutchMessage } from "@/lib/protocol";
import { ClutchError } from "../errors";
import { conversationIds } from "./threads";

export const PersonMessageSchema = z.strictObject({
  text: z.string().max(100_000, "a message is at most 100,000 characters").refine((t) => t.trim().length > 0, "a message needs text"),
  display_name: z.string().trim().min(1).max(80).optional(),
  /** Lets a client retry a send without posting twice. */
  idempotency_key: z.string().min(1).max(200).optional(),
});

/** The agent id of a person: `user:` and a slug of their display name (`user:ada-lovelace`). */
export function personId(displayName: string | undefined): string {
  const slug = (displayName ?? "")
    .toLowerCase()
    .normalize("NFKD")
    .replace(/[^a-z0-9]+/g, "-")
    .replace(/^-+|-+$/g, "");
  return `user:${slug || "anonymous"}`;
}

/** Build the person's chat.message. Throws ClutchError invalid_message (400). */
export function personMessage(thread_id: string, input: unknown): ClutchMessage {
  const r = PersonMessageSchema.safeParse(input);
  if (!r.success) {
    const i = r.error.issues[0]!;
    throw new ClutchError("invalid_message", `${i.path.join(".") || "body"}: ${i.message}`, 400, r.error.issues);
  }
  const { text, display_name, idempotency_key } = r.data;
  return makeMessage({
    type: "chat.message",
    thread_id,
    ...conversationIds(thread_id),
    from: { agent_id: personId(display_name), role: "human", ...(display_name ? { display_name } : {}) },
    to: [],
    payload: { text },
    ...(idempotency_key ? { idempotency_key } : {}),
  });
}
