/**
 * `RunEventsStore`: every event of one run in the browser, folded (lib/fold/run-graph.ts
 * `RunTimeline`) and kept live as events arrive, for running and finished runs alike.
 *
 * - Loads the run's first page (`GET /api/runs/:id/events?after=&limit=5000`), then the rest of a
 *   large run as a few seq slices fetched at once (`after` and `before`), adding each to the
 *   timeline in order as soon as it can, so a large run is usable before it is all loaded.
 * - Then subscribes to the run over Socket.IO (`subscribe { run_id, after: last seq held }`):
 *   the server sends what was missed, then live events. Re-subscribes the same way after every
 *   reconnect, so nothing is missed or doubled (the timeline skips seqs it holds).
 * - Live events are batched per frame (16 ms) into one append and one notification.
 *
 * `subscribe`/`getVersion` plug into React's useSyncExternalStore.
 */
import type { StoredEvent } from "@/lib/protocol";
import { RunTimeline, type RunGraphState } from "@/lib/fold/run-graph";
import { getSocket } from "@/components/live/socket";
import { ApiRequestError } from "@/components/live/api";
import { EVENT_PAGE, fetchRunEvents } from "./api";

/** Loading progress. */
export interface LoadStatus {
  /** Every stored event up to the subscription has been loaded. */
  done: boolean;
  error: string | null;
  /** 404: the run does not exist (yet). */
  missing: boolean;
}

/** Seq ranges a long run's events load in at once, after its first page. */
const SLICES = 4;

/**
 * (after, newest] cut into `n` ranges `[after_i, before_i]` meaning after_i < seq < before_i,
 * in order, together covering it; fewer when it is narrow.
 */
export function sliceRange(after: number, newest: number, n: number): [number, number][] {
  const width = Math.max(1, Math.ceil((newest - after) / n));
  const out: [number, number][] = [];
  for (let lo = after; lo < newest; lo += width) out.push([lo, Math.min(lo + width, newest) + 1]);
  return out;
}

export class RunEventsStore {
  readonly timeline = new RunTimeline();
  /** The head as of the last new task: changes only when the tree does (drives the layout). */
  treeHead: RunGraphState = this.timeline.head;
  status: LoadStatus = { done: false, error: null, missing: false };
  /** Changes on every new event or status change. */
  version = 0;
  private listeners = new Set<() => void>();
  private abort: AbortController | null = null;
  private pending: StoredEvent[] = [];
  private flushTimer: ReturnType<typeof setTimeout> | null = null;
  private stopSocket: (() => void) | null = null;

  constructor(readonly runId: string) {}

  subscribe = (fn: () => void): (() => void) => {
    this.listeners.add(fn);
    return () => this.listeners.delete(fn);
  };

  getVersion = (): number => this.version;

  private notify(): void {
    const head = this.timeline.head;
    if (head.task_total !== this.treeHead.task_total || head.id_count !== this.treeHead.id_count) this.treeHead = head;
    this.version++;
    for (const fn of this.listeners) fn();
  }

  /** Starts loading and following the run; returns the teardown (safe to call start again after it). */
  start(): () => void {
    const abort = new AbortController();
    this.abort = abort;
    void this.load(abort.signal);
    return () => {
      abort.abort();
      if (this.abort === abort) this.abort = null;
      this.stopSocket?.();
      this.stopSocket = null;
      if (this.flushTimer) clearTimeout(this.flushTimer);
      this.flushTimer = null;
    };
  }

  /** Loads again after an error. */
  retry(): void {
    if (!this.abort) return;
    this.status = { done: false, error: null, missing: false };
    this.notify();
    void this.load(this.abort.signal);
  }

  private pageSize = EVENT_PAGE;

  /**
   * The first page; then, for a run longer than a page, the rest in SLICES seq ranges fetched at
   * once (`after` and `before`), each folded as soon as every slice before it is in.
   */
  private async load(signal: AbortSignal): Promise<void> {
    try {
      const first = await this.firstPage(signal);
      if (signal.aborted) return;
      if (this.timeline.append(first.events)) this.notify();
      if (first.next_after !== null && first.events.length) {
        const newest = (await fetchRunEvents(this.runId, null, 1, signal, "end")).events[0]?.seq ?? first.next_after;
        const slices = sliceRange(first.next_after, newest, SLICES).map(([after, before]) => this.loadSlice(after, before, signal));
        for (const slice of slices) {
          const events = await slice;
          if (signal.aborted) return;
          if (this.timeline.append(events)) this.notify();
        }
      }
      this.status = { done: true, error: null, missing: false };
      this.notify();
      this.follow(signal);
    } catch (err) {
      if (signal.aborted) return;
      const missing = err instanceof ApiRequestError && err.status === 404;
      this.status = { done: false, error: err instanceof Error ? err.message : String(err), missing };
      this.notify();
    }
  }

  /** The first page after what the timeline holds; a server with a smaller page limit is asked again with its classic 1000. */
  private async firstPage(signal: AbortSignal) {
    try {
      return await fetchRunEvents(this.runId, this.timeline.lastSeq, this.pageSize, signal);
    } catch (err) {
      if (!(err instanceof ApiRequestError && err.code === "invalid_query" && this.pageSize > 1000)) throw err;
      this.pageSize = 1000;
      return fetchRunEvents(this.runId, this.timeline.lastSeq, this.pageSize, signal);
    }
  }

  /** Every event with after < seq < before, page by page. */
  private async loadSlice(after: number, before: number, signal: AbortSignal): Promise<StoredEvent[]> {
    const out: StoredEvent[] = [];
    for (let cursor: number | null = after; cursor !== null; ) {
      const page = await fetchRunEvents(this.runId, cursor, this.pageSize, signal, before);
      out.push(...page.events);
      cursor = page.events.length ? page.next_after : null;
    }
    return out;
  }

  private follow(signal: AbortSignal): void {
    if (signal.aborted || this.stopSocket) return;
    const socket = getSocket();
    const sub = () =>
      socket.emit("subscribe", { run_id: this.runId, after: this.timeline.lastSeq }, (ack) => {
        if (!ack?.ok) console.warn(`[clutch] subscribe run ${this.runId} failed:`, ack?.error);
      });
    // A frame of events (lib/realtime/contract.ts `events`): this run's, kept for the next flush.
    const onEvents = (frame: StoredEvent[]) => {
      if (!Array.isArray(frame)) return;
      let added = false;
      for (const ev of frame) {
        if (!ev || ev.run_id !== this.runId || typeof ev.seq !== "number") continue;
        this.pending.push(ev);
        added = true;
      }
      if (added && !this.flushTimer) this.flushTimer = setTimeout(this.flush, 16);
    };
    socket.on("events", onEvents);
    socket.on("connect", sub);
    if (socket.connected) sub();
    this.stopSocket = () => {
      socket.off("events", onEvents);
      socket.off("connect", sub);
      if (socket.connected) socket.emit("unsubscribe", { run_id: this.runId }, () => {});
    };
  }

  private flush = (): void => {
    this.flushTimer = null;
    const batch = this.pending.sort((a, b) => a.seq - b.seq);
    this.pending = [];
    if (this.timeline.append(batch)) this.notify();
  };
}
