/**
 * A person's chat message (`POST /api/threads/:thread_id/messages`): `{ text, reply_to? }`
 * becomes a chat.message from the signed-in person (`user:<id>`, role human, their profile's
 * name as display_name): the sender comes from the session, never from the body.
 *
 * Without `reply_to` (or with `reply_to: null`) it is a new message in the channel: it belongs to
 * the thread's conversation context (server/events/threads.ts `conversationIds`), and the
 * orchestrator makes a new request of it, unless its @mentions are only people (a conversation
 * between people). A message is never taken as an answer unless it says so.
 *
 * With `reply_to` it is a reply in the thread of the message or result it names, in that run,
 * with `payload.reply_to`:
 * - an agent's question that waits (`expects_reply`): its answer, in the question's task and
 *   addressed to the asker, which wakes the waiting task (Clutch Protocol §2.2); a question
 *   already answered is a 409 already_answered naming who answered;
 * - any other message or result of an agent: a follow-up (docs/channels.md "Follow-ups"): the
 *   first event of a new root task of that run, addressed to the agent, with `meta.follows`
 *   naming the event; the orchestrator requests the task of the agent, whose context is the
 *   conversation so far (lib/fold/follow-up.ts);
 * - a person's message: a reply in its thread, addressed to nobody (`to: []`), starting no work.
 *
 * Who answers (docs/channels.md "Who answers"): `chat_only: true` on a new message makes it plain
 * chat, addressed to the channel's people (`to: [{ agent_id: "user" }]`), so no agent is asked
 * whatever the channel's setting. A reply stays in its thread; `also_in_channel: true` (Slack's
 * "Also send to #channel") shows it in the channel too (`payload.also_in_channel`).
 */
import { z } from "zod";
import { isEvent, makeMessage, newId, type ClutchMessage, type StoredEvent } from "@/lib/protocol";
import { ClutchError } from "../errors";
import type { Queries } from "./queries";
import { conversationIds } from "./threads";
import { mentionIds, parseMentions, type MentionablePerson } from "@/lib/mentions";
import { isClutchSender } from "@/lib/clutch-senders";

export const PersonMessageSchema = z.strictObject({
  text: z.string().max(100_000, "a message is at most 100,000 characters").refine((t) => t.trim().length > 0, "a message needs text"),
  /** id of the message this replies to in its thread (an agent's question: the answer); null or absent: a new message. */
  reply_to: z.string().min(1).max(200).nullable().optional(),
  /** Lets a client retry a send without posting twice. */
  idempotency_key: z.string().min(1).max(200).optional(),
  /** A new message as plain chat: for the channel's people, no agent asked. */
  chat_only: z.boolean().optional(),
  /** A reply in a thread that the channel shows too. */
  also_in_channel: z.boolean().optional(),
});

/**
 * What a reply names, and so what it does:
 * - `answer`: an agent's question to people that still waits (expects_reply);
 * - `follow_up`: any other message or result of an agent: that agent carries on in a new task;
 * - `thread`: a person's message: a reply in its thread, for people.
 */
interface Parent {
  id: string;
  run_id: string;
  task_id: string;
  parent_task_id: string | null;
  from: string;
  kind: "answer" | "follow_up" | "thread";
}

/** The event `reply_to` names in the thread, or null when there is none (a new request). */
async function parentOf(queries: Queries, thread_id: string, reply_to?: string | null): Promise<Parent | null> {
  if (!reply_to) return null;
  const ev = await queries.eventInThread(thread_id, reply_to);
  if (!ev || (ev.type !== "chat.message" && ev.type !== "task.result")) {
    throw new ClutchError("unknown_message", `there is no message or result ${reply_to} in this channel to reply to`, 422);
  }
  const at = { id: ev.id, run_id: ev.run_id, task_id: ev.task_id, parent_task_id: ev.parent_task_id ?? null, from: ev.from.agent_id };
  const byAgent = ev.from.role !== "human" && !ev.from.agent_id.startsWith("user:") && !isClutchSender(ev.from.agent_id);
  if (!byAgent) {
    if (ev.type === "task.result") throw new ClutchError("unknown_message", `${reply_to} is not an agent's result: reply to the agent's message or result`, 422);
    return { ...at, kind: "thread" };
  }
  if (isEvent(ev, "chat.message") && ev.payload.expects_reply === true) {
    const task = await queries.task(ev.task_id);
    const open = ((task?.open_questions ?? []) as { id: string }[]).some((q) => q.id === ev.id);
    if (open) return { ...at, kind: "answer" };
    const answer = await queries.answerTo(ev.run_id, ev.id);
    if (answer) {
      const by = answer.from.display_name ?? answer.from.agent_id;
      throw new ClutchError("already_answered", `${by} already answered this question (message ${answer.id}); reply to the agent's latest message to ask for more`, 409);
    }
  }
  return { ...at, kind: "follow_up" };
}

/**
 * Build the person's chat.message (Clutch Protocol §2.2) from the request body, reading open
 * questions through `queries`. Its `payload.mentions` are the agents, capabilities and people
 * the text @mentions (lib/mentions.ts; `isAgent` says which names are agents; `people` are the
 * channel's members, `user:<id>` with their profile names: a handle of anyone else resolves to
 * nothing, so it notifies nobody and says nothing about who exists), then `here` / `channel`
 * for `@here` and `@channel` / `@everyone`. A new message whose mentions are only people (those
 * two included) is conversation between people and starts no run (docs/channels.md "Mentions").
 * Throws ClutchError invalid_message (400), unknown_message (422), already_answered (409).
 */
export async function personMessage(
  queries: Queries,
  thread_id: string,
  input: unknown,
  sender: { agent_id: string; display_name: string },
  isAgent: (agent_id: string) => boolean = () => false,
  people: readonly MentionablePerson[] = [],
): Promise<ClutchMessage> {
  const r = PersonMessageSchema.safeParse(input);
  if (!r.success) {
    const i = r.error.issues[0]!;
    throw new ClutchError("invalid_message", `${i.path.join(".") || "body"}: ${i.message}`, 400, r.error.issues);
  }
  const { text, idempotency_key, reply_to, chat_only, also_in_channel } = r.data;
  if (chat_only && reply_to) {
    throw new ClutchError("invalid_message", "chat_only is for a new message; to write in a run's thread without asking the agent, reply to the message that started the run", 400);
  }
  if (also_in_channel && !reply_to) throw new ClutchError("invalid_message", "also_in_channel is for a reply in a thread: a new message is in the channel already", 400);
  const mentions = mentionIds(parseMentions(text, isAgent, people));
  const parent = await parentOf(queries, thread_id, reply_to);
  // A follow-up opens a new root task of the parent's run; the orchestrator requests it of the agent.
  const at = !parent
    ? conversationIds(thread_id)
    : parent.kind === "follow_up"
      ? { run_id: parent.run_id, task_id: newId("task"), parent_task_id: null }
      : { run_id: parent.run_id, task_id: parent.task_id, parent_task_id: parent.parent_task_id };
  return makeMessage({
    type: "chat.message",
    thread_id,
    ...at,
    from: { agent_id: sender.agent_id, role: "human", display_name: sender.display_name },
    // An answer goes to the asker (that wakes its task), a follow-up to the agent that carries
    // on; a thread reply to nobody in particular.
    to: parent && parent.kind !== "thread" ? [{ agent_id: parent.from }] : chat_only ? [{ agent_id: "user" }] : [],
    payload: { text, ...(mentions.length ? { mentions } : {}), ...(parent ? { reply_to: parent.id } : {}), ...(also_in_channel ? { also_in_channel: true } : {}) },
    ...(parent?.kind === "follow_up" ? { meta: { follows: parent.id } } : {}),
    ...(idempotency_key ? { idempotency_key } : {}),
  });
}

/**
 * "Make it the answer" (docs/channels.md "Answer where the question is"): the person's new message
 * `message_id` was meant as the answer to question `question_id`. Returns the answer to append: a
 * copy of the message's text that names the question, with `meta.instead_of` naming the message;
 * when the orchestrator meets it, it cancels the run the message had started (server/orchestrator).
 * Made before (the same message), it is `{ existing }`, the stored answer.
 * Throws unknown_message (422) when `message_id` is not the sender's own new message in this
 * channel; the question's checks are personMessage's (422 unknown_message, 409 already_answered).
 */
export async function answerInstead(
  queries: Queries,
  thread_id: string,
  message_id: string,
  question_id: string,
  sender: { agent_id: string; display_name: string },
  isAgent: (agent_id: string) => boolean = () => false,
): Promise<{ message: ClutchMessage } | { existing: StoredEvent }> {
  const sent = await queries.eventInThread(thread_id, message_id);
  if (!sent || !isEvent(sent, "chat.message") || sent.from.agent_id !== sender.agent_id || sent.payload.reply_to) {
    throw new ClutchError("unknown_message", `${message_id} is not a new message of yours in this channel`, 422);
  }
  const idempotency_key = `instead-of:${message_id}`;
  const made = await queries.eventByIdempotencyKey(idempotency_key);
  if (made) return { existing: made };
  const answer = await personMessage(queries, thread_id, { text: sent.payload.text, reply_to: question_id, idempotency_key }, sender, isAgent);
  if (answer.to[0]?.agent_id === undefined || answer.meta?.follows) throw new ClutchError("unknown_message", `${question_id} is not a question that waits for an answer`, 422);
  return { message: { ...answer, meta: { ...answer.meta, instead_of: message_id } } };
}
