/**
 * POST /api/threads/:thread_id/messages { text, reply_to?, idempotency_key? }: the signed-in
 * person's chat.message, 201 { event } as stored (200 when the idempotency key repeats).
 * An answer to an agent's question is stored in the question's task (server/events/chat.ts).
 * `@analyst-1`, `@skill:research` and `@Dana_Scully` (a person who may read the channel) in the
 * text become `payload.mentions` (lib/mentions.ts; docs/channels.md "Mentions").
 * A W3C `traceparent` header on a new message puts the run it starts under the caller's trace
 * when traces are exported (`meta.trace`; docs/observability.md "Traces (OpenTelemetry)").
 * 400 invalid_message; 404 unknown (or unreadable) thread; 422 unknown_message.
 */
import { z } from "zod";
import { personMessage } from "@/server/events/chat";
import { getClutch } from "@/server/instance";
import { callerTraceMeta } from "@/server/telemetry";
import { json, readJson } from "../../../_lib/http";
import { route } from "../../../_lib/route";

export const dynamic = "force-dynamic";

export const POST = route({ auth: "person", params: z.object({ thread_id: z.string().min(1) }) }, async ({ req, principal, params: { thread_id } }) => {
  const { store, registry, identity } = getClutch();
  await identity.channels.assertRead(principal, thread_id);
  const body = await readJson(req);
  // The channel's people are read only when the text may mention someone.
  const mayMention = typeof (body as { text?: unknown } | null)?.text === "string" && (body as { text: string }).text.includes("@");
  const people = mayMention ? await identity.channels.people(thread_id) : [];
  const msg = await personMessage(store.queries, thread_id, body, { agent_id: principal.agent_id, display_name: principal.name }, (id) => registry.has(id), people);
  // A new message may start a run: the caller's trace context goes with it (the orchestrator copies it to the run).
  const trace = msg.payload.reply_to ? undefined : await callerTraceMeta(req.headers);
  if (trace) msg.meta = { ...msg.meta, trace };
  const { events, created } = await store.append(msg, { authorize: identity.authorizer(principal) });
  return json({ event: events[0] }, created[0] ? 201 : 200);
});
