/**
 * A person's chat message (`POST /api/threads/:thread_id/messages`): `{ text, reply_to? }`
 * becomes a chat.message from the signed-in person (`user:<id>`, role human, their profile's
 * name as display_name): the sender comes from the session, never from the body.
 *
 * Without `reply_to` (or with `reply_to: null`) it is a new message in the channel: it belongs to
 * the thread's conversation context (server/events/threads.ts `conversationIds`), and the
 * orchestrator makes a new request of it. A message is never taken as an answer unless it says so.
 *
 * With `reply_to` it is a reply in the thread of the message it names, stored in that message's
 * run and task with `payload.reply_to`. When that message is an agent's question
 * (`expects_reply`), the reply is its answer, addressed to the asker: that is how an answer
 * reaches the waiting task (Clutch Protocol §2.2). A reply to any other message is addressed to
 * nobody (`to: []`) and starts no work: people talking in a thread.
 */
import { z } from "zod";
import { isEvent, makeMessage, type ClutchMessage } from "@/lib/protocol";
import { ClutchError } from "../errors";
import type { Queries } from "./queries";
import { conversationIds } from "./threads";
import { parseMentions } from "@/lib/mentions";

export const PersonMessageSchema = z.strictObject({
  text: z.string().max(100_000, "a message is at most 100,000 characters").refine((t) => t.trim().length > 0, "a message needs text"),
  /** id of the message this replies to in its thread (an agent's question: the answer); null or absent: a new message. */
  reply_to: z.string().min(1).max(200).nullable().optional(),
  /** Lets a client retry a send without posting twice. */
  idempotency_key: z.string().min(1).max(200).optional(),
});

/** The message a reply names: a question it answers (an agent's question, §2.2) or a message it replies to in a thread. */
interface Parent {
  id: string;
  run_id: string;
  task_id: string;
  parent_task_id: string | null;
  from: string;
  /** An agent's question that waits for an answer: the reply answers it. */
  question: boolean;
}

/** The message `reply_to` names in the thread, or null when there is none (a new request). */
async function parentOf(queries: Queries, thread_id: string, reply_to?: string | null): Promise<Parent | null> {
  if (!reply_to) return null;
  const ev = await queries.eventInThread(thread_id, reply_to);
  if (!ev || ev.type !== "chat.message") throw new ClutchError("unknown_message", `there is no message ${reply_to} in this channel to reply to`, 422);
  const asksPeople = isEvent(ev, "chat.message") && ev.payload.expects_reply === true && ev.from.role !== "human";
  return { id: ev.id, run_id: ev.run_id, task_id: ev.task_id, parent_task_id: ev.parent_task_id ?? null, from: ev.from.agent_id, question: asksPeople };
}

/**
 * Build the person's chat.message (Clutch Protocol §2.2) from the request body, reading open
 * questions through `queries`. Its `payload.mentions` are the agents and capabilities the
 * text @mentions (lib/mentions.ts; `isAgent` says which names are agents). A message that
 * @mentions someone other than the asker of the open question is a new request, not an answer.
 * Throws ClutchError invalid_message (400), unknown_message (422).
 */
export async function personMessage(
  queries: Queries,
  thread_id: string,
  input: unknown,
  sender: { agent_id: string; display_name: string },
  isAgent: (agent_id: string) => boolean = () => false,
): Promise<ClutchMessage> {
  const r = PersonMessageSchema.safeParse(input);
  if (!r.success) {
    const i = r.error.issues[0]!;
    throw new ClutchError("invalid_message", `${i.path.join(".") || "body"}: ${i.message}`, 400, r.error.issues);
  }
  const { text, idempotency_key, reply_to } = r.data;
  const { agents, capabilities } = parseMentions(text, isAgent);
  const mentions = [...agents, ...capabilities];
  const parent = await parentOf(queries, thread_id, reply_to);
  return makeMessage({
    type: "chat.message",
    thread_id,
    ...(parent
      ? { run_id: parent.run_id, task_id: parent.task_id, parent_task_id: parent.parent_task_id }
      : conversationIds(thread_id)),
    from: { agent_id: sender.agent_id, role: "human", display_name: sender.display_name },
    // An answer goes to the asker (that wakes its task); a thread reply to nobody in particular.
    to: parent?.question ? [{ agent_id: parent.from }] : [],
    payload: { text, ...(mentions.length ? { mentions } : {}), ...(parent ? { reply_to: parent.id } : {}) },
    ...(idempotency_key ? { idempotency_key } : {}),
  });
}
