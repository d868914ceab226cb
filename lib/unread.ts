/**
 * Which events count towards a channel's unread badge: what a person would want to read,
 * not agents' heartbeats or tool chatter.
 */
import type { MessageType } from "./protocol/payloads";

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

/** True when an event of this type adds one to its thread's unread count. */
export function countsAsUnread(type: string): boolean {
  return UNREAD_TYPES.has(type);
}
