/**
 * The gateway's outbox: the events due to each socket within one tick, sent as one `events`
 * frame per socket (lib/realtime/contract.ts; docs/architecture.md "Fan-out").
 *
 * `queue(ev, targets)` puts an event on the queue of every socket in `targets`, on behalf of the
 * subscriptions of that socket that want it; the first queue of a tick schedules `flush()` with
 * `setImmediate`, so a burst handed over within one turn of the event loop (a commit's events,
 * the commits that completed in one poll phase, a replay page) leaves as one frame, and a lone
 * event waits for nothing but the end of the current turn.
 *
 * Invariants:
 * - **FIFO per socket.** A socket's events leave in the order they were queued; the gateway queues
 *   each subscription's events in seq order (replay, buffer, then live), so each subscription's
 *   events reach its client in seq order, and frames to one socket never overtake each other.
 * - **Nothing for a subscription that ended.** An event queued for a socket is sent only if at
 *   least one of the subscriptions it was queued for is still open when the frame leaves: after
 *   an unsubscribe (or a subscribe that replaces the subscription, replaying from its `after`, or
 *   a subscription dropped because access changed) nothing more of it is sent, so a replacing
 *   subscription's replay never follows a stale copy of the same events.
 * - **One encode per distinct frame.** Sockets whose frames hold the same events in the same
 *   order (the clients of one channel) get them in one room broadcast (`send(socketIds, events)`),
 *   encoded once.
 * - **Bounded frames.** A frame holds at most MAX_FRAME_EVENTS events; a larger burst goes out as
 *   several frames, in order, in the same flush.
 *
 * Other messages to a socket (stream messages, `access.ended`) are not queued here: the gateway
 * calls `flush()` before sending one that must not overtake the events queued before it.
 */
import type { StoredEvent } from "@/lib/protocol";
import { MAX_FRAME_EVENTS } from "@/lib/realtime/contract";

/** What a queued event is for: the subscriptions it was queued on behalf of (open while `closed` is false). */
export interface FrameSub {
  readonly closed: boolean;
}

interface Queued {
  /** The event's number in this tick: the same for every socket it was queued to in one call. */
  n: number;
  ev: StoredEvent;
  subs: FrameSub[];
}

export class EventFrames {
  private readonly queues = new Map<string, Queued[]>();
  private count = 0;
  private scheduled: NodeJS.Immediate | null = null;

  /**
   * @param send emits one `events` frame (1..MAX_FRAME_EVENTS events, in queue order) to every
   *   socket id in `socketIds`, encoding it once (a room broadcast).
   */
  constructor(private readonly send: (socketIds: string[], events: StoredEvent[]) => void) {}

  /**
   * Queue `ev` for every socket id of `targets`, on behalf of the subscriptions listed for it
   * (see the module doc). The frame leaves at the end of this turn of the event loop, or earlier
   * with `flush()`.
   */
  queue(ev: StoredEvent, targets: ReadonlyMap<string, FrameSub[]>): void {
    if (!targets.size) return;
    const n = this.count++;
    for (const [socketId, subs] of targets) {
      const q = this.queues.get(socketId);
      const item = { n, ev, subs };
      if (q) q.push(item);
      else this.queues.set(socketId, [item]);
    }
    this.scheduled ??= setImmediate(() => this.flush());
  }

  /** Whether anything waits to be sent. */
  get pending(): boolean {
    return this.queues.size > 0;
  }

  /**
   * Send every queued event now: per socket, the events whose subscriptions are still open, as
   * frames of at most MAX_FRAME_EVENTS; sockets with the same frames in one broadcast each.
   */
  flush(): void {
    if (this.scheduled) clearImmediate(this.scheduled);
    this.scheduled = null;
    if (!this.queues.size) return;
    const groups = new Map<string, { sockets: string[]; events: StoredEvent[] }>();
    for (const [socketId, q] of this.queues) {
      const open = q.filter((item) => item.subs.some((s) => !s.closed));
      if (!open.length) continue;
      const key = open.length === 1 ? String(open[0]!.n) : open.map((item) => item.n).join(",");
      const group = groups.get(key);
      if (group) group.sockets.push(socketId);
      else groups.set(key, { sockets: [socketId], events: open.map((item) => item.ev) });
    }
    this.queues.clear();
    this.count = 0;
    for (const { sockets, events } of groups.values()) {
      if (events.length <= MAX_FRAME_EVENTS) this.send(sockets, events);
      else for (let i = 0; i < events.length; i += MAX_FRAME_EVENTS) this.send(sockets, events.slice(i, i + MAX_FRAME_EVENTS));
    }
  }

  /** Drop everything queued, unsent (the gateway is closing). */
  clear(): void {
    if (this.scheduled) clearImmediate(this.scheduled);
    this.scheduled = null;
    this.queues.clear();
    this.count = 0;
  }
}
