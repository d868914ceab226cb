/**
 * EventTail: the ordered, after-commit feed of the log for this process (docs/architecture.md,
 * "The append path": nothing is published that is not stored).
 *
 * Appends in this process hand their committed events to `offer()`. Commits are in seq order
 * but their callbacks may run in any order, so the tail keeps a small reorder buffer and
 * releases events to listeners strictly in seq order, each exactly once. If a seq is missing
 * for longer than `gapWaitMs` (another process wrote it, or a callback was lost), or on the
 * `pollMs` timer, it reads the missing range from the store. Listeners therefore see every
 * committed event in order, whoever wrote it.
 */
import type { StoredEvent } from "@/lib/protocol";
import type { Db } from "../db/client";
import { headSeq, readEvents } from "./read";

export type TailListener = (event: StoredEvent) => void;

export interface TailOptions {
  /** How long a gap may stay before the tail reads it from the store (ms). */
  gapWaitMs?: number;
  /** How often to look for events written by other processes (ms); 0 disables. */
  pollMs?: number;
  onError?: (err: unknown) => void;
}

export class EventTail {
  private published = 0;
  private readonly pending = new Map<number, StoredEvent>();
  private readonly listeners = new Set<TailListener>();
  private gapTimer: NodeJS.Timeout | null = null;
  private pollTimer: NodeJS.Timeout | null = null;
  private filling: Promise<void> | null = null;
  private readonly gapWaitMs: number;
  private readonly pollMs: number;

  constructor(
    private readonly db: Db,
    private readonly opts: TailOptions = {},
  ) {
    this.gapWaitMs = opts.gapWaitMs ?? 25;
    this.pollMs = opts.pollMs ?? 1000;
  }

  /** Start from the current head of the log: only events committed from now on are published. */
  async start(): Promise<void> {
    this.published = await headSeq(this.db);
    if (this.pollMs > 0) {
      this.pollTimer = setInterval(() => void this.fill(), this.pollMs);
      this.pollTimer.unref();
    }
  }

  stop(): void {
    if (this.pollTimer) clearInterval(this.pollTimer);
    if (this.gapTimer) clearTimeout(this.gapTimer);
    this.pollTimer = this.gapTimer = null;
  }

  /** The highest seq released to listeners. */
  get head(): number {
    return this.published;
  }

  /** Listen to every committed event in seq order. Returns the unsubscribe function. */
  subscribe(listener: TailListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Hand over events that have just committed (any order; seqs at or below head are ignored). */
  offer(events: readonly StoredEvent[]): void {
    for (const ev of events) if (ev.seq > this.published) this.pending.set(ev.seq, ev);
    this.drain();
  }

  private drain(): void {
    let next = this.pending.get(this.published + 1);
    while (next) {
      this.pending.delete(next.seq);
      this.published = next.seq;
      for (const l of this.listeners) {
        try {
          l(next);
        } catch (err) {
          this.opts.onError?.(err);
        }
      }
      next = this.pending.get(this.published + 1);
    }
    if (this.pending.size && !this.gapTimer) {
      this.gapTimer = setTimeout(() => {
        this.gapTimer = null;
        void this.fill();
      }, this.gapWaitMs);
      this.gapTimer.unref();
    } else if (!this.pending.size && this.gapTimer) {
      clearTimeout(this.gapTimer);
      this.gapTimer = null;
    }
  }

  /** Read everything after head from the store and release it. One fill at a time. */
  private fill(): Promise<void> {
    this.filling ??= (async () => {
      try {
        for (;;) {
          const page = await readEvents(this.db, { all: true }, { after: this.published, limit: 1000 });
          this.offer(page.events);
          if (page.next_after === null) break;
        }
      } catch (err) {
        this.opts.onError?.(err);
      } finally {
        this.filling = null;
      }
    })();
    return this.filling;
  }
}
