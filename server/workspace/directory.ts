/**
 * The agent directory (issue 6 "/agents", `GET /api/agents`): every registered agent with its
 * AgentCard, presence from heartbeats (server/router/registry.ts), load against
 * max_concurrency, recent success rate and newest tasks (server/router/stats.ts).
 *
 * Status: offline when its heartbeats stopped, busy while it works on a task (pending or
 * running), online otherwise.
 */
import type { AgentSummary } from "@/lib/api/types";
import type { Db } from "../db/client";
import type { AgentRegistry } from "../router/registry";
import { agentStats, recentTasks } from "../router/stats";

/** Every registered agent, by name. */
export async function listAgents(db: Db, registry: AgentRegistry): Promise<AgentSummary[]> {
  const agents = registry.list();
  const ids = agents.map((a) => a.agent_id);
  const [stats, tasks] = await Promise.all([agentStats(db, ids), recentTasks(db, ids)]);
  const out = agents.map((a): AgentSummary => {
    const s = stats.get(a.agent_id)!;
    const online = registry.isOnline(a.agent_id);
    return {
      agent_id: a.agent_id,
      name: a.card.display.name,
      description: a.card.display.desc ?? null,
      status: !online ? "offline" : s.active > 0 ? "busy" : "online",
      source: a.source,
      last_seen_at: a.last_seen === null ? null : new Date(a.last_seen).toISOString(),
      heartbeat_interval_sec: registry.config.heartbeat_interval_sec,
      offline_after_sec: registry.offlineAfterSec,
      active_tasks: s.active,
      waiting_tasks: s.waiting,
      max_concurrency: a.card.limits?.max_concurrency ?? 1,
      success_rate: s.recent.ended ? Math.round((s.recent.succeeded / s.recent.ended) * 1000) / 1000 : null,
      recent_outcomes: s.recent.ended,
      recent_tasks: tasks.get(a.agent_id) ?? [],
      allowed_agents: a.allowed_agents,
      overseer: a.overseer,
      card: a.card,
    };
  });
  return out.sort((a, b) => a.name.localeCompare(b.name));
}
