/**
 * Response shapes of the message-action routes (docs/channels.md "Message actions"; the state is
 * lib/fold/message-actions.ts `MessageState`, the same fold the browser runs over a channel's events).
 */
import type { StoredEvent } from "../protocol";
import type { MessageState, Pin } from "../fold/message-actions";

/**
 * `POST|DELETE …/reactions`, `PATCH|DELETE /api/threads/:thread_id/messages/:message_id`,
 * `PUT|DELETE …/pin`: the action as stored (null when it changed nothing and nothing was stored)
 * and the message's state after it.
 */
export interface MessageActionResponse {
  event: StoredEvent | null;
  message: MessageState;
}

/** One pinned message: the chat.message as first sent, its state now, and who pinned it when. */
export interface PinnedMessage {
  message: StoredEvent;
  state: MessageState;
  pinned: Pin;
}

/** `GET /api/threads/:thread_id/pins`: the channel's pinned messages, newest pin first. */
export interface PinsResponse {
  pins: PinnedMessage[];
}

/** `POST /api/threads/:thread_id/read/unread`: the person's read mark after it moved back. */
export interface MarkUnreadResponse {
  read: { seq: number; count: number };
}
