/**
 * `RunEventsStore`: every event of one run in the browser, folded (lib/fold/run-graph.ts
 * `RunTimeline`) and kept live as events arrive, for running and finished runs alike.
 *
 * - Loads the run's events page by page (`GET /api/runs/:id/events?after=&limit=5000`), adding
 *   each page to the timeline as it arrives, so a large run is usable before it is all loaded.
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

  private async load(signal: AbortSignal): Promise<void> {
    const get = (after: number) => fetchRunEvents(this.runId, after, this.pageSize, signal);
    try {
      let request = get(this.timeline.lastSeq);
      for (;;) {
        let page;
        try {
          page = await request;
        } catch (err) {
          // A server with a smaller page limit: ask again with its classic 1000.
          if (err instanceof ApiRequestError && err.code === "invalid_query" && this.pageSize > 1000) {
            this.pageSize = 1000;
            request = get(this.timeline.lastSeq);
            continue;
          }
          throw err;
        }
        if (signal.aborted) return;
        const more = page.next_after !== null && page.events.length > 0;
        // Ask for the next page before folding this one: the server works while the browser folds.
        if (more) request = get(page.next_after!);
        if (this.timeline.append(page.events)) this.notify();
        if (!more) break;
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

  private follow(signal: AbortSignal): void {
    if (signal.aborted || this.stopSocket) return;
    const socket = getSocket();
    const sub = () =>
      socket.emit("subscribe", { run_id: this.runId, after: this.timeline.lastSeq }, (ack) => {
        if (!ack?.ok) console.warn(`[clutch] subscribe run ${this.runId} failed:`, ack?.error);
      });
    const onEvent = (ev: StoredEvent) => {
      if (!ev || ev.run_id !== this.runId || typeof ev.seq !== "number") return;
      this.pending.push(ev);
      if (!this.flushTimer) this.flushTimer = setTimeout(this.flush, 16);
    };
    socket.on("event", onEvent);
    socket.on("connect", sub);
    if (socket.connected) sub();
    this.stopSocket = () => {
      socket.off("event", onEvent);
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
