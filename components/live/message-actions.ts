/**
 * Message actions from the browser (docs/channels.md "Message actions"): react, edit, delete,
 * pin, mark unread, and the channel's pins. Each action's route answers the stored event (null
 * when nothing changed), which goes into the channel's event cache at once (`ingestEvents`), so
 * the message shows the change before the socket echoes it; other people see it live through the
 * channel's subscription like any event.
 */
import { useCallback, useEffect, useRef, useSyncExternalStore } from "react";
import { useQuery, useQueryClient, type QueryClient } from "@tanstack/react-query";
import type { ThreadSummary } from "@/lib/api/types";
import type { MarkUnreadResponse, MessageActionResponse, PinsResponse } from "@/lib/api/message-actions";
import { isEvent, type StoredEvent } from "@/lib/protocol";
import { lowerReadMarks } from "@/components/prefs/read-marks";
import { apiRequest } from "./api";
import { forgetChannelRead, inboxChanged } from "./inbox";
import { ingestEvents } from "./live-sync";
import { queryKeys, type ThreadEventsData } from "./query-keys";

const messageUrl = (threadId: string, messageId: string) => `/api/threads/${encodeURIComponent(threadId)}/messages/${encodeURIComponent(messageId)}`;

/** Sends one action and puts the event it stored into the channel's cache. */
async function act(url: string, init: RequestInit): Promise<MessageActionResponse> {
  const answer = await apiRequest<MessageActionResponse>(url, init);
  if (answer.event) ingestEvents([answer.event]);
  return answer;
}

/** Adds (`on`) or removes the signed-in person's reaction `emoji` to a message. */
export function setReaction(threadId: string, messageId: string, emoji: string, on: boolean): Promise<MessageActionResponse> {
  const url = `${messageUrl(threadId, messageId)}/reactions`;
  return on ? act(url, { method: "POST", body: JSON.stringify({ emoji }) }) : act(`${url}?emoji=${encodeURIComponent(emoji)}`, { method: "DELETE" });
}

/** Replaces the text of the person's own message (403 not_author for anyone else's). */
export function editMessage(threadId: string, messageId: string, text: string): Promise<MessageActionResponse> {
  return act(messageUrl(threadId, messageId), { method: "PATCH", body: JSON.stringify({ text }) });
}

/** Deletes a message for everyone (its author, or an admin): a tombstone, the log keeps the message. */
export function deleteMessage(threadId: string, messageId: string): Promise<MessageActionResponse> {
  return act(messageUrl(threadId, messageId), { method: "DELETE" });
}

/** Pins (`pinned`) or unpins a message in its channel. */
export function setPinned(threadId: string, messageId: string, pinned: boolean): Promise<MessageActionResponse> {
  return act(`${messageUrl(threadId, messageId)}/pin`, { method: pinned ? "PUT" : "DELETE" });
}

/**
 * "Mark unread": the server's read mark of the channel moves to just before the message, and so
 * do this browser's (the sidebar counts from the further of the two) and the cached channel
 * list's; the For you inbox is refetched. Answers the new mark.
 */
export async function markUnread(qc: QueryClient, threadId: string, messageId: string): Promise<MarkUnreadResponse["read"]> {
  const { read } = await apiRequest<MarkUnreadResponse>(`/api/threads/${encodeURIComponent(threadId)}/read/unread`, {
    method: "POST",
    body: JSON.stringify({ message_id: messageId }),
  });
  forgetChannelRead(threadId);
  lowerReadMarks(threadId, read.seq, read.count);
  qc.setQueryData<ThreadSummary[]>(queryKeys.threads, (old) => old?.map((t) => (t.id === threadId ? { ...t, read } : t)));
  inboxChanged(qc, true);
  window.dispatchEvent(new CustomEvent(MARKED_UNREAD, { detail: { threadId } }));
  return read;
}

/**
 * The window event "Mark unread" sends (`detail.threadId`): the open channel stops marking itself
 * read as new events come, until the person reads it on purpose (Esc, sending, leaving it).
 */
export const MARKED_UNREAD = "clutch:marked-unread";

/** The query key of a channel's pins. */
export const pinsKey = (threadId: string) => ["thread-pins", threadId] as const;

const lastPinChangeOf = new WeakMap<readonly StoredEvent[], number>();

/** The seq of the last pin, unpin, edit or delete among a channel's loaded events (0: none). */
function lastPinChange(events: readonly StoredEvent[] | undefined): number {
  if (!events) return 0;
  let last = lastPinChangeOf.get(events);
  if (last === undefined) {
    last = 0;
    for (const ev of events) if (isEvent(ev, "chat.pin", "chat.edit", "chat.delete")) last = Math.max(last, ev.seq);
    lastPinChangeOf.set(events, last);
  }
  return last;
}

/**
 * The channel's pinned messages, newest pin first (`GET /api/threads/:id/pins`). Refetched when a
 * pin, an unpin, an edit or a delete arrives in the channel's loaded events (an edit changes a
 * pin's text, a delete removes its pin).
 */
export function usePins(threadId: string) {
  const qc = useQueryClient();
  const pins = useQuery({
    queryKey: pinsKey(threadId),
    queryFn: () => apiRequest<PinsResponse>(`/api/threads/${encodeURIComponent(threadId)}/pins`),
    staleTime: 60_000,
  });
  // Reads the channel's event cache (the channel fills it) without observing it as a query.
  const subscribe = useCallback((notify: () => void) => qc.getQueryCache().subscribe(notify), [qc]);
  const changed = useSyncExternalStore(
    subscribe,
    () => lastPinChange(qc.getQueryData<ThreadEventsData>(queryKeys.threadEvents(threadId))?.events),
    () => 0,
  );
  const seen = useRef(changed);
  useEffect(() => {
    if (changed > seen.current) void qc.invalidateQueries({ queryKey: pinsKey(threadId) });
    seen.current = changed;
  }, [qc, threadId, changed]);
  return pins;
}
