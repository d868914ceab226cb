/**
 * The live agent directory (contract `agents.changed` in lib/realtime/contract.ts): whenever an
 * agent registers, updates, comes online or goes offline (the registry's clock notices missed
 * heartbeats), a task starts or ends, or who may read what changes (an `audit.change`), every
 * client gets every agent's AgentSummary (server/router/directory.ts), at most once per FEED_MS.
 *
 * Each client gets the directory as its principal may read it (docs/identity.md "The agent
 * directory"): one snapshot is read per push (`agentDirectory`, one query for the tasks), and
 * the gateway cuts it per socket with the channels that socket may read (`emitAgents`), so an
 * agent's tasks in a private channel or a DM reach only the sockets that may read it.
 */
import type { Queries } from "../events/queries";
import type { EventTail } from "../events/tail";
import { log } from "../log";
import { agentDirectory, directoryFor } from "../router/directory";
import type { AgentRegistry } from "../router/registry";
import type { RealtimeGateway } from "./gateway";

const FEED_MS = 500;
/** Events that can change an agent's load or record, or what a socket may read of it. */
const CHANGES = /^(task\.|audit\.change$)/;

/** Start the feed on `gateway`'s sockets; returns the stop function. `queries` are the store's (`store.queries`). */
export function startAgentsFeed(gateway: RealtimeGateway, deps: { queries: Queries; registry: AgentRegistry; tail: EventTail }): () => void {
  let timer: NodeJS.Timeout | null = null;
  const flush = async () => {
    timer = null;
    if (gateway.io.engine.clientsCount === 0) return;
    try {
      const dir = await agentDirectory(deps.queries, deps.registry);
      await gateway.emitAgents(dir.threads, (readable) => directoryFor(dir, readable));
    } catch (err) {
      log.warn({ err }, "agents.changed broadcast failed");
    }
  };
  const soon = () => {
    timer ??= setTimeout(() => void flush(), FEED_MS);
  };
  const offRegistry = deps.registry.onChange(soon);
  const offTail = deps.tail.subscribe((ev) => {
    if (CHANGES.test(ev.type)) soon();
  });
  return () => {
    offRegistry();
    offTail();
    if (timer) clearTimeout(timer);
  };
}
