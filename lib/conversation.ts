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

/** True for a person's message (a `user:` id, `user`, or role human). */
export function isFromPerson(ev: StoredEvent): boolean {
  return isPeopleRecipient(ev.from);
}

/**
 * A reply in a thread: a person's chat.message that names the message it replies to and is
 * addressed to nobody (an answer to an agent's question is addressed to the asker, and stays
 * in the channel). Server side: server/events/chat.ts.
 */
export function isThreadReply(ev: StoredEvent): boolean {
  return isEvent(ev, "chat.message") && typeof ev.payload?.reply_to === "string" && isFromPerson(ev) && Array.isArray(ev.to) && ev.to.length === 0;
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
 * the machinery of runs, for thread replies, which the channel shows in threads, for a
 * fork's copies of earlier events, and for an imported copy of a run (lib/protocol/imported.ts:
 * shown in its run's view as "imported from …", never as the channel's conversation).
 */
export function inConversation(ev: StoredEvent): boolean {
  if (!ev || typeof ev.type !== "string" || isCopy(ev)) return false;
  switch (ev.type) {
    case "chat.message": {
      if (isThreadReply(ev)) return false;
      if (isFromPerson(ev)) return true;
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
