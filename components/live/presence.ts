"use client";
/**
 * `usePresence()`: who of the workspace's people is online now (docs/channels.md "Presence"),
 * from the socket's `presence.snapshot` and `presence.changed` (lib/realtime/contract.ts).
 *
 *   const isOnline = usePresence();
 *   isOnline("user:ada") // → true while Ada has a tab open
 *
 * One listener for the whole app, however many components read it. The set is asked for again
 * (`presence`) when the first component mounts and after every reconnect, so a component that
 * mounts after the socket connected still starts from the truth. Agents are not here: their
 * presence is the directory's (`useAgents`, from heartbeats).
 */
import { useCallback, useSyncExternalStore } from "react";
import { PresenceChangeSchema, PresenceSnapshotSchema } from "@/lib/realtime/contract";
import { getSocket } from "./socket";

let online: ReadonlySet<string> = new Set();
const subscribers = new Set<() => void>();
let detach: (() => void) | null = null;

function set(next: ReadonlySet<string>) {
  online = next;
  for (const notify of subscribers) notify();
}

function attach(): () => void {
  const socket = getSocket();
  const onSnapshot = (raw: unknown) => {
    const s = PresenceSnapshotSchema.safeParse(raw);
    if (s.success) set(new Set(s.data.online));
  };
  const onChanged = (raw: unknown) => {
    const c = PresenceChangeSchema.safeParse(raw);
    if (!c.success || (c.data.status === "online") === online.has(c.data.agent_id)) return;
    const next = new Set(online);
    if (c.data.status === "online") next.add(c.data.agent_id);
    else next.delete(c.data.agent_id);
    set(next);
  };
  const ask = () => socket.emit("presence", onSnapshot);
  socket.on("presence.snapshot", onSnapshot);
  socket.on("presence.changed", onChanged);
  socket.on("connect", ask);
  if (socket.connected) ask();
  return () => {
    socket.off("presence.snapshot", onSnapshot);
    socket.off("presence.changed", onChanged);
    socket.off("connect", ask);
  };
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

const EMPTY: ReadonlySet<string> = new Set();

/** `(agent_id) => boolean`: true while that person has a connected socket. Live. */
export function usePresence(): (agent_id: string) => boolean {
  const current = useSyncExternalStore(
    subscribe,
    () => online,
    () => EMPTY,
  );
  return useCallback((agent_id: string) => current.has(agent_id), [current]);
}
