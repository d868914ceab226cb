/**
 * Questions and answers in a channel, folded from its events (Clutch Protocol §2.2 chat.message
 * `expects_reply`, `reply_to`), so a question to the people shows as waiting for an answer.
 * Pure: the same events always give the same index, live or after a reload.
 *
 * - A question is a chat.message with `payload.expects_reply: true`. It is for people when one
 *   of its recipients is `user` (the people of the channel), a `user:` id or has role human.
 * - Its answer is the first later chat.message whose `payload.reply_to` is the question's id.
 * - A question whose task ended without an answer (task.result, task.error, task.cancel,
 *   task.timeout) is closed: nobody waits for it any more (lib/fold/task-state.ts clears it too).
 * - An oversight inquiry is a question with `payload.inquiry: true` (an overseer asking the
 *   author of the work under review).
 */
import type { Participant, StoredEvent } from "../protocol/envelope";
import { isEvent, type StoredEventOf } from "../protocol/events";

/** A message a reply points at, or the reply itself: enough to name and show it. */
export interface MessageRef {
  id: string;
  seq: number;
  from: Participant;
  text: string;
}

/** One question and what became of it. */
export interface QuestionView extends MessageRef {
  run_id: string;
  task_id: string;
  /** Recipient ids, e.g. `["user"]` or `["agent:pm-1"]`. */
  to: string[];
  /** Addressed to the people of the channel. */
  to_people: boolean;
  /** An overseer's oversight inquiry. */
  inquiry: boolean;
  /** The first reply, once it arrived. */
  answer: MessageRef | null;
  /** True when the question's task ended before an answer came. */
  closed: boolean;
}

/** The questions of a channel, and every chat message by id (for "in reply to" links). */
export interface QuestionIndex {
  /** Questions by message id. */
  questions: Map<string, QuestionView>;
  /** Chat messages by id. */
  messages: Map<string, MessageRef>;
  /** Questions to people that wait for an answer now, oldest first (the newest is last). */
  openToPeople: QuestionView[];
}

const ENDINGS = new Set(["task.result", "task.error", "task.cancel", "task.timeout"]);

/** True for a recipient that stands for the people of the channel. */
export function isPeopleRecipient(p: Pick<Participant, "agent_id" | "role">): boolean {
  return p.agent_id === "user" || p.agent_id.startsWith("user:") || p.role === "human";
}

function refOf(ev: StoredEventOf<"chat.message">): MessageRef {
  const { text } = ev.payload;
  // Checked all the same: a misbehaving source may send a message without text.
  return { id: ev.id, seq: ev.seq, from: ev.from, text: typeof text === "string" ? text : "" };
}

/** The question index of `events` (ascending by seq). Events of unexpected shape are skipped. */
export function indexQuestions(events: readonly StoredEvent[]): QuestionIndex {
  const questions = new Map<string, QuestionView>();
  const messages = new Map<string, MessageRef>();
  const openByTask = new Map<string, QuestionView[]>();
  for (const ev of events) {
    if (!ev || typeof ev.type !== "string" || !ev.payload || typeof ev.payload !== "object") continue;
    if (isEvent(ev, "chat.message")) {
      const p = ev.payload;
      const ref = refOf(ev);
      messages.set(ev.id, ref);
      if (typeof p.reply_to === "string") {
        const q = questions.get(p.reply_to);
        if (q && !q.answer) q.answer = ref;
      }
      if (p.expects_reply === true) {
        const to = Array.isArray(ev.to) ? ev.to : [];
        const q: QuestionView = {
          ...ref,
          run_id: ev.run_id,
          task_id: ev.task_id,
          to: to.map((t) => t.agent_id),
          to_people: to.some(isPeopleRecipient),
          inquiry: p.inquiry === true,
          answer: null,
          closed: false,
        };
        questions.set(ev.id, q);
        const list = openByTask.get(ev.task_id);
        if (list) list.push(q);
        else openByTask.set(ev.task_id, [q]);
      }
    } else if (ENDINGS.has(ev.type)) {
      for (const q of openByTask.get(ev.task_id) ?? []) if (!q.answer) q.closed = true;
      openByTask.delete(ev.task_id);
    }
  }
  const openToPeople = [...questions.values()].filter((q) => q.to_people && !q.answer && !q.closed).sort((a, b) => a.seq - b.seq);
  return { questions, messages, openToPeople };
}

/**
 * The first `max` characters of a message on one line, markdown's marks left out, for chips,
 * "in reply to" links and inbox items. An underscore inside a word stays (`@Lee_Park`, `pm_1`).
 */
export function excerpt(text: string, max = 90): string {
  const flat = text
    .replace(/[#>*`|]+|(?<!\w)_+|_+(?!\w)/g, " ")
    .replace(/\s+/g, " ")
    .trim();
  return flat.length > max ? `${flat.slice(0, max - 1).trimEnd()}…` : flat;
}
