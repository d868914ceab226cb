/**
 * POST /api/threads/:thread_id/messages/:message_id/answer { question_id }: the signed-in person's
 * new message was meant as the answer to an agent's question (docs/channels.md "Answer where the
 * question is"). Stores the answer (the message's text, replying to the question, `meta.instead_of`)
 * and the run the message started is cancelled. 201 { event } (200 when repeated).
 * 400 invalid_body; 404 unknown (or unreadable) thread; 422 unknown_message (not your new message,
 * or not a waiting question); 409 already_answered.
 */
import { z } from "zod";
import { answerInstead } from "@/server/events/chat";
import { getClutch } from "@/server/instance";
import { json } from "../../../../../_lib/http";
import { route } from "../../../../../_lib/route";

export const dynamic = "force-dynamic";

const Params = z.object({ thread_id: z.string().min(1), message_id: z.string().min(1) });
const Body = z.strictObject({ question_id: z.string().min(1).max(200) });

export const POST = route({ auth: "person", params: Params, body: Body }, async ({ principal, params: { thread_id, message_id }, body }) => {
  const { store, registry, identity } = getClutch();
  await identity.channels.assertRead(principal, thread_id);
  const made = await answerInstead(store.queries, thread_id, message_id, body.question_id, { agent_id: principal.agent_id, display_name: principal.name }, (id) => registry.has(id));
  if ("existing" in made) return json({ event: made.existing }, 200);
  const { events, created } = await store.append(made.message, { authorize: identity.authorizer(principal) });
  return json({ event: events[0] }, created[0] ? 201 : 200);
});
