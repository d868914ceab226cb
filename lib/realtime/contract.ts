/**
 * The Socket.IO contract between browser and server, served by server/realtime/gateway.ts
 * (docs/architecture.md "From request to socket").
 *
 * Handshake `auth` (ClientAuth): `token`, an API key (else the session cookie proves who it is);
 * `frames: true`, events in `events` frames (below). Every client in this repository asks for
 * frames; a client that does not gets the same events one `event` message each, as before frames.
 *
 * Client → server:
 *   `subscribe`   { thread_id? | run_id? | agent_id?, after? } → ack { ok: true } | { ok: false, error }
 *                 After the ack the server sends, in `events` frames, every stored event of that
 *                 thread (or run) with seq > after: first the backlog from the store, then live
 *                 ones, in seq order, each once per subscription. `agent_id`: the events addressed to
 *                 that agent (in its `to`), in every channel: an external agent's inbox (its task
 *                 requests, cancels, messages to it), for that agent's own API key only
 *                 (`not_your_agent`). Give `after` (the last seq seen) when resuming: the backlog
 *                 of an inbox is found by reading the log from there.
 *   `unsubscribe` the same shape (after ignored) → ack. Nothing more of that subscription is
 *                 sent after the ack (events it had queued but not yet sent are dropped).
 *   `presence`    (no argument) → ack PresenceSnapshot: the people online now (as
 *                 `presence.snapshot`), for a client that starts listening after it connected.
 *   `typing`      TypingInput `{ thread_id, run_id? }`: the person is typing there (a run's
 *                 thread when `run_id`). Send at most every TYPING_THROTTLE_MS while typing; only
 *                 a person's socket subscribed to that channel is heard; never stored.
 * The server disconnects a socket (reason `io server disconnect`) whose credential stops working
 * (its session ended: signed out, signed out by a password change, revoked, expired; a revoked
 * key, a disabled agent, a deactivated person), telling it why first (`access.ended`), and drops
 * the subscriptions its principal may no longer read (docs/identity.md "Live connections").
 * Server → client:
 *   `events`          StoredEvent[] (ClutchMessage + seq), 1 to MAX_FRAME_EVENTS (1,000) of them:
 *                     the events the server had for this socket within one turn of its event loop
 *                     (docs/architecture.md "Fan-out"). A burst arrives as one frame; a lone event
 *                     as a frame of one, with no added wait. Handle every element, in array order:
 *                     frames and their elements arrive in the order sent, so each subscription's
 *                     events are in seq order across frames and within one, each once. A socket
 *                     with several subscriptions (a channel and one of its runs, or one caught up
 *                     while another replays) may get their events interleaved in one frame, each
 *                     subscription's in its own seq order: key what you hold by seq. Only to a
 *                     socket that asked for frames (`auth.frames: true`).
 *   `event`           StoredEvent: one event, to a socket that did not ask for frames (clients
 *                     written before frames), in the same order as a frame's elements.
 *   `thread.activity` the ThreadSummaries of the threads that changed (new events, created),
 *                     at most one message per client every 250 ms, so sidebars keep unread
 *                     counts live.
 *   `agents.changed`  every agent's AgentSummary (GET /api/agents), whenever one registers,
 *                     updates, comes online, goes offline or its load changes; at most one
 *                     message per client every 500 ms, so presence shows live. As over REST,
 *                     each client's `recent_tasks` hold only tasks of channels its principal may
 *                     read, kept current as its access changes (docs/identity.md "The agent
 *                     directory").
 *   `presence.snapshot` PresenceSnapshot `{ online: ["user:…", …] }`: the people online now,
 *                     sent to each socket right after it connects (docs/channels.md "Presence").
 *   `presence.changed`  PresenceChange `{ agent_id: "user:…", status: "online" | "offline" }`
 *                     to every socket when a person's first socket connects or their last one
 *                     disconnects (a second tab changes nothing). Ephemeral: never stored.
 *   Streams (lib/realtime/streams.ts; docs/channels.md "Streaming replies"), to the sockets
 *   subscribed to the stream's channel or run, never stored:
 *   `stream.open`     StreamInfo: a reply started, with its text so far. Also sent for every open
 *                     stream of a channel or run right after its subscription has caught up, so
 *                     a client that opens the channel mid-stream starts from the text so far.
 *   `stream.delta`    StreamDelta `{ stream_id, offset, text }`: keep the text up to `offset`,
 *                     append `text`; at most about 20 a second per stream.
 *   `stream.end`      StreamEnd `{ stream_id, status: done | stopped | interrupted, … }`. The
 *                     stored event a stream became names it (`streamIdOf`): drop the live copy
 *                     once it is held.
 *   `agent.status`    AgentStatus: what an agent is doing in a run, or null when it stopped;
 *                     the statuses of a channel or run are sent after its subscription caught up.
 *   `typing`          Typing `{ thread_id, run_id?, agent_id }`: a person is typing; show it for
 *                     TYPING_MS unless another arrives. A socket does not hear its own person.
 *   `access.ended`    AccessEnded `{ code, message }`, right before the server disconnects the
 *                     socket because its credential stopped working; `code`: `session_ended`,
 *                     `key_revoked`, `agent_disabled`, `deactivated` or `unauthenticated` (any
 *                     other reason). Connect again with a working credential: a browser whose
 *                     cookie holds a newer session (it changed the password) simply reconnects,
 *                     one signed out goes to sign-in.
 */
import { z } from "zod";
import type { StoredEvent } from "../protocol/envelope";
import type { AgentSummary, ThreadSummary } from "../api/types";
import type { AgentStatus, StreamDelta, StreamEnd, StreamInfo, Typing, TypingInput } from "./streams";

export const SubscriptionSchema = z
  .strictObject({
    thread_id: z.string().min(1).optional(),
    run_id: z.string().min(1).optional(),
    agent_id: z.string().min(1).optional(),
    after: z.number().int().nonnegative().optional(),
  })
  .refine((s) => [s.thread_id, s.run_id, s.agent_id].filter(Boolean).length === 1, {
    message: "subscribe to exactly one of thread_id, run_id or agent_id",
  });
export type Subscription = z.infer<typeof SubscriptionSchema>;

/** The most events in one `events` frame; a larger burst or replay page comes as several frames, in order. */
export const MAX_FRAME_EVENTS = 1000;

export type Ack = { ok: true } | { ok: false; error: { code: string; message: string } };

/** The people online now, by `user:` id (`presence.snapshot`, and the `presence` ack). */
export const PresenceSnapshotSchema = z.strictObject({ online: z.array(z.string().min(1)) });
export type PresenceSnapshot = z.infer<typeof PresenceSnapshotSchema>;

/** One person came online (their first socket) or went offline (their last one closed). */
export const PresenceChangeSchema = z.strictObject({ agent_id: z.string().min(1), status: z.enum(["online", "offline"]) });
export type PresenceChange = z.infer<typeof PresenceChangeSchema>;

/** Why the server is disconnecting this socket (`access.ended`, sent right before it does). */
export const ACCESS_ENDED_CODES = ["session_ended", "key_revoked", "agent_disabled", "deactivated", "unauthenticated"] as const;
export const AccessEndedSchema = z.strictObject({ code: z.enum(ACCESS_ENDED_CODES), message: z.string().min(1) });
export type AccessEnded = z.infer<typeof AccessEndedSchema>;

export interface ClientEvents {
  subscribe: (sub: Subscription, ack: (res: Ack) => void) => void;
  unsubscribe: (sub: Subscription, ack: (res: Ack) => void) => void;
  presence: (ack: (snapshot: PresenceSnapshot) => void) => void;
  typing: (input: TypingInput) => void;
}

/** The handshake's `auth` (see the module doc). */
export interface ClientAuth {
  /** An API key; without one, the session cookie of the handshake. */
  token?: string;
  /** Events in `events` frames; else one `event` message each. */
  frames?: boolean;
}

export interface ServerEvents {
  /** One frame of stored events for this socket, in the order sent (see the module doc). Never empty. Only with `auth.frames`. */
  events: (events: StoredEvent[]) => void;
  /** One stored event, to a socket that did not ask for frames (see the module doc). */
  event: (event: StoredEvent) => void;
  "thread.activity": (threads: ThreadSummary[]) => void;
  "agents.changed": (agents: AgentSummary[]) => void;
  "presence.snapshot": (snapshot: PresenceSnapshot) => void;
  "presence.changed": (change: PresenceChange) => void;
  "access.ended": (why: AccessEnded) => void;
  "stream.open": (stream: StreamInfo) => void;
  "stream.delta": (delta: StreamDelta) => void;
  "stream.end": (end: StreamEnd) => void;
  "agent.status": (status: AgentStatus) => void;
  typing: (typing: Typing) => void;
}
