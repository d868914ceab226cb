/**
 * A person's chat message (`POST /api/threads/:thread_id/messages`): `{ text, reply_to? }`
 * becomes a chat.message from the signed-in person (`user:<id>`, role human, their profile's
 * name as display_name): the sender comes from the session, never from the body.
 *
 * When it answers a question an agent asked the people in the channel (`reply_to` names the
 * question, or, without `reply_to`, the newest unanswered question to people in the thread;
 * `reply_to: null` says it is not an answer),
 * it is stored in that question's run and task with `payload.reply_to`, addressed to the
 * asker: that is how an answer reaches the waiting task (Clutch Protocol §2.2). Otherwise it belongs to the
 * thread's conversation context (server/events/threads.ts `conversationIds`).
 */
import { z } from "zod";
import { makeMessage, type ClutchMessage } from "@/lib/protocol";
import type { OpenQuestion } from "@/lib/fold/task-state";
import { ClutchError } from "../errors";
import type { Queries } from "./queries";
import { conversationIds } from "./threads";
import { parseMentions } from "@/lib/mentions";

export const PersonMessageSchema = z.strictObject({
  text: z.string().max(100_000, "a message is at most 100,000 characters").refine((t) => t.trim().length > 0, "a message needs text"),
  /** id of the question this answers; null: not an answer (a new request); absent: the newest open question, if any. */
  reply_to: z.string().min(1).max(200).nullable().optional(),
  /** Lets a client retry a send without posting twice. */
  idempotency_key: z.string().min(1).max(200).optional(),
});

/** A question to people that is waiting for an answer. */
interface Question {
  id: string;
  run_id: string;
  task_id: string;
  parent_task_id: string | null;
  from: string;
}

/** The question `reply_to` names in the thread, or the newest open question to people there. */
async function questionToAnswer(queries: Queries, thread_id: string, reply_to?: string | null): Promise<Question | null> {
  if (reply_to === null) return null;
  if (reply_to) {
    const ev = await queries.eventInThread(thread_id, reply_to);
    if (!ev) throw new ClutchError("unknown_message", `there is no message ${reply_to} in this channel to reply to`, 422);
    return { id: ev.id, run_id: ev.run_id, task_id: ev.task_id, parent_task_id: ev.parent_task_id ?? null, from: ev.from.agent_id };
  }
  const waiting = await queries.waitingTasks(thread_id);
  let best: (Question & { at: number }) | null = null;
  for (const t of waiting) {
    // The tasks projection keeps the task fold's open questions as JSON (lib/fold/task-state.ts).
    for (const q of t.open_questions as unknown as OpenQuestion[]) {
      if (!q.to.includes("user")) continue;
      const asked = await queries.eventInRun(t.run_id, q.id);
      if (asked && (!best || asked.seq > best.at)) {
        best = { id: q.id, run_id: t.run_id, task_id: t.id, parent_task_id: t.parent_task_id, from: q.from, at: asked.seq };
      }
    }
  }
  return best;
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
  let question = await questionToAnswer(queries, thread_id, reply_to);
  if (question && reply_to === undefined && mentions.length && !agents.includes(question.from)) question = null;
  return makeMessage({
    type: "chat.message",
    thread_id,
    ...(question
      ? { run_id: question.run_id, task_id: question.task_id, parent_task_id: question.parent_task_id }
      : conversationIds(thread_id)),
    from: { agent_id: sender.agent_id, role: "human", display_name: sender.display_name },
    to: question ? [{ agent_id: question.from }] : [],
    payload: { text, ...(mentions.length ? { mentions } : {}), ...(question ? { reply_to: question.id } : {}) },
    ...(idempotency_key ? { idempotency_key } : {}),
  });
}
