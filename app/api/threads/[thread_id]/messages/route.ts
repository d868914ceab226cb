/**
 * POST /api/threads/:thread_id/messages { text, reply_to?, idempotency_key? }: the signed-in
 * person's chat.message, 201 { event } as stored (200 when the idempotency key repeats).
 * An answer to an agent's question is stored in the question's task (server/events/chat.ts).
 * `@analyst-1` and `@skill:research` in the text become `payload.mentions` (lib/mentions.ts).
 * 400 invalid_message; 404 unknown (or unreadable) thread; 422 unknown_message.
 */
import { z } from "zod";
import { personMessage } from "@/server/events/chat";
import { getClutch } from "@/server/instance";
import { json, readJson } from "../../../_lib/http";
import { route } from "../../../_lib/route";

export const dynamic = "force-dynamic";

export const POST = route({ auth: "person", params: z.object({ thread_id: z.string().min(1) }) }, async ({ req, principal, params: { thread_id } }) => {
  const { store, registry, identity } = getClutch();
  await identity.channels.assertRead(principal, thread_id);
  const msg = await personMessage(store.queries, thread_id, await readJson(req), { agent_id: principal.agent_id, display_name: principal.name }, (id) => registry.has(id));
  const { events, created } = await store.append(msg, { authorize: identity.authorizer(principal) });
  return json({ event: events[0] }, created[0] ? 201 : 200);
});
