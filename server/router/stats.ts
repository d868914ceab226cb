/**
 * Agents' load and recent record, read from the tasks projection through the named queries
 * (server/events/queries.ts): current load against max_concurrency, recent success rate and
 * recent tasks, for the agent directory and the router's tie-breakers (Clutch Protocol §4.2).
 *
 *   active     tasks assigned to it that are pending or running
 *   waiting    tasks waiting for someone's answer
 *   recent     of its last RECENT ended tasks (cancelled ones left out): how many, how many
 *              succeeded (failed and timed out count against it)
 */
import type { AgentTaskSummary } from "@/lib/api/types";
import type { TaskState } from "@/lib/fold/task-state";
import type { Queries } from "../events/queries";

/** How many ended tasks the success rate looks back over. */
export const RECENT = 20;

export interface AgentStats {
  active: number;
  waiting: number;
  recent: { ended: number; succeeded: number };
}

const EMPTY: AgentStats = { active: 0, waiting: 0, recent: { ended: 0, succeeded: 0 } };

/** Stats of the given agents (every agent with tasks when `ids` is omitted). */
export async function agentStats(queries: Queries, ids?: string[]): Promise<Map<string, AgentStats>> {
  const out = new Map<string, AgentStats>();
  if (ids && !ids.length) return out;
  const get = (id: string) => {
    let s = out.get(id);
    if (!s) out.set(id, (s = { ...EMPTY, recent: { ...EMPTY.recent } }));
    return s;
  };
  for (const c of await queries.liveTaskCounts(ids)) {
    const s = get(c.assignee);
    if (c.state === "waiting_input") s.waiting += c.count;
    else s.active += c.count;
  }
  for (const r of await queries.recentOutcomes(RECENT, ids)) get(r.assignee).recent = { ended: r.ended, succeeded: r.succeeded };
  for (const id of ids ?? []) get(id);
  return out;
}

/**
 * The newest `limit` tasks of each agent, newest first. `scope` as `Queries.newestTasks` takes it:
 * only the tasks of some channels, or the newest `limit` of each channel.
 */
export async function recentTasks(
  queries: Queries,
  ids: string[],
  limit = 10,
  scope: { thread_ids?: readonly string[]; per_thread?: boolean } = {},
): Promise<Map<string, AgentTaskSummary[]>> {
  const out = new Map<string, AgentTaskSummary[]>(ids.map((id) => [id, []]));
  if (!ids.length) return out;
  for (const r of await queries.newestTasks(ids, limit, scope)) {
    out.get(r.assignee)?.push({ task_id: r.id, run_id: r.run_id, thread_id: r.thread_id, title: r.title, state: r.state as TaskState, updated_at: r.updated_at.toISOString() });
  }
  return out;
}
