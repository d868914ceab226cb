/**
 * The message actions of the channel as pure functions (docs/channels.md "Message actions"): what
 * a person is offered on a message, how a reaction is described, where a link to a message
 * points, which message ↑ edits, and whether a message's state changed (so a row re-renders only
 * then). components/events/message-actions.tsx draws them.
 */
import { isMessageAction, type MessageState, type Reaction } from "@/lib/fold/message-actions";
import { mergeBySeq } from "@/components/live/merge";
import { inConversation, isCopy } from "@/lib/conversation";
import { isEvent, type StoredEvent } from "@/lib/protocol";
import { listOf } from "./participant";

/** Who is looking: their `user:<id>` and role (components/identity/me.tsx). */
export interface Viewer {
  agent_id: string;
  role: "admin" | "member" | "guest";
}

/** The actions offered on one message. */
export interface OfferedActions {
  react: boolean;
  /** Only the author edits a message. */
  edit: boolean;
  /** The author, or an admin, deletes it. */
  delete: boolean;
  /** "pin" or "unpin"; null when it cannot be pinned (a copy). */
  pin: "pin" | "unpin" | null;
  copyLink: boolean;
  markUnread: boolean;
}

/**
 * What `viewer` may do with a message in state `state` (the server's rules, docs/protocol.md
 * "Message actions"): nothing on a deleted message; on a copy of another run's message (a fork's
 * or an import's) only react, copy its link and mark unread; otherwise react, pin or unpin, copy
 * the link and mark unread, edit your own, and delete your own or, as an admin, anyone's.
 */
export function offeredActions(state: MessageState, viewer: Viewer, { copy = false }: { copy?: boolean } = {}): OfferedActions | null {
  if (state.deleted) return null;
  const own = state.author === viewer.agent_id;
  return {
    react: true,
    edit: own && !copy,
    delete: (own || viewer.role === "admin") && !copy,
    pin: copy ? null : state.pinned ? "unpin" : "pin",
    copyLink: true,
    markUnread: true,
  };
}

/** How many reactors are named before "and N others". */
const NAMED = 2;

/**
 * Who reacted, in words: "You reacted with 👍", "Lee and Dana reacted with 👍", "You, Lee and
 * Dana reacted with 🎉", "You, Lee and 2 others reacted with 👍". You come first; up to three
 * are named, more read as the first two "and N others". `nameOf` names a reactor's id.
 */
export function describeReaction(reaction: Reaction, me: string | null, nameOf: (id: string) => string): string {
  const mine = me !== null && reaction.by.includes(me);
  const names = [...(mine ? ["You"] : []), ...reaction.by.filter((id) => id !== me).map(nameOf)];
  const who = names.length <= NAMED + 1 ? listOf(names) : `${names.slice(0, NAMED).join(", ")} and ${names.length - NAMED} others`;
  return `${who} reacted with ${reaction.emoji}`;
}

/** True when `me` is among those who reacted with this emoji (the chip is pressed). */
export function reactedBy(reaction: Reaction, me: string | null): boolean {
  return me !== null && reaction.by.includes(me);
}

/**
 * The path that opens a message in its channel, scrolled to and flashed (`?event=`; the channel
 * handles it, components/thread/thread-screen.tsx): a reply in a person's thread opens that
 * thread (`?message=`), a message of a run's machinery its run's thread (`?run=`), like For you's
 * links. Prefix the origin for a link to share.
 */
export function messagePath(event: StoredEvent): string {
  const q = new URLSearchParams();
  if (isEvent(event, "chat.message") && typeof event.payload.reply_to === "string" && event.to.length === 0 && !event.payload.also_in_channel) q.set("message", event.payload.reply_to);
  else if (!inConversation(event)) q.set("run", event.run_id);
  q.set("event", event.id);
  return `/c/${encodeURIComponent(event.thread_id)}?${q}`;
}

/** What `lastOwnMessage` reads of a row: its event and the message's state, when it is a message. */
export interface EditableRow {
  kind: string;
  event?: StoredEvent;
  ctx?: { actions?: MessageState };
}

/**
 * The id of the last message among `rows` that `me` may edit (↑ in an empty composer, as in
 * Slack): their own, not deleted, not a copy; null when there is none.
 */
export function lastOwnMessage(rows: readonly EditableRow[], me: string): string | null {
  for (let i = rows.length - 1; i >= 0; i--) {
    const row = rows[i]!;
    const state = row.ctx?.actions;
    if (row.kind === "event" && row.event && state && state.author === me && !state.deleted && !isCopy(row.event)) return state.id;
  }
  return null;
}

/**
 * True when two states of a message read the same: text, edits, deletion, pin and reactions
 * (who reacted with what). Both undefined (no state) is the same too.
 */
export function sameMessageState(a: MessageState | undefined, b: MessageState | undefined): boolean {
  if (a === b) return true;
  if (!a || !b) return false;
  return (
    a.text === b.text &&
    a.edits.length === b.edits.length &&
    a.mentions.join("\n") === b.mentions.join("\n") &&
    a.deleted?.at === b.deleted?.at &&
    a.pinned?.seq === b.pinned?.seq &&
    a.reactions.length === b.reactions.length &&
    a.reactions.every((r, i) => r.emoji === b.reactions[i]!.emoji && r.by.join("\n") === b.reactions[i]!.by.join("\n"))
  );
}

/**
 * `events` (a thread's, seq order) with the message actions among `all` (the channel's) that
 * name one of its messages, in seq order: a thread pane shows its messages as their reactions,
 * edits, deletes and pins left them. Returns `events` itself when none is missing.
 */
export function withActions(events: readonly StoredEvent[], all: readonly StoredEvent[]): StoredEvent[] {
  const messages = new Set(events.filter((e) => isEvent(e, "chat.message")).map((e) => `${e.run_id}/${e.id}`));
  const actions = all.filter((e) => isMessageAction(e) && messages.has(`${e.run_id}/${e.payload.message_id}`));
  return mergeBySeq(events, actions);
}
