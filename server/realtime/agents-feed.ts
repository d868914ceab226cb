/**
 * The live agent directory (contract `agents.changed` in lib/realtime/contract.ts): whenever an
 * agent registers, updates, comes online or goes offline (the registry's clock notices missed
 * heartbeats), or a task starts or ends, every client gets every agent's AgentSummary
 * (server/router/directory.ts), at most once per FEED_MS.
 */
import type { Server } from "socket.io";
import type { ClientEvents, ServerEvents } from "@/lib/realtime/contract";
import type { Queries } from "../events/queries";
import type { EventTail } from "../events/tail";
import { log } from "../log";
import { listAgents } from "../router/directory";
import type { AgentRegistry } from "../router/registry";

const FEED_MS = 500;
/** Events that can change an agent's load or record. */
const LOAD = /^task\./;

/** Start the feed; returns the stop function. `queries` are the store's (`store.queries`). */
export function startAgentsFeed(io: Server<ClientEvents, ServerEvents>, deps: { queries: Queries; registry: AgentRegistry; tail: EventTail }): () => void {
  let timer: NodeJS.Timeout | null = null;
  const flush = async () => {
    timer = null;
    if (io.engine.clientsCount === 0) return;
    try {
      io.emit("agents.changed", await listAgents(deps.queries, deps.registry));
    } catch (err) {
      log.warn({ err }, "agents.changed broadcast failed");
    }
  };
  const soon = () => {
    timer ??= setTimeout(() => void flush(), FEED_MS);
  };
  const offRegistry = deps.registry.onChange(soon);
  const offTail = deps.tail.subscribe((ev) => {
    if (LOAD.test(ev.type)) soon();
  });
  return () => {
    offRegistry();
    offTail();
    if (timer) clearTimeout(timer);
  };
}
