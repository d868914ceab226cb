/**
 * `useAgents`: every registered agent with its presence, load and record, for the sidebar and
 * the agent directory (online or offline from heartbeats, shown live).
 *
 * - Seeded from `GET /api/agents` (TanStack Query, key `["agents"]`).
 * - Live: each `agents.changed` socket message (lib/realtime/contract.ts) carries the whole
 *   `AgentSummary[]` and replaces the cached list; one listener for the whole app, however many
 *   components use the hook. After a reconnect the list is refetched (messages sent while the
 *   socket was down are lost).
 * - Fallback: a slow refetch every 30 s, and a refetch soon after task events
 *   (components/live/live-sync.ts).
 */
import { useQuery, useQueryClient, type QueryClient } from "@tanstack/react-query";
import { useEffect } from "react";
import type { AgentSummary } from "@/lib/api/types";
import { fetchAgents } from "./api";
import { queryKeys } from "./query-keys";
import { getSocket } from "./socket";

/**
 * One agent as the UI reads it: the API's shape with defaults for fields an older server
 * leaves out, so the views never crash on a partial summary.
 */
export function normaliseAgent(a: AgentSummary): AgentSummary {
  const card = a.card ?? { v: "clutch/0.1", agent_id: a.agent_id, display: { name: a.name ?? a.agent_id }, capabilities: [] };
  return {
    ...a,
    name: a.name ?? card.display?.name ?? a.agent_id,
    description: a.description ?? card.display?.desc ?? null,
    status: a.status ?? "offline",
    source: a.source ?? "workspace",
    last_seen_at: a.last_seen_at ?? null,
    heartbeat_interval_sec: a.heartbeat_interval_sec ?? 0,
    offline_after_sec: a.offline_after_sec ?? 0,
    active_tasks: a.active_tasks ?? 0,
    waiting_tasks: a.waiting_tasks ?? 0,
    max_concurrency: a.max_concurrency ?? card.limits?.max_concurrency ?? 1,
    success_rate: a.success_rate ?? null,
    recent_outcomes: a.recent_outcomes ?? 0,
    recent_tasks: Array.isArray(a.recent_tasks) ? a.recent_tasks : [],
    allowed_agents: Array.isArray(a.allowed_agents) ? a.allowed_agents : [],
    overseer: a.overseer ?? null,
    card: { ...card, capabilities: Array.isArray(card.capabilities) ? card.capabilities : [] },
  };
}

/** The list as cached: normalised and sorted by agent id. */
function prepare(list: readonly AgentSummary[]): AgentSummary[] {
  return list.map(normaliseAgent).sort((a, b) => a.agent_id.localeCompare(b.agent_id));
}

let listeners = 0;
let detach: (() => void) | null = null;

/** Wires `agents.changed` into `client`'s cache while at least one component listens. */
function attach(client: QueryClient): () => void {
  listeners += 1;
  if (listeners === 1) {
    const socket = getSocket();
    let connectedBefore = socket.connected;
    const onChanged = (agents: AgentSummary[]) => {
      if (!Array.isArray(agents)) return;
      client.setQueryData<AgentSummary[]>(queryKeys.agents, prepare(agents));
    };
    const onConnect = () => {
      if (connectedBefore) void client.invalidateQueries({ queryKey: queryKeys.agents });
      connectedBefore = true;
    };
    socket.on("agents.changed", onChanged);
    socket.on("connect", onConnect);
    detach = () => {
      socket.off("agents.changed", onChanged);
      socket.off("connect", onConnect);
    };
  }
  return () => {
    listeners -= 1;
    if (listeners === 0) {
      detach?.();
      detach = null;
    }
  };
}

/** Agents sorted by id, kept live (see the file comment). Errors are `ApiRequestError`s. */
export function useAgents() {
  const client = useQueryClient();
  useEffect(() => attach(client), [client]);
  return useQuery({
    queryKey: queryKeys.agents,
    queryFn: async () => prepare(await fetchAgents()),
    refetchInterval: 30_000,
    staleTime: 5_000,
  });
}
