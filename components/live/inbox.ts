/**
 * The For you inbox in the browser (`GET /api/inbox`, docs/channels.md "For you"): the page, the
 * sidebar's count, the tab title and browser notifications read this one query.
 *
 * Freshness: refetched every 15 s, at once when an `approval.*` event or a read mark changes
 * what it holds, and within a second of any channel's activity (components/live/live-sync.ts
 * calls `inboxChanged`), so a question, an approval, a mention or a direct message in a channel
 * that is not open shows up too (the gateway sends a DM's activity to its two people like any
 * channel's, a new DM included: its announcement makes the gateway recompute who may read
 * what). `markChannelRead` records a read on the server (PUT /api/threads/:id/read).
 */
import { useQuery, type QueryClient } from "@tanstack/react-query";
import type { InboxAnswer } from "@/lib/api/types";
import { apiRequest } from "./api";

/** The query key of the inbox. */
export const inboxKey = ["inbox"] as const;

/** The signed-in person's inbox, newest first, with the number of items not done. */
export function useInbox() {
  return useQuery({
    queryKey: inboxKey,
    queryFn: () => apiRequest<InboxAnswer>("/api/inbox"),
    refetchInterval: 15_000,
    staleTime: 2_000,
  });
}

let soon: ReturnType<typeof setTimeout> | null = null;

/** The inbox may have changed: refetch it now, or at most once a second. */
export function inboxChanged(qc: QueryClient, now = false): void {
  if (now) {
    if (soon) clearTimeout(soon);
    soon = null;
    void qc.invalidateQueries({ queryKey: inboxKey });
    return;
  }
  if (soon) return;
  soon = setTimeout(() => {
    soon = null;
    void qc.invalidateQueries({ queryKey: inboxKey });
  }, 1_000);
}

const sent = new Map<string, { seq: number; count: number }>();

/**
 * Forgets the read last recorded for channel `threadId` (after "Mark unread" moved the server's
 * mark back), so the next `markChannelRead` records its position again.
 */
export function forgetChannelRead(threadId: string): void {
  sent.delete(threadId);
}

/**
 * Records on the server that the person has read channel `threadId` up to `seq` (having seen
 * `count` unread-worthy events), once per new position; then refetches the inbox when it holds
 * an unread item of that channel the read covers. Failures are ignored (the next read retries).
 */
export async function markChannelRead(qc: QueryClient, threadId: string, seq: number, count: number): Promise<void> {
  const last = sent.get(threadId);
  if (last && last.seq >= seq && last.count >= count) return;
  sent.set(threadId, { seq, count });
  try {
    await apiRequest(`/api/threads/${encodeURIComponent(threadId)}/read`, { method: "PUT", body: JSON.stringify({ seq, count }) });
  } catch {
    sent.delete(threadId);
    return;
  }
  const inbox = qc.getQueryData<InboxAnswer>(inboxKey);
  if (inbox?.items.some((i) => i.unread && i.thread_id === threadId && i.seq <= seq)) inboxChanged(qc, true);
}
