/**
 * The agent directory (the /agents page, `GET /api/agents`, the `agents.changed` feed): every
 * registered agent with its AgentCard (Clutch Protocol §1.4), presence from heartbeats
 * (registry.ts), load against max_concurrency, recent success rate and newest tasks (stats.ts).
 *
 * Status: offline when its heartbeats stopped, busy while it works on a task (pending or
 * running), online otherwise.
 *
 * Who sees what (docs/identity.md "The agent directory"): an agent's newest tasks
 * (`recent_tasks`: titles, run, task and channel ids) are content of their channels, so each
 * reader gets only the tasks of the channels it may read (server/auth/access.ts `Readable`): up
 * to RECENT_TASKS of those, newest first. The figures (status, `active_tasks`, `waiting_tasks`,
 * `success_rate`, `recent_outcomes`) stay workspace-wide: they are counts over every channel and
 * name no task, channel or text.
 *
 * - `listAgents(queries, registry, readable)`: one reader's directory (a REST request), its tasks
 *   filtered in SQL.
 * - `agentDirectory(queries, registry)` then `directoryFor(dir, readable)`: one snapshot for many
 *   readers (the socket feed), cut per reader without another query.
 */
import type { AgentSummary, AgentTaskSummary } from "@/lib/api/types";
import type { Readable } from "../auth/access";
import type { Queries } from "../events/queries";
import type { AgentRegistry } from "./registry";
import { agentStats, recentTasks } from "./stats";

/** How many of an agent's newest tasks the directory lists, per reader. */
export const RECENT_TASKS = 10;

/**
 * The directory as every reader could see it, before it is cut per reader: `agents` with empty
 * `recent_tasks`; `tasks`, of each agent, its newest RECENT_TASKS tasks of every channel it
 * worked in, newest first (so any reader's newest RECENT_TASKS are among them); `threads`, the
 * channels those tasks belong to.
 */
export interface AgentDirectory {
  agents: AgentSummary[];
  tasks: ReadonlyMap<string, AgentTaskSummary[]>;
  threads: ReadonlySet<string>;
}

/**
 * The directory as a reader who may read `readable` sees it: every registered agent, by name,
 * with only the tasks of readable channels in `recent_tasks` (newest first, up to RECENT_TASKS);
 * the load and record figures are workspace-wide (see the module doc). One statement for the
 * tasks, whatever the number of channels.
 */
export async function listAgents(queries: Queries, registry: AgentRegistry, readable: Readable): Promise<AgentSummary[]> {
  const { agents } = await summaries(queries, registry, (ids) => recentTasks(queries, ids, RECENT_TASKS, readable.all ? {} : { thread_ids: [...readable.ids] }));
  return agents;
}

/** One snapshot of the directory for many readers (see `AgentDirectory`); cut it with `directoryFor`. */
export async function agentDirectory(queries: Queries, registry: AgentRegistry): Promise<AgentDirectory> {
  const { agents, tasks } = await summaries(queries, registry, (ids) => recentTasks(queries, ids, RECENT_TASKS, { per_thread: true }), false);
  const threads = new Set<string>();
  for (const list of tasks.values()) for (const t of list) threads.add(t.thread_id);
  return { agents, tasks, threads };
}

/**
 * `dir` as a reader who may read `readable` sees it: each agent's newest RECENT_TASKS tasks of
 * the readable channels, newest first; the same list `listAgents` gives that reader.
 */
export function directoryFor(dir: AgentDirectory, readable: Readable): AgentSummary[] {
  return dir.agents.map((a) => {
    const mine: AgentTaskSummary[] = [];
    for (const t of dir.tasks.get(a.agent_id) ?? []) {
      if (mine.length >= RECENT_TASKS) break;
      if (readable.all || readable.ids.has(t.thread_id)) mine.push(t);
    }
    return { ...a, recent_tasks: mine };
  });
}

/**
 * Every registered agent's summary, by name, and the tasks `tasksOf` read (by agent, read beside
 * the figures), which are its `recent_tasks` when `withTasks`, else those are empty.
 */
async function summaries(
  queries: Queries,
  registry: AgentRegistry,
  tasksOf: (ids: string[]) => Promise<Map<string, AgentTaskSummary[]>>,
  withTasks = true,
): Promise<{ agents: AgentSummary[]; tasks: Map<string, AgentTaskSummary[]> }> {
  const agents = registry.list();
  const ids = agents.map((a) => a.agent_id);
  const [stats, tasks] = await Promise.all([agentStats(queries, ids), tasksOf(ids)]);
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
      recent_tasks: withTasks ? (tasks.get(a.agent_id) ?? []) : [],
      allowed_agents: a.allowed_agents,
      overseer: a.overseer,
      card: a.card,
    };
  });
  return { agents: out.sort((a, b) => a.name.localeCompare(b.name)), tasks };
}
