/**
 * Message actions folded (docs/protocol.md "Message actions (Clutch extension)"): a message's
 * current text, its edit history, whether it was deleted, its reactions and its pin, from the
 * events that name it. Pure, no I/O: the server (the action routes, the pins list) and the
 * browser (the channel, a thread) fold the same events the same way.
 *
 * Input: events in seq order, any mix (only `chat.message` and the four action types count).
 *
 *   chat.message  { text, mentions? }                            a message: its first state
 *   chat.reaction { message_id, emoji, op: "add" | "remove" }
 *   chat.edit     { message_id, text, mentions? }
 *   chat.delete   { message_id, reason? }
 *   chat.pin      { message_id, pinned }
 *
 * Output: `Map<message_id, MessageState>` for every chat.message among the events:
 *
 *   { id, run_id, author,                                        the message, who wrote it
 *     text, mentions,                                            as it reads now
 *     edited:   null | { at, by },                               its last edit
 *     edits:    [{ text, at, by, seq }],                         history, oldest first; [0] is the original
 *     deleted:  null | { at, by, reason? },                      a tombstone: the log keeps the message
 *     reactions:[{ emoji, count, by: [agent_id…] }],             by first reaction; `by` in order of reacting
 *     pinned:   null | { at, by, seq } }                     seq: the chat.pin's
 *
 * Rules:
 * - An action applies to the message of its `message_id` in its own run (actions are stored in
 *   the run of the message they act on). A message id is unique within a run, not a channel: a
 *   fork's copy keeps its original's id (server/runs/remap.ts). When the events hold several
 *   messages with one id, the first in seq order (the original) has the key, and actions of the
 *   other runs are left out; a view of one run (a fork's thread) folds its copies by themselves.
 * - Only the message's author edits it: an edit by anyone else is ignored (the API refuses it
 *   with 403 not_author, server/events/message-actions.ts).
 * - After a delete nothing else applies; a delete also unpins. Who may delete (the author or an
 *   admin) is decided where the action is written: the fold cannot know roles.
 * - A reaction added twice by one person counts once; removing one that is not there changes
 *   nothing. A reaction whose count falls to 0 is gone (added again, it comes last).
 * - Pinning a pinned message, or unpinning one that is not, changes nothing.
 * - Actions that come before their message, or whose message is not among the events, are
 *   left out (a channel's page that starts after the message).
 */
import { isEvent, MESSAGE_ACTION_TYPES, type MessageActionType, type StoredEvent, type StoredEventOf } from "../protocol";

/** Who did something, and when (`ts` of the action's event). */
export interface ActedBy {
  at: string;
  /** The actor's `from.agent_id` (`user:<id>`, `agent:<name>`). */
  by: string;
}

/** One text a message had: the original (first) or an edit. */
export interface MessageVersion extends ActedBy {
  text: string;
  /** The seq of the chat.message (the original) or of the chat.edit. */
  seq: number;
}

/** One emoji's reactions: how many, and who, in the order they reacted. */
export interface Reaction {
  emoji: string;
  count: number;
  by: string[];
}

/** What a message is now, after its actions (see the module doc). */
export interface MessageState {
  /** The chat.message's id, run and author (`from.agent_id`). */
  id: string;
  run_id: string;
  author: string;
  /** The current markdown text: the last edit's, else the original. */
  text: string;
  /** The current mentions (the last edit's, else the message's). */
  mentions: string[];
  edited: ActedBy | null;
  edits: MessageVersion[];
  deleted: (ActedBy & { reason?: string }) | null;
  reactions: Reaction[];
  pinned: Pin | null;
}

/** Who pinned a message and when, with the seq of that chat.pin (pins sort by it). */
export interface Pin extends ActedBy {
  seq: number;
}

/** An event of one of the four action types, narrowed to its payload. */
export type MessageActionEvent = StoredEventOf<MessageActionType>;

/** True for a chat.reaction, chat.edit, chat.delete or chat.pin (narrows its payload). */
export function isMessageAction(ev: StoredEvent): ev is MessageActionEvent {
  return isEvent(ev, ...MESSAGE_ACTION_TYPES);
}

/** The id of the message an action names, or null for any other event. */
export function actionTarget(ev: StoredEvent): string | null {
  return isMessageAction(ev) && typeof ev.payload.message_id === "string" ? ev.payload.message_id : null;
}

/** A message's state before any action. */
export function initialState(msg: StoredEventOf<"chat.message">): MessageState {
  return {
    id: msg.id,
    run_id: msg.run_id,
    author: msg.from.agent_id,
    text: msg.payload.text,
    mentions: [...(msg.payload.mentions ?? [])],
    edited: null,
    edits: [{ text: msg.payload.text, at: msg.ts, by: msg.from.agent_id, seq: msg.seq }],
    deleted: null,
    reactions: [],
    pinned: null,
  };
}

/**
 * The state after one action (`prev` unchanged when the action does not apply: see the module
 * doc's rules). Returns a new object when something changed, `prev` itself otherwise.
 */
export function applyAction(prev: MessageState, ev: MessageActionEvent): MessageState {
  if (prev.deleted || ev.run_id !== prev.run_id || ev.payload.message_id !== prev.id) return prev;
  const at = ev.ts;
  const by = ev.from.agent_id;
  if (isEvent(ev, "chat.edit")) {
    if (by !== prev.author) return prev;
    const mentions = [...(ev.payload.mentions ?? [])];
    return { ...prev, text: ev.payload.text, mentions, edited: { at, by }, edits: [...prev.edits, { text: ev.payload.text, at, by, seq: ev.seq }] };
  }
  if (isEvent(ev, "chat.delete")) {
    const reason = typeof ev.payload.reason === "string" ? { reason: ev.payload.reason } : {};
    return { ...prev, deleted: { at, by, ...reason }, pinned: null };
  }
  if (isEvent(ev, "chat.pin")) {
    if (ev.payload.pinned === Boolean(prev.pinned)) return prev;
    return { ...prev, pinned: ev.payload.pinned ? { at, by, seq: ev.seq } : null };
  }
  if (isEvent(ev, "chat.reaction")) {
    const { emoji, op } = ev.payload;
    const i = prev.reactions.findIndex((r) => r.emoji === emoji);
    const had = i >= 0 && prev.reactions[i]!.by.includes(by);
    if (op === "add") {
      if (had) return prev;
      const reactions =
        i >= 0 ? prev.reactions.map((r, j) => (j === i ? { emoji, count: r.count + 1, by: [...r.by, by] } : r)) : [...prev.reactions, { emoji, count: 1, by: [by] }];
      return { ...prev, reactions };
    }
    if (op === "remove") {
      if (!had) return prev;
      const left = prev.reactions[i]!.by.filter((who) => who !== by);
      const reactions = left.length ? prev.reactions.map((r, j) => (j === i ? { emoji, count: left.length, by: left } : r)) : prev.reactions.filter((_, j) => j !== i);
      return { ...prev, reactions };
    }
  }
  return prev;
}

/**
 * Every chat.message among `events` (seq order) with its actions applied, by message id (see the
 * module doc). `into` continues an earlier fold (the events must come after the ones it saw).
 */
export function foldMessageActions(events: readonly StoredEvent[], into?: Map<string, MessageState>): Map<string, MessageState> {
  const states = new Map(into);
  for (const ev of events) {
    if (isEvent(ev, "chat.message")) {
      if (!states.has(ev.id)) states.set(ev.id, initialState(ev));
      continue;
    }
    const target = actionTarget(ev);
    if (target === null) continue;
    const prev = states.get(target);
    if (prev) states.set(target, applyAction(prev, ev as MessageActionEvent));
  }
  return states;
}

/**
 * The messages pinned now among `events` (a channel's, seq order): their ids in the order they
 * were pinned, oldest pin first (reverse it for "newest pin first"). A deleted message is
 * not pinned. Each message's state is `foldMessageActions(events).get(id)`.
 */
export function pinnedMessages(events: readonly StoredEvent[]): string[] {
  return [...foldMessageActions(events).values()]
    .filter((s): s is MessageState & { pinned: Pin } => s.pinned !== null)
    .sort((a, b) => a.pinned.seq - b.pinned.seq)
    .map((s) => s.id);
}
