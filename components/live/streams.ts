"use client";
/**
 * Replies being written, agents' statuses and people typing, live from the socket
 * (lib/realtime/streams.ts; docs/channels.md "Streaming replies"). Nothing here is stored:
 * what a channel shows comes from `stream.open` / `stream.delta` / `stream.end`, `agent.status`
 * and `typing`, folded with lib/realtime/streams.ts `applyStream`.
 *
 *   const live = useLive(thread_id, events);
 *   live.streams   // the replies being written here, oldest first, until their stored event is held
 *   live.statuses  // what each agent is doing here ("querying DataServer")
 *   live.typing    // the people typing here (their `user:` ids), for TYPING_MS after each signal
 *   sendTyping(thread_id, run_id?)  // throttled: at most one every TYPING_THROTTLE_MS
 *
 * A stream leaves `streams` when `events` holds the event it became (`streamIdOf`), or
 * DONE_LINGER_MS after it ended `done` (its text went into a result or step the view does not
 * draw); a stopped or interrupted one stays, marked, until its stored event replaces it.
 * Changes are published at most once per animation frame.
 */
import { useMemo, useSyncExternalStore } from "react";
import type { StoredEvent } from "@/lib/protocol";
import {
  AgentStatusSchema,
  applyStream,
  StreamDeltaSchema,
  StreamEndSchema,
  StreamInfoSchema,
  streamIdOf,
  statusKey,
  TYPING_MS,
  TYPING_THROTTLE_MS,
  TypingSchema,
  type AgentStatus,
  type LiveStream,
} from "@/lib/realtime/streams";
import { isSubscribed } from "./live-sync";
import { getSocket } from "./socket";

/** How long a stream that ended `done` stays when no stored event names it (ms). */
export const DONE_LINGER_MS = 3_000;

interface State {
  streams: ReadonlyMap<string, LiveStream>;
  statuses: ReadonlyMap<string, AgentStatus>;
  /** `${thread_id}|${run_id ?? ""}|${agent_id}` → when the typing shows until (ms). */
  typing: ReadonlyMap<string, number>;
}

let state: State = { streams: new Map(), statuses: new Map(), typing: new Map() };
let published = state;
let frame: number | null = null;
const subscribers = new Set<() => void>();
let detach: (() => void) | null = null;

function publishSoon() {
  if (frame !== null) return;
  const run = () => {
    frame = null;
    published = state;
    for (const notify of subscribers) notify();
  };
  frame = typeof requestAnimationFrame === "function" ? requestAnimationFrame(run) : (setTimeout(run, 16) as unknown as number);
}

function set(next: Partial<State>) {
  state = { ...state, ...next };
  publishSoon();
}

function attach(): () => void {
  const socket = getSocket();
  const onOpen = (raw: unknown) => {
    const open = StreamInfoSchema.safeParse(raw);
    if (open.success) set({ streams: applyStream(state.streams, { open: open.data }) });
  };
  const onDelta = (raw: unknown) => {
    const delta = StreamDeltaSchema.safeParse(raw);
    if (delta.success) set({ streams: applyStream(state.streams, { delta: delta.data }) });
  };
  const onEnd = (raw: unknown) => {
    const end = StreamEndSchema.safeParse(raw);
    if (!end.success) return;
    set({ streams: applyStream(state.streams, { end: end.data }) });
    if (end.data.status === "done") setTimeout(() => forget(end.data.stream_id), DONE_LINGER_MS);
  };
  const onStatus = (raw: unknown) => {
    const s = AgentStatusSchema.safeParse(raw);
    if (!s.success) return;
    const statuses = new Map(state.statuses);
    if (s.data.status === null) statuses.delete(statusKey(s.data));
    else statuses.set(statusKey(s.data), s.data);
    set({ statuses });
  };
  const onTyping = (raw: unknown) => {
    const t = TypingSchema.safeParse(raw);
    if (!t.success) return;
    const key = `${t.data.thread_id}|${t.data.run_id ?? ""}|${t.data.agent_id}`;
    set({ typing: new Map(state.typing).set(key, Date.now() + TYPING_MS) });
    setTimeout(() => {
      if ((state.typing.get(key) ?? 0) <= Date.now()) {
        const typing = new Map(state.typing);
        typing.delete(key);
        set({ typing });
      }
    }, TYPING_MS + 50);
  };
  // After a reconnect the subscriptions catch up again and send what is open now.
  const onConnect = () => set({ streams: new Map([...state.streams].filter(([, s]) => s.ended)), statuses: new Map() });
  socket.on("stream.open", onOpen);
  socket.on("stream.delta", onDelta);
  socket.on("stream.end", onEnd);
  socket.on("agent.status", onStatus);
  socket.on("typing", onTyping);
  socket.on("connect", onConnect);
  return () => {
    socket.off("stream.open", onOpen);
    socket.off("stream.delta", onDelta);
    socket.off("stream.end", onEnd);
    socket.off("agent.status", onStatus);
    socket.off("typing", onTyping);
    socket.off("connect", onConnect);
  };
}

function forget(stream_id: string) {
  if (!state.streams.has(stream_id)) return;
  const streams = new Map(state.streams);
  streams.delete(stream_id);
  set({ streams });
}

function subscribe(notify: () => void): () => void {
  subscribers.add(notify);
  if (subscribers.size === 1) detach = attach();
  return () => {
    subscribers.delete(notify);
    if (subscribers.size === 0) {
      detach?.();
      detach = null;
    }
  };
}

const snapshot = () => published;

/** What is live in a channel (or, with `run_id`, in that run's thread); see the module doc. */
export function useLive(thread_id: string, events: readonly StoredEvent[], run_id?: string) {
  const s = useSyncExternalStore(subscribe, snapshot, snapshot);
  const stored = useMemo(() => {
    const ids = new Set<string>();
    for (const ev of events) {
      const id = streamIdOf(ev);
      if (id) ids.add(id);
    }
    return ids;
  }, [events]);
  return useMemo(() => {
    const here = (x: { thread_id: string; run_id: string | null }) => x.thread_id === thread_id && (!run_id || x.run_id === run_id);
    const streams = [...s.streams.values()].filter((st) => here(st) && !stored.has(st.stream_id)).sort((a, b) => a.started_at - b.started_at);
    const statuses = [...s.statuses.values()].filter(here);
    // Each entry leaves the store TYPING_MS after its last signal.
    const typing: string[] = [];
    for (const key of s.typing.keys()) {
      const [t, r, agent_id] = key.split("|");
      if (t === thread_id && (run_id ? r === run_id : !r)) typing.push(agent_id!);
    }
    return { streams, statuses, typing };
  }, [s, stored, thread_id, run_id]);
}

let lastTyping = { key: "", at: 0 };

/**
 * Tell the others this person is typing in the channel (a run's thread with `run_id`); at most
 * every TYPING_THROTTLE_MS. Only once the server holds this connection's subscription to the
 * channel (it hears nothing else): a keystroke before that, as the channel opens, waits for the next.
 */
export function sendTyping(thread_id: string, run_id?: string): void {
  const key = `${thread_id}|${run_id ?? ""}`;
  const now = Date.now();
  if (lastTyping.key === key && now - lastTyping.at < TYPING_THROTTLE_MS) return;
  const socket = getSocket();
  if (!socket.connected || !isSubscribed(thread_id)) return;
  lastTyping = { key, at: now };
  socket.emit("typing", run_id ? { thread_id, run_id } : { thread_id });
}
