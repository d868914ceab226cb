/**
 * POST /api/threads/:thread_id/messages { text, display_name?, idempotency_key? }:
 * the person's chat.message, 201 { event } as stored (200 when the idempotency key repeats);
 * 400 invalid_message; 422 unknown_thread.
 */
import { personMessage } from "@/server/events/chat";
import { getRuntime } from "@/server/runtime";
import { json, readJson, route } from "../../../_lib/http";

export const dynamic = "force-dynamic";

export const POST = route(async (req, { params }: { params: Promise<{ thread_id: string }> }) => {
  const { thread_id } = await params;
  const msg = personMessage(thread_id, await readJson(req));
  const { events, created } = await getRuntime().store.append(msg);
  return json({ event: events[0] }, created[0] ? 201 : 200);
});
