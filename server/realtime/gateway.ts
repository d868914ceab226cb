/**
 * The Socket.IO gateway (contract in lib/realtime/contract.ts; docs/architecture.md "From
 * request to socket").
 *
 * A subscription `{ thread_id | run_id, after }` keeps its own cursor: the seq of the last event
 * it sent. It first replays the store after `after`, then goes live. While it replays, the tail's
 * live events for it are buffered; when the replay has caught up, the buffer is flushed and the
 * subscription goes live. The store can be ahead of the tail (an event is readable once committed,
 * and reaches the tail a moment later), so the replay may already have sent events the tail
 * delivers afterwards: every send, replayed, buffered or live, checks `seq > cursor`, so a
 * subscription never sends an event twice or out of order. Live events go to the sockets whose
 * subscriptions want them in one `io.to(socketIds).emit`, so each is encoded once and a socket
 * with two matching subscriptions (its channel and one of its runs) still gets it once.
 *
 * It also broadcasts `thread.activity` (the ThreadSummaries that changed) to every client,
 * one message every ACTIVITY_MS at most, so sidebars keep unread counts live.
 */
import type { Server as HttpServer } from "node:http";
import { Server, type Socket } from "socket.io";
import type { StoredEvent } from "@/lib/protocol";
import { SubscriptionSchema, type Ack, type ClientEvents, type ServerEvents, type Subscription } from "@/lib/realtime/contract";
import type { EventStore } from "../events/store";
import type { EventTail } from "../events/tail";
import { isClutchError } from "../errors";
import { log } from "../log";
import { authenticate, type Principal } from "./auth";

const ACTIVITY_MS = 250;
const REPLAY_PAGE = 1000;

type ClutchSocket = Socket<ClientEvents, ServerEvents, Record<string, never>, { principal: Principal }>;

interface LiveSub {
  key: string;
  socket: ClutchSocket;
  cursor: number;
  live: boolean;
  buffer: StoredEvent[];
  closed: boolean;
}

const keyOf = (s: Subscription) => (s.thread_id ? `thread:${s.thread_id}` : `run:${s.run_id}`);

function fail(code: string, message: string): Ack {
  return { ok: false, error: { code, message } };
}

export class RealtimeGateway {
  readonly io: Server<ClientEvents, ServerEvents>;
  private readonly byKey = new Map<string, Set<LiveSub>>();
  private readonly dirtyThreads = new Set<string>();
  private activityTimer: NodeJS.Timeout | null = null;
  private readonly unsubscribeTail: () => void;

  constructor(
    httpServer: HttpServer,
    private readonly store: EventStore,
    tail: EventTail,
  ) {
    this.io = new Server<ClientEvents, ServerEvents>(httpServer, { serveClient: false, maxHttpBufferSize: 1e6 });
    this.io.use((socket, next) => {
      authenticate({ headers: socket.handshake.headers, auth: socket.handshake.auth ?? {} })
        .then((principal) => {
          (socket as ClutchSocket).data.principal = principal;
          next();
        })
        .catch((err: Error) => next(err));
    });
    this.io.on("connection", (socket) => this.onConnection(socket as ClutchSocket));
    this.unsubscribeTail = tail.subscribe((ev) => this.onEvent(ev));
  }

  /** Stop listening and close every connection. */
  async close(): Promise<void> {
    this.unsubscribeTail();
    if (this.activityTimer) clearTimeout(this.activityTimer);
    await this.io.close();
  }

  private onConnection(socket: ClutchSocket): void {
    const subs = new Map<string, LiveSub>();
    socket.on("subscribe", (raw, ack) => {
      const reply = typeof ack === "function" ? ack : () => {};
      const parsed = SubscriptionSchema.safeParse(raw);
      if (!parsed.success) return reply(fail("invalid_subscription", parsed.error.issues[0]!.message));
      void this.subscribe(socket, subs, parsed.data, reply);
    });
    socket.on("unsubscribe", (raw, ack) => {
      const reply = typeof ack === "function" ? ack : () => {};
      const parsed = SubscriptionSchema.safeParse(raw);
      if (!parsed.success) return reply(fail("invalid_subscription", parsed.error.issues[0]!.message));
      const key = keyOf(parsed.data);
      const sub = subs.get(key);
      if (sub) this.remove(sub, subs);
      reply({ ok: true });
    });
    socket.on("disconnect", () => {
      for (const sub of [...subs.values()]) this.remove(sub, subs);
    });
  }

  private async subscribe(socket: ClutchSocket, subs: Map<string, LiveSub>, s: Subscription, reply: (a: Ack) => void) {
    try {
      if (s.thread_id && !(await this.store.getThread(s.thread_id))) {
        return reply(fail("unknown_thread", `thread ${s.thread_id} does not exist`));
      }
      const key = keyOf(s);
      const old = subs.get(key);
      if (old) this.remove(old, subs);
      const sub: LiveSub = { key, socket, cursor: s.after ?? 0, live: false, buffer: [], closed: false };
      subs.set(key, sub);
      let set = this.byKey.get(key);
      if (!set) this.byKey.set(key, (set = new Set()));
      set.add(sub);
      reply({ ok: true });
      await this.replay(sub, s.thread_id ? { thread_id: s.thread_id } : { run_id: s.run_id! });
    } catch (err) {
      log.error({ err }, "subscribe failed");
      reply(fail(isClutchError(err) ? err.code : "internal", "could not subscribe; try again"));
    }
  }

  /** Emit the store's events after the cursor, then the buffered live ones; then go live. */
  private async replay(sub: LiveSub, scope: { thread_id: string } | { run_id: string }) {
    for (;;) {
      const page = await this.store.read(scope, { after: sub.cursor, limit: REPLAY_PAGE });
      if (sub.closed) return;
      for (const ev of page.events) this.emit(sub, ev);
      if (page.next_after === null) break;
    }
    for (const ev of sub.buffer) this.emit(sub, ev);
    sub.buffer = [];
    sub.live = true;
  }

  private emit(sub: LiveSub, ev: StoredEvent) {
    if (ev.seq <= sub.cursor) return;
    sub.cursor = ev.seq;
    sub.socket.emit("event", ev);
  }

  private remove(sub: LiveSub, subs: Map<string, LiveSub>) {
    sub.closed = true;
    subs.delete(sub.key);
    const set = this.byKey.get(sub.key);
    set?.delete(sub);
    if (set && !set.size) this.byKey.delete(sub.key);
  }

  /** A committed event from the tail (seq order): to every live subscription still behind it. */
  private onEvent(ev: StoredEvent) {
    const sockets = new Set<string>();
    for (const key of [`thread:${ev.thread_id}`, `run:${ev.run_id}`]) {
      for (const sub of this.byKey.get(key) ?? []) {
        if (!sub.live) sub.buffer.push(ev);
        else if (ev.seq > sub.cursor) {
          sub.cursor = ev.seq;
          sockets.add(sub.socket.id);
        }
      }
    }
    if (sockets.size) this.io.to([...sockets]).emit("event", ev);
    this.dirtyThreads.add(ev.thread_id);
    this.activityTimer ??= setTimeout(() => void this.flushActivity(), ACTIVITY_MS);
  }

  private async flushActivity() {
    this.activityTimer = null;
    const ids = [...this.dirtyThreads];
    this.dirtyThreads.clear();
    try {
      const threads = await this.store.getThreads(ids);
      if (threads.length) this.io.emit("thread.activity", threads);
    } catch (err) {
      log.warn({ err }, "thread.activity broadcast failed");
    }
  }
}
