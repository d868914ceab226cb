/**
 * Which events count towards a channel's unread badge: what a person would want to read,
 * not agents' heartbeats or tool chatter.
 */
import type { MessageType } from "./protocol/payloads";
import { isCopy } from "./conversation";

const UNREAD_TYPES: ReadonlySet<string> = new Set<MessageType>([
  "chat.message",
  "chat.system",
  "task.request",
  "task.result",
  "task.error",
  "task.timeout",
  "task.cancel",
  "routing.failure",
]);

/** `meta.kind` of the chat.system notice that announces a new channel: not news to anyone. */
export const THREAD_CREATED = "thread.created";

/** True when the event adds one to its thread's unread count (a fork's copies never do: they were read once). */
export function countsAsUnread(ev: { type: string; meta?: Record<string, unknown> }): boolean {
  return UNREAD_TYPES.has(ev.type) && ev.meta?.kind !== THREAD_CREATED && !isCopy(ev);
}
