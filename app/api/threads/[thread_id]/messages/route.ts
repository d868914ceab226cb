/**
 * POST /api/threads/:thread_id/messages { text, display_name?, reply_to?, idempotency_key? }:
 * the person's chat.message, 201 { event } as stored (200 when the idempotency key repeats).
 * An answer to an agent's question is stored in the question's task (server/events/chat.ts).
 * `@analyst-1` and `@skill:research` in the text become `payload.mentions` (lib/mentions.ts).
 * 400 invalid_message; 422 unknown_thread or unknown_message.
 */
import { personMessage } from "@/server/events/chat";
import { getClutch } from "@/server/instance";
import { json, readJson, route } from "../../../_lib/http";

export const dynamic = "force-dynamic";

export const POST = route(async (req, { params }: { params: Promise<{ thread_id: string }> }) => {
  const { thread_id } = await params;
  const { store, registry } = getClutch();
  const msg = await personMessage(store.queries, thread_id, await readJson(req), (id) => registry.has(id));
  const { events, created } = await store.append(msg);
  return json({ event: events[0] }, created[0] ? 201 : 200);
});
