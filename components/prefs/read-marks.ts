/**
 * Unread counts per channel: the last-read `message_count` per thread lives in localStorage
 * and on the server (`ThreadSummary.read`, set to the channel's end when the person joined and
 * moved forward as they read: server/events/read-marks.ts); the further of the two counts.
 * unread = message_count − read (never below 0). A channel the person never read and was never
 * marked for (one created after they joined, by an import or by someone else, that they have
 * not opened) has nothing unread: its history is not news to them, as a Slack channel one has
 * not joined. A direct message is always theirs: everything in it counts until read.
 */
import { useCallback } from "react";
import type { ThreadSummary } from "@/lib/api/types";
import { readLocal, useLocalValue, writeLocal } from "./local-store";

/** localStorage key of `{ [thread_id]: message_count read }`. */
export const READ_MARKS_KEY = "clutch:read";
type Marks = Record<string, number>;
const EMPTY: Marks = {};

/** Unread count for a channel given the read marks. */
export function unreadCount(thread: Pick<ThreadSummary, "id" | "message_count" | "read" | "kind">, marks: Marks): number {
  const local = marks[thread.id];
  const server = thread.read?.count;
  if (local === undefined && (server === undefined || server === null) && thread.kind !== "dm") return 0;
  return Math.max(0, thread.message_count - Math.max(local ?? 0, server ?? 0));
}

/** Read marks, and `markRead(threadId, messageCount)` which only ever moves forward. */
export function useReadMarks(): { marks: Marks; markRead: (threadId: string, count: number) => void } {
  const [marks] = useLocalValue<Marks>(READ_MARKS_KEY, EMPTY);
  const markRead = useCallback((threadId: string, count: number) => {
    const current = readLocal<Marks>(READ_MARKS_KEY, EMPTY);
    if ((current[threadId] ?? -1) >= count) return;
    writeLocal(READ_MARKS_KEY, { ...current, [threadId]: count });
  }, []);
  return { marks, markRead };
}

/** localStorage key of `{ [thread_id]: the last seq read }` (the unread divider). */
export const READ_SEQ_KEY = "clutch:read-seq";

/**
 * The last seq of a channel the person had read, or null when they never opened it: this
 * browser's mark or the server's (`serverSeq`, ThreadSummary.read.seq), the further one.
 */
export function readSeqOf(threadId: string, serverSeq?: number | null): number | null {
  const local = readLocal<Marks>(READ_SEQ_KEY, EMPTY)[threadId];
  if (local === undefined) return serverSeq ?? null;
  return serverSeq == null ? local : Math.max(local, serverSeq);
}

/** Records that the person has read a channel up to `seq` (only ever moves forward). */
export function markReadSeq(threadId: string, seq: number): void {
  const current = readLocal<Marks>(READ_SEQ_KEY, EMPTY);
  if ((current[threadId] ?? -1) >= seq) return;
  writeLocal(READ_SEQ_KEY, { ...current, [threadId]: seq });
}

/**
 * "Mark unread" (docs/channels.md "Message actions"): this browser's marks of a channel go back
 * to `count` read and seq `seq` (the server's answer), so the sidebar, which counts from the
 * further of this browser's mark and the server's, shows the channel unread again. The one move
 * back of the marks; a mark already behind stays.
 */
export function lowerReadMarks(threadId: string, seq: number, count: number): void {
  const counts = readLocal<Marks>(READ_MARKS_KEY, EMPTY);
  if ((counts[threadId] ?? 0) > count) writeLocal(READ_MARKS_KEY, { ...counts, [threadId]: count });
  const seqs = readLocal<Marks>(READ_SEQ_KEY, EMPTY);
  if ((seqs[threadId] ?? 0) > seq) writeLocal(READ_SEQ_KEY, { ...seqs, [threadId]: seq });
}
