/**
 * The agent directory (the /agents page, `GET /api/agents`, the `agents.changed` feed): every
 * registered agent with its AgentCard (Clutch Protocol §1.4), presence from heartbeats
 * (registry.ts), load against max_concurrency, recent success rate and newest tasks (stats.ts).
 *
 * Status: offline when its heartbeats stopped, busy while it works on a task (pending or
 * running), online otherwise.
 */
import type { AgentSummary } from "@/lib/api/types";
import type { Queries } from "../events/queries";
import type { AgentRegistry } from "./registry";
import { agentStats, recentTasks } from "./stats";

/** Every registered agent, by name. */
export async function listAgents(queries: Queries, registry: AgentRegistry): Promise<AgentSummary[]> {
  const agents = registry.list();
  const ids = agents.map((a) => a.agent_id);
  const [stats, tasks] = await Promise.all([agentStats(queries, ids), recentTasks(queries, ids)]);
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
