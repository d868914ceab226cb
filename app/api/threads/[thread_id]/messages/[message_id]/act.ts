/**
 * The one flow of the message-action routes (docs/channels.md "Message actions"): the channel
 * must be readable (404 unknown_thread), the action is planned and checked
 * (server/events/message-actions.ts: 422 unknown_message, 403 not_author, 409 copy,
 * 409 message_deleted), then appended through the principal's authorizer like any message they
 * post. An action that changes nothing stores nothing and answers 200 with the state as it is.
 */
import { z } from "zod";
import type { MessageActionResponse } from "@/lib/api/message-actions";
import type { PersonPrincipal } from "@/server/auth/principal";
import { planAction, stateAfter, type ActionRequest } from "@/server/events/message-actions";
import { getClutch } from "@/server/instance";
import { json } from "../../../../_lib/http";

/** The path parameters of every route under a message. */
export const MessageParams = z.object({ thread_id: z.string().min(1).max(200), message_id: z.string().min(1).max(200) });

/**
 * `principal`'s action `request` on message `message_id` of `thread_id`: `{ event, message }`
 * (MessageActionResponse) with `stored` (201, or 200 where the route says so) when an event was
 * appended, 200 with `event: null` when nothing changed.
 */
export async function act(principal: PersonPrincipal, thread_id: string, message_id: string, request: ActionRequest, stored = 201): Promise<Response> {
  const { store, registry, identity } = getClutch();
  await identity.channels.assertRead(principal, thread_id);
  // An edit's mentions are read like a new message's: the channel's people only when the text may name someone.
  const people = request.type === "chat.edit" && request.text.includes("@") ? await identity.channels.people(thread_id) : [];
  const actor = { agent_id: principal.agent_id, display_name: principal.name, admin: principal.role === "admin" };
  const plan = await planAction(store.queries, thread_id, message_id, request, actor, { isAgent: (id) => registry.has(id), people });
  if (!plan.event) return json({ event: null, message: plan.state } satisfies MessageActionResponse, 200);
  const { events, created } = await store.append(plan.event, { authorize: identity.authorizer(principal) });
  const event = events[0]!;
  return json({ event, message: stateAfter(plan.state, event) } satisfies MessageActionResponse, created[0] ? stored : 200);
}
