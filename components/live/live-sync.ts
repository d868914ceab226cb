/**
 * Merges the live stream into the TanStack Query cache, and catches up after a network drop.
 *
 * - `events` (a frame of one or more events, lib/realtime/contract.ts) → buffered and flushed
 *   once per animation frame into `["thread-events", thread_id]` through `mergeBySeq` (dedupe by
 *   seq: a seq delivered twice, e.g. after subscribing twice, shows once).
 * - `thread.activity` → upserts the ThreadSummary in `["threads"]` (sidebar, unread badges),
 *   keeping the person's read mark (`read`), which activity does not carry.
 * - every (re)connect → re-subscribes each open channel with the last seq held, so the server
 *   sends exactly what was missed; and refetches the channel list.
 * - an event that changes a task (task.*, a question or an answer; lib/fold/task-state.ts
 *   `affectsTask`) → refetches the agents (their status) and that channel's runs (run headers),
 *   at most once per 250 ms.
 * - an `approval.*` event → refetches the approvals lists at once (sidebar badge, inbox); any
 *   channel's `thread.activity` → refetches them within a second, so approvals requested in
 *   channels that are not open show up too. The For you inbox (./inbox.ts) is refetched the
 *   same way.
 */
import type { QueryClient } from "@tanstack/react-query";
import type { ThreadSummary } from "@/lib/api/types";
import type { StoredEvent } from "@/lib/protocol";
import { affectsTask } from "@/lib/fold/task-state";
import { approvalsChanged } from "./approvals";
import { inboxChanged } from "./inbox";
import { mergeBySeq } from "./merge";
import { queryKeys, type ThreadEventsData } from "./query-keys";
import { getSocket } from "./socket";

let client: QueryClient | null = null;
const active = new Map<string, number>(); // thread_id → subscriber count
const buffer = new Map<string, StoredEvent[]>();
let flushTimer: ReturnType<typeof setTimeout> | null = null;
const staleRuns = new Set<string>();
let staleTimer: ReturnType<typeof setTimeout> | null = null;

/** Agents and runs change with tasks: refetch them soon, once for a burst of events. */
function markTaskActivity(threadId: string): void {
  staleRuns.add(threadId);
  if (staleTimer) return;
  staleTimer = setTimeout(() => {
    staleTimer = null;
    if (!client) return;
    void client.invalidateQueries({ queryKey: queryKeys.agents });
    for (const id of staleRuns) void client.invalidateQueries({ queryKey: queryKeys.threadRuns(id) });
    staleRuns.clear();
  }, 250);
}

function flush(): void {
  flushTimer = null;
  if (!client) return;
  for (const [threadId, events] of buffer) {
    client.setQueryData<ThreadEventsData>(queryKeys.threadEvents(threadId), (old) =>
      old ? { ...old, events: mergeBySeq(old.events, events) } : old,
    );
  }
  buffer.clear();
}

/** Adds events to a channel's cache (batched per frame). Used for socket events and POST answers. */
export function ingestEvents(events: readonly StoredEvent[]): void {
  for (const ev of events) {
    const list = buffer.get(ev.thread_id);
    if (list) list.push(ev);
    else buffer.set(ev.thread_id, [ev]);
  }
  if (!flushTimer) flushTimer = setTimeout(flush, 16);
}

/** The highest seq held (cached or buffered) for a thread; 0 when none. */
function lastSeq(threadId: string): number {
  const cached = client?.getQueryData<ThreadEventsData>(queryKeys.threadEvents(threadId))?.events;
  let last = cached?.length ? cached[cached.length - 1].seq : 0;
  for (const ev of buffer.get(threadId) ?? []) last = Math.max(last, ev.seq);
  return last;
}

/** Channels whose subscription the server has acknowledged on the current connection. */
const subscribed = new Set<string>();

/** Whether the server has acknowledged this connection's subscription to the channel (what it hears of it: typing). */
export function isSubscribed(threadId: string): boolean {
  return subscribed.has(threadId);
}

function emitSubscribe(threadId: string): void {
  const socket = getSocket();
  socket.emit("subscribe", { thread_id: threadId, after: lastSeq(threadId) }, (ack) => {
    if (!ack?.ok) console.warn(`[clutch] subscribe ${threadId} failed:`, ack?.error);
    else if (active.has(threadId)) subscribed.add(threadId);
  });
}

function upsertThreads(summaries: ThreadSummary[]): void {
  client?.setQueryData<ThreadSummary[]>(queryKeys.threads, (old) => {
    if (!old) return old;
    let next = old.slice();
    for (const summary of summaries) {
      const i = next.findIndex((t) => t.id === summary.id);
      if (i < 0) next = [...next, summary];
      // Ignore activity older than what we hold (out-of-order delivery).
      else if (next[i]!.last_seq <= summary.last_seq) next[i] = { ...summary, read: summary.read ?? next[i]!.read };
    }
    return next.sort((a, b) => a.name.localeCompare(b.name));
  });
}

/**
 * Wires the socket to the cache; call once with the app's QueryClient. Returns a teardown.
 */
export function startLiveSync(queryClient: QueryClient): () => void {
  client = queryClient;
  const socket = getSocket();
  let connectedBefore = false;
  const onConnect = () => {
    for (const threadId of active.keys()) emitSubscribe(threadId);
    if (connectedBefore) {
      void queryClient.invalidateQueries({ queryKey: queryKeys.threads });
      approvalsChanged(queryClient, true);
      inboxChanged(queryClient, true);
    }
    connectedBefore = true;
  };
  const onEvents = (frame: StoredEvent[]) => {
    if (!Array.isArray(frame)) return;
    const events = frame.filter((ev) => ev && typeof ev.seq === "number" && typeof ev.thread_id === "string");
    ingestEvents(events);
    let approvals = false;
    for (const ev of events) {
      // A model call changes what its run's card shows it cost.
      if (typeof ev.type === "string" && ev.payload && (affectsTask(ev) || ev.type === "model.usage")) markTaskActivity(ev.thread_id);
      if (typeof ev.type === "string" && ev.type.startsWith("approval.")) {
        markTaskActivity(ev.thread_id);
        approvals = true;
      }
    }
    if (approvals) {
      approvalsChanged(queryClient, true);
      inboxChanged(queryClient, true);
    }
  };
  const onActivity = (summaries: ThreadSummary[]) => {
    upsertThreads(summaries);
    approvalsChanged(queryClient);
    inboxChanged(queryClient);
  };
  const onDisconnect = () => subscribed.clear();
  socket.on("connect", onConnect);
  socket.on("disconnect", onDisconnect);
  socket.on("events", onEvents);
  socket.on("thread.activity", onActivity);
  if (socket.connected) onConnect();
  return () => {
    socket.off("connect", onConnect);
    socket.off("disconnect", onDisconnect);
    socket.off("events", onEvents);
    socket.off("thread.activity", onActivity);
    client = null;
  };
}

/**
 * Subscribes to a channel's live events after the last seq held (Socket.IO `subscribe`).
 * Reference-counted; returns the unsubscribe function.
 */
export function subscribeThread(threadId: string): () => void {
  const count = active.get(threadId) ?? 0;
  active.set(threadId, count + 1);
  const socket = getSocket();
  if (count === 0 && socket.connected) {
    flush();
    emitSubscribe(threadId);
  }
  return () => {
    const n = (active.get(threadId) ?? 1) - 1;
    if (n > 0) {
      active.set(threadId, n);
      return;
    }
    active.delete(threadId);
    subscribed.delete(threadId);
    if (socket.connected) socket.emit("unsubscribe", { thread_id: threadId }, () => {});
  };
}
