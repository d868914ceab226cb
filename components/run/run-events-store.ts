/**
 * `RunEventsStore`: every event of one run in the browser, folded (lib/fold/run-graph.ts
 * `RunTimeline`) and kept live as events arrive, for running and finished runs alike.
 *
 * - Loads the run's events as one stream of JSON Lines (`GET /api/runs/:id/events/stream`),
 *   adding each batch to the timeline as it arrives, so a large run is usable before it is all
 *   loaded.
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
import { streamRunEvents } from "./api";

/** Loading progress. */
export interface LoadStatus {
  /** Every stored event up to the subscription has been loaded. */
  done: boolean;
  error: string | null;
  /** 404: the run does not exist (yet). */
  missing: boolean;
}

/**
 * While the history streams in, the page is told of new events at most every LOAD_NOTIFY_MS, and
 * only once the events held have grown by LOAD_NOTIFY_GROWTH since it was last told: each render
 * goes over every event held (the run's usage, run-usage.tsx), so renders at a fixed pace would
 * cost the square of the run's length, and these cost a few times its length.
 */
const LOAD_NOTIFY_MS = 100;
const LOAD_NOTIFY_GROWTH = 1.25;

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

  /**
   * The run's history after what the timeline holds, streamed (`GET /api/runs/:id/events/stream`):
   * each batch of lines is added to the timeline as it arrives, and the page told now and then
   * (LOAD_NOTIFY_MS), so a large run is usable before it is all loaded. Then live events.
   */
  private async load(signal: AbortSignal): Promise<void> {
    let toldAt = 0;
    let toldCount = 0;
    try {
      await streamRunEvents(this.runId, this.timeline.lastSeq, signal, (events) => {
        if (signal.aborted || !this.timeline.append(events)) return;
        if (performance.now() - toldAt < LOAD_NOTIFY_MS || this.timeline.length < toldCount * LOAD_NOTIFY_GROWTH) return;
        toldAt = performance.now();
        toldCount = this.timeline.length;
        this.notify();
      });
      if (signal.aborted) return;
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
