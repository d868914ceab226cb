/**
 * The Socket.IO gateway (contract in lib/realtime/contract.ts; docs/architecture.md "From
 * request to socket").
 *
 * A subscription `{ thread_id | run_id | agent_id, after }` keeps its own cursor: the seq of the last event
 * it sent. It first replays the store after `after`, then goes live. While it replays, the tail's
 * live events for it are buffered; when the replay has caught up, the buffer is flushed and the
 * subscription goes live. The store can be ahead of the tail (an event is readable once committed,
 * and reaches the tail a moment later), so the replay may already have sent events the tail
 * delivers afterwards: every send, replayed, buffered or live, checks `seq > cursor`, so a
 * subscription never sends an event twice or out of order. A socket with two matching
 * subscriptions (its channel and one of its runs) gets a live event once.
 *
 * Events leave in `events` frames (./frames.ts, docs/architecture.md "Fan-out"): replayed,
 * buffered and live events alike are queued per socket, in the order above, and each socket gets
 * the events queued for it within one turn of the event loop as one frame; sockets due the same
 * frame (a channel's clients) get it in one `io.to(socketIds).emit`, encoded once. A frame
 * carries only events of subscriptions still open when it leaves. Before anything that must not
 * overtake the events already queued (a stream message, a caught-up subscription's open streams,
 * an access check that may drop subscriptions), the queue is flushed.
 *
 * It also broadcasts `thread.activity` (the ThreadSummaries that changed) to every client,
 * one message every ACTIVITY_MS at most, so sidebars keep unread counts live; and, for the agent
 * feed (./agents-feed.ts), `agents.changed` cut per socket to what its principal may read
 * (`emitAgents`).
 *
 * Every connection is a principal (docs/identity.md): the session cookie of the handshake, or an
 * API key in `auth.token`; a handshake that proves nobody is refused ("unauthenticated"). A
 * subscription needs read access to its channel (a run's: the run's channel); one that may not
 * read it is told the channel does not exist. An agent's inbox (`agent_id`: the events whose `to`
 * names it, in every channel) is for that agent's own key only. `thread.activity` carries only the channels each
 * client may read; an inbox carries only the events of channels its agent may read.
 *
 * It tracks people's presence (server/realtime/presence.ts), across the deployment's nodes when
 * given its `bus`: a person's first socket on any node broadcasts `presence.changed` online to
 * every client and their last one's disconnect offline; each socket gets a `presence.snapshot`
 * of the people online right after it connects.
 *
 * It carries the streams (server/streams/hub.ts, lib/realtime/streams.ts): a reply's open, deltas
 * and end, agents' statuses and people typing go to the sockets whose live subscriptions watch
 * the stream's channel or run, once per socket; a subscription that has caught up gets the open
 * streams (with their text so far) and statuses of its channel or run, so a late joiner sees a
 * reply from where it is. A person's `typing` is heard from a socket subscribed to that channel,
 * at most once a second, and goes to the others.
 *
 * Access is taken away at once, on every node (docs/identity.md "Live connections"): each node
 * learns of changes from the `audit.change` events in its own tail, whoever made them.
 * - A channel's members or visibility changed (`channel.*`, in the channel): every subscription
 *   to it and its runs is checked again and dropped if no longer allowed.
 * - A session ended (`session.ended`, whose `subject` is the session's id: signed out, signed out
 *   by a password change, revoked): the sockets whose handshake's cookie was that session are
 *   disconnected; the person's other sessions keep theirs.
 * - Anything else about who may do what (`key.revoked`, `agent.disabled`, `member.role_changed`,
 *   `member.deactivated`, …, whose `subject` is a key id or a principal): the sockets of that
 *   key or principal authenticate again with the credential of their handshake; one that no
 *   longer proves anybody is disconnected (`io server disconnect`), one whose role changed
 *   keeps only the subscriptions it may still read.
 * - A socket opened with a session authenticates again when the session expires (each node's
 *   own timer), and is disconnected unless the session was renewed meanwhile.
 * A socket disconnected for any of these is told why first (`access.ended { code, message }`).
 * Events are delivered one at a time in seq order, and the next waits until such a check has
 * finished (the events queued before it sent first), so nothing the principal may no longer read
 * is sent after the change.
 */
import type { Server as HttpServer } from "node:http";
import { Server, type Socket } from "socket.io";
import { isImportedCopy, type StoredEvent } from "@/lib/protocol";
import { SubscriptionSchema, type AccessEnded, type Ack, type ClientEvents, type ServerEvents, type Subscription } from "@/lib/realtime/contract";
import type { AgentSummary } from "@/lib/api/types";
import type { EventStore } from "../events/store";
import type { EventTail } from "../events/tail";
import { THREAD_CREATED } from "@/lib/unread";
import { isClutchError } from "../errors";
import { log } from "../log";
import type { Identity } from "../auth/identity";
import type { Readable } from "../auth/access";
import type { Principal } from "../auth/principal";
import { PresenceTracker } from "./presence";
import { EventFrames } from "./frames";
import { TypingInputSchema } from "@/lib/realtime/streams";
import type { HubEvent, StreamHub } from "../streams/hub";
import type { StreamBus } from "../streams/bus";

const ACTIVITY_MS = 250;
/** The least time between two `typing` heard from one socket (ms). */
const TYPING_EVERY_MS = 1_000;
const REPLAY_PAGE = 1000;
/** The longest a Node timer waits (ms); a session's expiry further off is checked then, and again. */
const MAX_TIMER_MS = 2 ** 31 - 1;
/** How long after its session's expiry a socket authenticates again (ms): past any rounding. */
const EXPIRY_GRACE_MS = 250;

/** What a session-ended socket is told, by how the session ended (`session.ended`'s `detail.how`). */
const SESSION_ENDED: Record<string, string> = {
  signed_out: "this session was signed out: sign in again",
  password_changed: "the password was changed and this session signed out: sign in again",
  revoked: "this session was revoked: sign in again",
  expired: "this session expired: sign in again",
};
const sessionEnded = (how: unknown): AccessEnded => ({
  code: "session_ended",
  message: (typeof how === "string" && SESSION_ENDED[how]) || "this session ended: sign in again",
});

/** What a socket whose credential proves nobody after audit.change `action` is told. */
function accessEnded(action: string): AccessEnded {
  if (action === "key.revoked") return { code: "key_revoked", message: "the API key of this connection was revoked" };
  if (action === "agent.disabled") return { code: "agent_disabled", message: "this agent was disabled by an admin" };
  if (action === "member.deactivated") return { code: "deactivated", message: "this account was deactivated by an admin" };
  return { code: "unauthenticated", message: "this connection's credential no longer proves anybody: sign in again" };
}

interface SocketData {
  principal: Principal;
  readable?: Readable;
  /** What the handshake proved itself with, to authenticate again when access changes. */
  credential: { headers: Headers; token?: string };
  /** For a socket opened with a session: the timer that authenticates it again when the session expires. */
  expiry?: NodeJS.Timeout;
  /** The socket's subscriptions by key. */
  subs: Map<string, LiveSub>;
  /** When this socket's person last said they were typing (ms). */
  typedAt?: number;
  /** The client asked for `events` frames (handshake `auth.frames: true`); else it gets one `event` per event. */
  frames: boolean;
}
type ClutchSocket = Socket<ClientEvents, ServerEvents, Record<string, never>, SocketData>;

interface LiveSub {
  key: string;
  /**
   * The channel the subscription reads (a run's channel for a run); undefined for a run that has
   * no event yet, until its first event arrives and `access` says whether its channel is readable.
   */
  thread_id: string | undefined;
  /** For a run with no event yet: the channels the socket could read when it subscribed. */
  access?: Readable;
  /** An agent's inbox: the events addressed to this agent, in every channel. */
  inbox?: string;
  socket: ClutchSocket;
  cursor: number;
  live: boolean;
  buffer: StoredEvent[];
  closed: boolean;
}

const keyOf = (s: Subscription) => (s.thread_id ? `thread:${s.thread_id}` : s.run_id ? `run:${s.run_id}` : `agent:${s.agent_id}`);

function fail(code: string, message: string): Ack {
  return { ok: false, error: { code, message } };
}

export class RealtimeGateway {
  readonly io: Server<ClientEvents, ServerEvents>;
  private readonly byKey = new Map<string, Set<LiveSub>>();
  private readonly dirtyThreads = new Set<string>();
  private activityTimer: NodeJS.Timeout | null = null;
  private readonly unsubscribeTail: () => void;
  private readonly unsubscribeStreams: () => void;
  /** Deliveries, one event at a time in seq order (see the module doc). */
  private chain: Promise<void> = Promise.resolve();
  /** The events queued per socket for this turn's `events` frames (see the module doc). */
  private readonly frames: EventFrames;
  /** People's connected sockets, on this node and the deployment's others (see the module doc). */
  readonly presence: PresenceTracker;
  private readonly unsubscribePresence: () => void;

  constructor(
    httpServer: HttpServer,
    private readonly store: EventStore,
    tail: EventTail,
    private readonly identity: Identity,
    private readonly streams?: StreamHub,
    bus?: StreamBus,
  ) {
    this.presence = new PresenceTracker({ ...(bus ? { bus } : {}) });
    this.unsubscribePresence = this.presence.onChange((person, status) => this.io.emit("presence.changed", { agent_id: person, status }));
    this.io = new Server<ClientEvents, ServerEvents>(httpServer, { serveClient: false, maxHttpBufferSize: 1e6 });
    this.frames = new EventFrames((sockets, events) => this.sendFrame(sockets, events));
    this.io.use((socket, next) => {
      const headers = new Headers();
      for (const [k, v] of Object.entries(socket.handshake.headers)) if (typeof v === "string") headers.set(k, v);
      const token = typeof socket.handshake.auth?.token === "string" ? socket.handshake.auth.token : undefined;
      identity
        .authenticate(headers, token)
        .then((principal) => {
          if (!principal) return next(new Error("unauthenticated: sign in, or pass an API key as auth.token"));
          (socket as ClutchSocket).data.principal = principal;
          (socket as ClutchSocket).data.credential = { headers, ...(token ? { token } : {}) };
          (socket as ClutchSocket).data.frames = socket.handshake.auth?.frames === true;
          next();
        })
        .catch((err: Error) => next(err));
    });
    this.io.on("connection", (socket) => this.onConnection(socket as ClutchSocket));
    this.unsubscribeTail = tail.subscribe((ev) => this.onEvent(ev), { copies: true });
    this.unsubscribeStreams = streams?.listen((e) => this.onStream(e)) ?? (() => {});
  }

  /** Stop listening and close every connection. */
  async close(): Promise<void> {
    this.unsubscribeTail();
    this.unsubscribeStreams();
    this.unsubscribePresence();
    this.presence.close();
    if (this.activityTimer) clearTimeout(this.activityTimer);
    this.frames.clear();
    await this.io.close();
  }

  private onConnection(socket: ClutchSocket): void {
    const subs = new Map<string, LiveSub>();
    socket.data.subs = subs;
    // Presence is the handshake's person: a later role change keeps the same `user:` id.
    const person = socket.data.principal.kind === "person" ? socket.data.principal.agent_id : null;
    if (person) this.presence.connect(person, socket.id); // a change reaches every client through onChange
    socket.emit("presence.snapshot", { online: this.presence.online() });
    this.watchExpiry(socket);
    socket.on("presence", (ack) => {
      if (typeof ack === "function") ack({ online: this.presence.online() });
    });
    socket.on("subscribe", (raw, ack) => {
      const reply = typeof ack === "function" ? ack : () => {};
      const parsed = SubscriptionSchema.safeParse(raw);
      if (!parsed.success) return reply(fail("invalid_subscription", parsed.error.issues[0]!.message));
      void this.subscribe(socket, subs, parsed.data, reply);
    });
    socket.on("typing", (raw) => {
      const parsed = TypingInputSchema.safeParse(raw);
      if (!parsed.success || !person || !this.streams) return;
      const now = Date.now();
      if (now - (socket.data.typedAt ?? 0) < TYPING_EVERY_MS) return;
      // Subscribed: the channel's read access was checked then.
      if (!subs.has(`thread:${parsed.data.thread_id}`)) return;
      socket.data.typedAt = now;
      this.streams.typing({ ...parsed.data, agent_id: person });
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
      clearTimeout(socket.data.expiry);
      for (const sub of [...subs.values()]) this.remove(sub, subs);
      if (person) this.presence.disconnect(person, socket.id);
    });
  }

  private async subscribe(socket: ClutchSocket, subs: Map<string, LiveSub>, s: Subscription, reply: (a: Ack) => void) {
    try {
      const principal = socket.data.principal;
      let thread_id = s.thread_id;
      let access: Readable | undefined;
      if (s.agent_id) {
        if (principal.kind !== "system" && !(principal.kind === "agent" && principal.agent_id === s.agent_id)) {
          return reply(fail("not_your_agent", `only ${s.agent_id}'s own API key may subscribe to the events addressed to it; this connection is ${principal.agent_id}`));
        }
      } else if (s.run_id) {
        // A run's channel is that of its first event; a run with none yet may still start.
        thread_id = (await this.store.read({ run_id: s.run_id }, { limit: 1 })).events[0]?.thread_id;
        if (!thread_id) access = await this.readableBy(socket);
        else if (!(await this.identity.channels.canRead(principal, thread_id))) return reply(fail("unknown_run", `run ${s.run_id} does not exist`));
      } else if (!(await this.identity.channels.canRead(principal, thread_id!))) {
        return reply(fail("unknown_thread", `thread ${s.thread_id} does not exist`));
      }
      const key = keyOf(s);
      const old = subs.get(key);
      if (old) this.remove(old, subs);
      const sub: LiveSub = { key, thread_id, access, ...(s.agent_id ? { inbox: s.agent_id } : {}), socket, cursor: s.after ?? 0, live: false, buffer: [], closed: false };
      subs.set(key, sub);
      let set = this.byKey.get(key);
      if (!set) this.byKey.set(key, (set = new Set()));
      set.add(sub);
      reply({ ok: true });
      await this.replay(sub, s.thread_id ? { thread_id: s.thread_id } : s.run_id ? { run_id: s.run_id } : { to_agent: s.agent_id! });
    } catch (err) {
      log.error({ err }, "subscribe failed");
      reply(fail(isClutchError(err) ? err.code : "internal", "could not subscribe; try again"));
    }
  }

  /** Emit the store's events after the cursor, then the buffered live ones; then go live. */
  private async replay(sub: LiveSub, scope: { thread_id: string } | { run_id: string } | { to_agent: string }) {
    for (;;) {
      const page = await this.store.read(scope, { after: sub.cursor, limit: REPLAY_PAGE });
      if (sub.closed) return;
      for (const ev of page.events) if (!sub.inbox || (await this.mayRead(sub.socket, ev.thread_id))) this.emit(sub, ev);
      if (page.next_after === null) break;
    }
    for (const ev of sub.buffer) this.emit(sub, ev);
    sub.buffer = [];
    sub.live = true;
    this.catchUpStreams(sub, scope);
  }

  /** A subscription that caught up: the open streams and statuses of its channel or run. */
  private catchUpStreams(sub: LiveSub, scope: { thread_id: string } | { run_id: string } | { to_agent: string }) {
    if (!this.streams || "to_agent" in scope || sub.closed) return;
    this.frames.flush(); // the replayed events first: a stream the client already holds as an event is dropped
    for (const info of this.streams.openIn(scope)) sub.socket.emit("stream.open", info);
    for (const status of this.streams.statusIn(scope)) sub.socket.emit("agent.status", status);
  }

  /** A stream's open, delta or end, a status or a typing: to the sockets whose live subscriptions watch its channel or run. */
  private onStream(e: HubEvent) {
    const at = "open" in e ? e.open : "status" in e ? e.status : "typing" in e ? { thread_id: e.typing.thread_id, run_id: e.typing.run_id ?? null } : e;
    const sockets = new Set<string>();
    for (const key of [`thread:${at.thread_id}`, ...(at.run_id ? [`run:${at.run_id}`] : [])]) {
      for (const sub of this.byKey.get(key) ?? []) {
        if (sub.closed || !sub.live || sub.thread_id === undefined) continue;
        if ("typing" in e && sub.socket.data.principal.agent_id === e.typing.agent_id) continue;
        sockets.add(sub.socket.id);
      }
    }
    if (!sockets.size) return;
    this.frames.flush(); // in the order the gateway saw them: the events before this message first
    const to = this.io.to([...sockets]);
    if ("open" in e) to.emit("stream.open", e.open);
    else if ("delta" in e) to.emit("stream.delta", e.delta);
    else if ("end" in e) to.emit("stream.end", e.end);
    else if ("status" in e) to.emit("agent.status", e.status);
    else to.emit("typing", e.typing);
  }

  /**
   * One frame to `socketIds`: an `events` message to the sockets that asked for frames, encoded
   * once; the same events one `event` message each, in order, to the others (lib/realtime/contract.ts).
   */
  private sendFrame(socketIds: string[], events: StoredEvent[]) {
    const framed: string[] = [];
    const single: string[] = [];
    for (const id of socketIds) ((this.io.sockets.sockets.get(id) as ClutchSocket | undefined)?.data.frames === false ? single : framed).push(id);
    if (framed.length) this.io.to(framed).emit("events", events);
    if (single.length) for (const ev of events) this.io.to(single).emit("event", ev);
  }

  /** Queue `ev` for the subscription's socket (./frames.ts) unless the subscription already sent it. */
  private emit(sub: LiveSub, ev: StoredEvent) {
    if (ev.seq <= sub.cursor) return;
    sub.cursor = ev.seq;
    this.frames.queue(ev, new Map([[sub.socket.id, [sub]]]));
  }

  private remove(sub: LiveSub, subs: Map<string, LiveSub>) {
    sub.closed = true;
    if (subs.get(sub.key) === sub) subs.delete(sub.key);
    const set = this.byKey.get(sub.key);
    set?.delete(sub);
    if (set && !set.size) this.byKey.delete(sub.key);
  }

  /** A committed event from the tail (seq order): delivered after the ones before it. */
  private onEvent(ev: StoredEvent) {
    this.chain = this.chain.then(() => this.deliver(ev)).catch((err: unknown) => log.error({ err, seq: ev.seq }, "realtime delivery failed"));
  }

  /**
   * Queue `ev` for the sockets of every live subscription still behind it, once per socket
   * (./frames.ts); then, for an access change, send what is queued and make the checks it calls
   * for, so the events before the change reach who could read them and none after it does.
   */
  private async deliver(ev: StoredEvent) {
    const sockets = new Map<string, LiveSub[]>();
    // An imported copy is shown in its channel and run, never delivered to an agent's inbox (it never acts).
    const copy = isImportedCopy(ev);
    for (const key of [`thread:${ev.thread_id}`, `run:${ev.run_id}`, ...(copy ? [] : ev.to.map((t) => `agent:${t.agent_id}`))]) {
      for (const sub of [...(this.byKey.get(key) ?? [])]) {
        if (sub.closed) continue;
        if (sub.thread_id === undefined && !sub.inbox && !this.admit(sub, ev)) continue;
        if (sub.inbox && !(await this.mayRead(sub.socket, ev.thread_id))) continue;
        if (!sub.live) sub.buffer.push(ev);
        else if (ev.seq > sub.cursor) {
          sub.cursor = ev.seq;
          const subs = sockets.get(sub.socket.id);
          if (subs) subs.push(sub);
          else sockets.set(sub.socket.id, [sub]);
        }
      }
    }
    this.frames.queue(ev, sockets);
    this.dirtyThreads.add(ev.thread_id);
    this.activityTimer ??= setTimeout(() => void this.flushActivity(), ACTIVITY_MS);
    if (copy) return;
    if (ev.type === "audit.change" && typeof ev.payload.action === "string") {
      this.frames.flush();
      if (ev.payload.action.startsWith("channel.")) await this.recheck(ev.thread_id);
      else if (ev.payload.action === "session.ended") this.endSession(String(ev.payload.subject ?? ""), ev.payload.detail);
      else await this.reauthenticate(String(ev.payload.subject ?? ""), ev.payload.detail, accessEnded(ev.payload.action));
    } else if (ev.meta?.kind === THREAD_CREATED) this.forgetAccess();
  }

  /**
   * Who may do what changed for `subject` (a key id, or a principal's `agent_id`; for a key,
   * `detail.owner` names its principal): its sockets authenticate again with their handshake's
   * credential. One that proves nobody now is disconnected, told `why`; one whose principal
   * changed (a new role) keeps only the subscriptions it may still read.
   */
  private async reauthenticate(subject: string, detail: unknown, why: AccessEnded) {
    if (!subject) return;
    const owner = typeof (detail as { owner?: unknown } | undefined)?.owner === "string" ? (detail as { owner: string }).owner : null;
    for (const raw of [...this.io.sockets.sockets.values()]) {
      const socket = raw as ClutchSocket;
      const p = socket.data.principal;
      if (!p || p.kind === "system") continue;
      const key_id = p.kind === "agent" || p.kind === "person" ? p.key_id : undefined;
      if (p.agent_id !== subject && key_id !== subject && p.agent_id !== owner) continue;
      await this.authenticateAgain(socket, why);
    }
  }

  /**
   * The socket authenticates again with its handshake's credential: disconnected (told `why`)
   * when that proves nobody now, else it takes the new principal (a new role, a renewed
   * session) and keeps only the subscriptions it may still read.
   */
  private async authenticateAgain(socket: ClutchSocket, why: AccessEnded) {
    const now = await this.identity.authenticate(socket.data.credential.headers, socket.data.credential.token).catch(() => null);
    if (!now) return this.cut(socket, why);
    socket.data.principal = now;
    delete socket.data.readable;
    this.watchExpiry(socket);
    for (const sub of [...socket.data.subs.values()]) {
      if (sub.access) sub.access = await this.readableBy(socket);
      if (sub.thread_id === undefined) continue;
      if (!(await this.identity.channels.canRead(now, sub.thread_id).catch(() => false))) this.remove(sub, socket.data.subs);
    }
  }

  /**
   * Session `session_id` ended (`session.ended`; `detail.how` says how): the sockets whose
   * handshake proved itself with it are disconnected; the person's other sessions keep theirs.
   */
  private endSession(session_id: string, detail: unknown) {
    if (!session_id) return;
    const why = sessionEnded((detail as { how?: unknown } | undefined)?.how);
    for (const raw of [...this.io.sockets.sockets.values()]) {
      const socket = raw as ClutchSocket;
      const p = socket.data.principal;
      if (p?.kind === "person" && p.session?.id === session_id) this.cut(socket, why);
    }
  }

  /**
   * A socket opened with a session authenticates again when the session expires (in turn with
   * the deliveries, so nothing after the expiry reaches it): disconnected unless the session was
   * renewed meanwhile (then it waits for the new expiry). Replaces the socket's previous timer.
   */
  private watchExpiry(socket: ClutchSocket) {
    clearTimeout(socket.data.expiry);
    const p = socket.data.principal;
    if (p.kind !== "person" || !p.session) return;
    const wait = Math.min(Math.max(0, p.session.expires - Date.now()) + EXPIRY_GRACE_MS, MAX_TIMER_MS);
    socket.data.expiry = setTimeout(() => {
      this.chain = this.chain
        .then(() => {
          if (!socket.connected) return;
          this.frames.flush();
          return this.authenticateAgain(socket, sessionEnded("expired"));
        })
        .catch((err: unknown) => log.error({ err }, "checking a socket's session failed"));
    }, wait);
    socket.data.expiry.unref();
  }

  /** Disconnect `socket` (`io server disconnect`), telling it why first; its subscriptions end. */
  private cut(socket: ClutchSocket, why: AccessEnded) {
    clearTimeout(socket.data.expiry);
    for (const sub of [...socket.data.subs.values()]) this.remove(sub, socket.data.subs);
    socket.emit("access.ended", why);
    socket.disconnect(true);
  }

  /** True when the socket's principal may read channel `thread_id` (its cached access). */
  private async mayRead(socket: ClutchSocket, thread_id: string): Promise<boolean> {
    const readable = await this.readableBy(socket);
    return readable.all || readable.ids.has(thread_id);
  }

  /**
   * A channel's members or visibility changed: forget every socket's cached access, and drop the
   * subscriptions to that channel (and its runs) whose principal may no longer read it.
   */
  private async recheck(thread_id: string) {
    this.forgetAccess();
    for (const set of this.byKey.values()) {
      for (const sub of [...set]) {
        if (sub.closed) continue;
        if (sub.access) sub.access = await this.readableBy(sub.socket); // a run with no event yet: its channel may be this one
        if (sub.thread_id !== thread_id) continue;
        const allowed = await this.identity.channels.canRead(sub.socket.data.principal, thread_id).catch(() => false);
        if (!allowed) this.remove(sub, sub.socket.data.subs);
      }
    }
  }

  /**
   * The first event of a run subscribed to before it had any: the subscription takes that event's
   * channel, and is dropped (quietly, as if the run did not exist) when the socket may not read it.
   */
  private admit(sub: LiveSub, ev: StoredEvent): boolean {
    const access = sub.access!;
    if (access.all || access.ids.has(ev.thread_id)) {
      sub.thread_id = ev.thread_id;
      sub.access = undefined;
      return true;
    }
    this.remove(sub, sub.socket.data.subs);
    return false;
  }

  /** Forget every socket's cached channel access (a channel was created, or its members changed). */
  private forgetAccess() {
    for (const socket of this.io.sockets.sockets.values()) delete (socket as ClutchSocket).data.readable;
  }

  /**
   * Send `agents.changed` to every connected socket, each the agent directory as its principal
   * may read it: `viewFor(readable)` with the channels the socket may read (its cached access,
   * kept current like its subscriptions', see the module doc). `threads` are the channels the
   * directory names (server/router/directory.ts `AgentDirectory.threads`): sockets that may read
   * the same ones of them get the same list, computed and encoded once. Queued behind the
   * deliveries, so an access change the tail delivered before it is honoured. Resolves when sent;
   * a failure is logged, never thrown.
   */
  emitAgents(threads: ReadonlySet<string>, viewFor: (readable: Readable) => AgentSummary[]): Promise<void> {
    const send = async () => {
      const groups = new Map<string, { readable: Readable; sockets: string[] }>();
      const memo = new Map<string, Promise<Readable>>();
      for (const raw of [...this.io.sockets.sockets.values()]) {
        const socket = raw as ClutchSocket;
        if (!socket.data.principal || !socket.connected) continue;
        const readable = await this.readableBy(socket, memo);
        const ids = readable.all ? null : [...threads].filter((t) => readable.ids.has(t)).sort();
        const key = ids ? `some:${ids.join(",")}` : "all";
        let group = groups.get(key);
        if (!group) groups.set(key, (group = { readable: ids ? { all: false, ids: new Set(ids) } : { all: true }, sockets: [] }));
        group.sockets.push(socket.id);
      }
      for (const g of groups.values()) this.io.to(g.sockets).emit("agents.changed", viewFor(g.readable));
    };
    const sent = this.chain.then(send).catch((err: unknown) => log.warn({ err }, "agents.changed broadcast failed"));
    this.chain = sent;
    return sent;
  }

  /**
   * The channels a socket may read, cached on the socket until membership changes. `memo`, for a
   * pass over many sockets (a broadcast): sockets of the same principal (a person's tabs, an
   * agent's connections) share one lookup in that pass instead of one each, in turn.
   */
  private async readableBy(socket: ClutchSocket, memo?: Map<string, Promise<Readable>>): Promise<Readable> {
    if (socket.data.readable) return socket.data.readable;
    const p = socket.data.principal;
    if (!memo) return (socket.data.readable = await this.identity.channels.readable(p));
    // What ChannelAccess.readable depends on: who, and whether a guest.
    const key = `${p.kind}\u0000${p.agent_id}\u0000${p.kind === "person" ? p.role : ""}`;
    let readable = memo.get(key);
    if (!readable) memo.set(key, (readable = this.identity.channels.readable(p)));
    return (socket.data.readable = await readable);
  }

  /**
   * `thread.activity` to every socket: the changed channels it may read. Sockets that may read the
   * same ones of them get the same list in one broadcast, encoded once (a channel's clients, every
   * admin), instead of one encode per socket.
   */
  private async flushActivity() {
    this.activityTimer = null;
    const ids = [...this.dirtyThreads];
    this.dirtyThreads.clear();
    try {
      const threads = await this.store.getThreads(ids);
      if (!threads.length) return;
      const groups = new Map<string, { threads: typeof threads; sockets: string[] }>();
      const memo = new Map<string, Promise<Readable>>();
      for (const socket of [...this.io.sockets.sockets.values()]) {
        const readable = await this.readableBy(socket as ClutchSocket, memo);
        const mine = readable.all ? threads : threads.filter((t) => readable.ids.has(t.id));
        if (!mine.length) continue;
        const key = mine === threads ? "*" : mine.map((t) => t.id).join(",");
        const group = groups.get(key);
        if (group) group.sockets.push(socket.id);
        else groups.set(key, { threads: mine, sockets: [socket.id] });
      }
      for (const g of groups.values()) this.io.to(g.sockets).emit("thread.activity", g.threads);
    } catch (err) {
      log.warn({ err }, "thread.activity broadcast failed");
    }
  }
}
