/**
 * The client event store's one rule, which makes a network drop harmless: events are keyed by
 * `seq`, kept ascending, each seq once. Live events, backlog after a reconnect and older pages all
 * go through `mergeBySeq`, so a seq seen twice never shows twice and a gap filled later lands in
 * its place.
 */
import type { StoredEvent } from "@/lib/protocol";

/**
 * `current` with `incoming` merged in: ascending by seq, unique by seq (the copy already held
 * wins). Returns `current` itself when nothing new arrived, so React Query sees no change.
 */
export function mergeBySeq(current: readonly StoredEvent[], incoming: readonly StoredEvent[]): StoredEvent[] {
  if (incoming.length === 0) return current as StoredEvent[];
  const last = current.length ? current[current.length - 1].seq : 0;
  // Fast path: everything new is after what we hold, already in order.
  let inOrder = true;
  for (let i = 0; i < incoming.length; i++) {
    if (incoming[i].seq <= (i === 0 ? last : incoming[i - 1].seq)) {
      inOrder = false;
      break;
    }
  }
  if (inOrder) return current.concat(incoming);

  const bySeq = new Map<number, StoredEvent>();
  for (const ev of incoming) if (!bySeq.has(ev.seq)) bySeq.set(ev.seq, ev);
  for (const ev of current) bySeq.set(ev.seq, ev);
  if (bySeq.size === current.length) return current as StoredEvent[];
  return [...bySeq.values()].sort((a, b) => a.seq - b.seq);
}
