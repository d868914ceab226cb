/**
 * What a channel shows as its conversation, and what lives in threads (docs/channels.md).
 *
 * A channel reads like a conversation between people and agents: people's messages, agents'
 * messages to people (questions, answers, reports), approval requests, requests no agent can
 * take (routing.failure), and channel notices.
 * The machinery of a run (task steps, tool calls and results, routing and policy decisions,
 * messages between agents) lives in the run's thread, and people's replies in a thread live
 * in the thread of the message they reply to. Pure, shared by the channel and its tests.
 */
import { isPeopleRecipient } from "./fold/questions";
import { isEvent, isImportedCopy, type StoredEvent } from "./protocol";

/**
 * The conversation context of a thread: chat outside any run uses a run and task id derived
 * from the thread's ULID (`thr_X` → `run_X`, `task_X`), so plain chat needs no run of its own.
 */
export function conversationIds(thread_id: string): { run_id: string; task_id: string } {
  const ulid = thread_id.replace(/^thr_/, "");
  return { run_id: `run_${ulid}`, task_id: `task_${ulid}` };
}

/** True for a person's message (a `user:` id, `user`, or role human). */
export function isFromPerson(ev: StoredEvent): boolean {
  return isPeopleRecipient(ev.from);
}

/**
 * A reply in a message's thread: a person's chat.message that names the message it replies to
 * and is addressed to no agent (an answer to an agent's question is addressed to the asker, a
 * follow-up to the agent that carries on: those belong to the run's thread). Server side:
 * server/events/chat.ts.
 */
export function isThreadReply(ev: StoredEvent): boolean {
  return isEvent(ev, "chat.message") && typeof ev.payload?.reply_to === "string" && isFromPerson(ev) && Array.isArray(ev.to) && ev.to.every(isPeopleRecipient);
}

/** A reply the person also sent to the channel (Slack's "Also send to #channel"; `payload.also_in_channel`). */
export function isAlsoInChannel(ev: StoredEvent): boolean {
  return isEvent(ev, "chat.message") && ev.payload?.also_in_channel === true;
}

/**
 * The tasks whose conversation stays in their run's thread (docs/channels.md "Threads"): each
 * follow-up (a root task whose request names what it follows, `meta.follows`) and the tasks
 * delegated under it. `events` in seq order (a request comes before its subtasks'); pure.
 */
export function threadOnlyTasks(events: readonly StoredEvent[]): Set<string> {
  const tasks = new Set<string>();
  for (const ev of events) {
    if (ev?.type !== "task.request") continue;
    if (typeof ev.meta?.follows === "string" || (ev.parent_task_id && tasks.has(ev.parent_task_id))) tasks.add(ev.task_id);
  }
  return tasks;
}

/**
 * A fork's copy of an event of the run it was forked from (`meta.forked_from`, Clutch Protocol
 * §8.3): it lives in the fork's thread and run view, never again in the channel
 * (docs/channels.md "Forks").
 */
export function isForkCopy(ev: { meta?: Record<string, unknown> }): boolean {
  return typeof ev?.meta?.forked_from === "object" && ev.meta.forked_from !== null;
}

/**
 * A copy of another run's event: a fork's (`isForkCopy`) or an import's (lib/protocol/imported.ts).
 * Copies are shown in their own run, never again as the channel's conversation, unread or spend.
 */
export function isCopy(ev: { meta?: Record<string, unknown> }): boolean {
  return isForkCopy(ev) || isImportedCopy(ev);
}

/**
 * True when the event belongs in the channel's conversation (see the file comment); false for
 * the machinery of runs, for replies in threads (a person's message that names what it replies
 * to: an answer, a follow-up, a reply to a message), which the channel shows in threads unless
 * also sent to the channel, for a fork's copies of earlier events, and for an imported copy of a run
 * (lib/protocol/imported.ts: shown in its run's view as "imported from …", never as the
 * channel's conversation).
 */
export function inConversation(ev: StoredEvent): boolean {
  return inChannel(ev, NONE);
}

const NONE: ReadonlySet<string> = new Set();

/** `inConversation` where the tasks in `threadOnly` (from `threadOnlyTasks`) keep their conversation in their run's thread. */
export function inChannel(ev: StoredEvent, threadOnly: ReadonlySet<string>): boolean {
  if (!ev || typeof ev.type !== "string" || isCopy(ev)) return false;
  switch (ev.type) {
    case "chat.message": {
      if (isFromPerson(ev)) return typeof ev.payload?.reply_to !== "string" || isAlsoInChannel(ev);
      if (threadOnly.has(ev.task_id)) return false;
      const to = Array.isArray(ev.to) ? ev.to : [];
      // An agent's message to the whole channel, or to people; not one between agents.
      return to.length === 0 || to.some(isPeopleRecipient);
    }
    // A request no agent can take (routing.failure): the person who asked needs to know.
    case "chat.system":
    case "audit.change":
    case "approval.requested":
    case "routing.failure":
      return true;
    default:
      return false;
  }
}
