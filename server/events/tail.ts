/**
 * EventTail: the ordered, after-commit feed of the log for this process (docs/architecture.md,
 * "The append path": nothing is published that is not stored).
 *
 * Appends in this process hand their committed events to `offer()`. Commits are in seq order
 * but their callbacks may run in any order, so the tail keeps a small reorder buffer and
 * releases events to listeners strictly in seq order, each exactly once. If a seq is missing
 * for longer than `gapWaitMs` (another process wrote it, or a callback was lost), or on the
 * `pollMs` timer, it reads the missing range from the store. On PostgreSQL it also listens for
 * the events table's notifications (`listen`), so events another node wrote arrive at once (or,
 * while this process's own appends are in flight, within `noticeWaitMs`).
 * Listeners therefore see every committed event in order, whoever wrote it.
 */
import pg from "pg";
import { isImportedCopy, type StoredEvent } from "@/lib/protocol";
import { headSeq, readEvents } from "./read";
import type { Sql } from "./sql";

export type TailListener = (event: StoredEvent) => void;

/** Waits before listening again after the notification connection dropped: the first, the longest (ms). */
const RECONNECT_MS = 1000;
const MAX_RECONNECT_MS = 30_000;

export interface TailOptions {
  /** How long a gap may stay before the tail reads it from the store (ms). */
  gapWaitMs?: number;
  /** How often to look for events written by other processes (ms); 0 disables. */
  pollMs?: number;
  /**
   * How long a notified head may stay ahead, while this process has appends in flight
   * (`appendsInFlight`), before the tail reads up to it (ms): those appends usually hand their
   * events over within it, so they are not read back.
   */
  noticeWaitMs?: number;
  onError?: (err: unknown) => void;
}

export class EventTail {
  private published = 0;
  private readonly pending = new Map<number, StoredEvent>();
  private readonly listeners = new Set<TailListener>();
  private readonly offerListeners = new Set<(events: readonly StoredEvent[]) => void>();
  private gapTimer: NodeJS.Timeout | null = null;
  /** The highest seq a notification announced, and the timer that reads up to it if no offer does. */
  private announced = 0;
  private noticeTimer: NodeJS.Timeout | null = null;
  private pollTimer: NodeJS.Timeout | null = null;
  private filling: Promise<void> | null = null;
  private fillAgain = false;
  private listener: pg.Client | null = null;
  private listenUrl: string | null = null;
  /** The wait before the next try to listen again (0: listening, or never lost). */
  private reconnectMs = 0;
  private retryTimer: NodeJS.Timeout | null = null;
  private stopped = false;
  private readonly gapWaitMs: number;
  private readonly pollMs: number;
  private readonly noticeWaitMs: number;
  /** Whether this process's own appends are in flight (set by the event store). */
  appendsInFlight: () => boolean = () => false;

  /** `sql` reads the log (on PostgreSQL the append path's own pool: no ORM on every commit). */
  constructor(
    private readonly sql: Sql,
    private readonly opts: TailOptions = {},
  ) {
    this.gapWaitMs = opts.gapWaitMs ?? 25;
    this.pollMs = opts.pollMs ?? 1000;
    this.noticeWaitMs = opts.noticeWaitMs ?? 5;
  }

  /** Start from the current head of the log: only events committed from now on are published. */
  async start(): Promise<void> {
    this.published = await headSeq(this.sql);
    if (this.pollMs > 0) {
      this.pollTimer = setInterval(() => void this.fill(), this.pollMs);
      this.pollTimer.unref();
    }
  }

  stop(): void {
    this.stopped = true;
    if (this.pollTimer) clearInterval(this.pollTimer);
    if (this.gapTimer) clearTimeout(this.gapTimer);
    if (this.noticeTimer) clearTimeout(this.noticeTimer);
    this.pollTimer = this.gapTimer = this.noticeTimer = null;
    if (this.retryTimer) clearTimeout(this.retryTimer);
    this.retryTimer = null;
    const listener = this.listener;
    this.listener = null;
    listener?.end().catch(() => undefined);
  }

  /** The highest seq released to listeners. */
  get head(): number {
    return this.published;
  }

  /**
   * Listen to every committed event in seq order. Returns the unsubscribe function.
   * Imported copies of runs (lib/protocol/imported.ts) never act, so only a listener that shows
   * the log (`{ copies: true }`: the realtime gateway) is handed them; the orchestrator, the
   * registry, adapters and every other listener never see one (docs/identity.md "Imported runs
   * are copies that never act").
   */
  subscribe(listener: TailListener, opts: { copies?: boolean } = {}): () => void {
    const l: TailListener = opts.copies ? listener : (ev) => void (isImportedCopy(ev) || listener(ev));
    this.listeners.add(l);
    return () => this.listeners.delete(l);
  }

  /**
   * Hear of events as they are handed over, before they are put in order: this process's commits
   * before their append returns (even while a gap before them, another node's commit not yet
   * read, holds them back from `subscribe`'s listeners), and what the tail reads. Any order; an
   * event may be heard twice. For caches that must forget at once what a commit makes stale
   * (server/auth/append-cache.ts); anything that acts on events uses `subscribe`. Returns the
   * unsubscribe function.
   */
  onOffer(listener: (events: readonly StoredEvent[]) => void): () => void {
    this.offerListeners.add(listener);
    return () => this.offerListeners.delete(listener);
  }

  /** Hand over events that have just committed (any order; seqs at or below head are ignored). */
  offer(events: readonly StoredEvent[]): void {
    for (const l of this.offerListeners) {
      try {
        l(events);
      } catch (err) {
        this.opts.onError?.(err);
      }
    }
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
    if (this.noticeTimer && this.published >= this.announced) {
      clearTimeout(this.noticeTimer);
      this.noticeTimer = null;
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

  /**
   * Read everything after head from the store and release it. One fill at a time; a fill asked
   * for while one runs makes it read once more, so a commit that lands mid-read is not left behind.
   */
  private fill(): Promise<void> {
    if (this.filling) {
      this.fillAgain = true;
      return this.filling;
    }
    this.filling = (async () => {
      try {
        do {
          this.fillAgain = false;
          for (;;) {
            const page = await readEvents(this.sql, { all: true }, { after: this.published, limit: 1000 });
            this.offer(page.events);
            if (page.next_after === null) break;
          }
        } while (this.fillAgain);
      } catch (err) {
        this.opts.onError?.(err);
      } finally {
        this.filling = null;
      }
    })();
    return this.filling;
  }

  /**
   * Wake on PostgreSQL's notice of new events from any node (channel `clutch_events`, sent at
   * commit by the events table's trigger): the tail reads them at once, not on the poll timer.
   * Uses a connection of its own to `connectionString`. When it drops, the loss is reported once
   * (`onError`) and the tail tries again after RECONNECT_MS, doubling up to MAX_RECONNECT_MS, then
   * reads what it missed; the poll timer covers the time between. Resolves once listening; rejects
   * when the first connection fails.
   */
  async listen(connectionString: string): Promise<void> {
    this.listenUrl = connectionString;
    try {
      await this.connectListener();
    } catch (err) {
      // The caller learns of it; nothing keeps trying behind its back.
      if (this.retryTimer) clearTimeout(this.retryTimer);
      this.retryTimer = null;
      this.reconnectMs = 0;
      throw err;
    }
  }

  private async connectListener(): Promise<void> {
    const client = new pg.Client({ connectionString: this.listenUrl! });
    client.on("notification", (n) => this.notified(Number(n.payload)));
    client.on("error", (err) => this.listenerLost(client, err));
    client.on("end", () => this.listenerLost(client));
    this.listener = client;
    try {
      await client.connect();
      await client.query("LISTEN clutch_events");
    } catch (err) {
      this.listenerLost(client, err);
      throw err;
    }
  }

  /**
   * A commit made `head` the log's head: read up to it at once, or, while this process has appends
   * in flight, unless they hand the events over within noticeWaitMs.
   */
  private notified(head: number): void {
    if (!(head > this.published)) return;
    this.announced = Math.max(this.announced, head);
    if (!this.appendsInFlight()) return void this.fill();
    if (this.noticeTimer) return;
    this.noticeTimer = setTimeout(() => {
      this.noticeTimer = null;
      if (this.published < this.announced) void this.fill();
    }, this.noticeWaitMs);
    this.noticeTimer.unref();
  }

  /** The notification connection `client` failed or ended: try again later (once per loss). */
  private listenerLost(client: pg.Client, err?: unknown): void {
    if (this.listener !== client) return;
    this.listener = null;
    client.end().catch(() => undefined);
    if (this.stopped) return;
    if (this.reconnectMs === 0) this.opts.onError?.(err ?? new Error("the event notification connection closed; reconnecting"));
    this.reconnectMs = Math.min(Math.max(RECONNECT_MS, this.reconnectMs * 2), MAX_RECONNECT_MS);
    this.retryTimer = setTimeout(() => {
      this.retryTimer = null;
      this.connectListener().then(
        () => {
          this.reconnectMs = 0;
          void this.fill();
        },
        () => undefined, // listenerLost has planned the next try
      );
    }, this.reconnectMs);
    this.retryTimer.unref();
  }
}
