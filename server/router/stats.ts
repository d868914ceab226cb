/**
 * Agents' load and recent record, read from the tasks projection (issue 6: "current load
 * against max_concurrency, recent success rate, and its recent tasks"; §4.2 tie-breakers).
 *
 *   active     tasks assigned to it that are pending or running
 *   waiting    tasks waiting for someone's answer
 *   recent     of its last RECENT ended tasks (cancelled ones left out): how many, how many
 *              succeeded (failed and timed out count against it)
 */
import type { AgentTaskSummary } from "@/lib/api/types";
import type { TaskState } from "@/lib/fold/task-state";
import type { Db } from "../db/client";

/** How many ended tasks the success rate looks back over. */
export const RECENT = 20;

export interface AgentStats {
  active: number;
  waiting: number;
  recent: { ended: number; succeeded: number };
}

const EMPTY: AgentStats = { active: 0, waiting: 0, recent: { ended: 0, succeeded: 0 } };

/** Stats of the given agents (every agent with tasks when `ids` is omitted). */
export async function agentStats(db: Db, ids?: string[]): Promise<Map<string, AgentStats>> {
  const out = new Map<string, AgentStats>();
  if (ids && !ids.length) return out;
  const get = (id: string) => {
    let s = out.get(id);
    if (!s) out.set(id, (s = { ...EMPTY, recent: { ...EMPTY.recent } }));
    return s;
  };
  const counts = await db.task.groupBy({
    by: ["assignee", "state"],
    where: { state: { in: ["pending", "running", "waiting_input"] }, ...(ids ? { assignee: { in: ids } } : { assignee: { not: null } }) },
    _count: true,
  });
  for (const c of counts) {
    const s = get(c.assignee!);
    if (c.state === "waiting_input") s.waiting += c._count;
    else s.active += c._count;
  }
  const recent = await db.$queryRawUnsafe<{ assignee: string; ended: number; succeeded: number }[]>(
    `SELECT assignee, count(*)::int AS ended, count(*) FILTER (WHERE state = 'succeeded')::int AS succeeded
       FROM (SELECT assignee, state, row_number() OVER (PARTITION BY assignee ORDER BY ended_at DESC) AS n
               FROM tasks
              WHERE state IN ('succeeded', 'failed', 'timed_out') AND assignee IS NOT NULL
                ${ids ? "AND assignee = ANY($1::text[])" : ""}) t
      WHERE n <= ${RECENT}
      GROUP BY assignee`,
    ...(ids ? [ids] : []),
  );
  for (const r of recent) get(r.assignee).recent = { ended: r.ended, succeeded: r.succeeded };
  for (const id of ids ?? []) get(id);
  return out;
}

/** The newest `limit` tasks of each agent, newest first. */
export async function recentTasks(db: Db, ids: string[], limit = 10): Promise<Map<string, AgentTaskSummary[]>> {
  const out = new Map<string, AgentTaskSummary[]>(ids.map((id) => [id, []]));
  if (!ids.length) return out;
  const rows = await db.$queryRawUnsafe<{ id: string; run_id: string; thread_id: string; title: string | null; state: string; updated_at: Date; assignee: string }[]>(
    `SELECT id, run_id, thread_id, title, state, updated_at, assignee
       FROM (SELECT *, row_number() OVER (PARTITION BY assignee ORDER BY updated_at DESC) AS n
               FROM tasks WHERE assignee = ANY($1::text[])) t
      WHERE n <= $2
      ORDER BY assignee, updated_at DESC`,
    ids,
    limit,
  );
  for (const r of rows) {
    out.get(r.assignee)?.push({ task_id: r.id, run_id: r.run_id, thread_id: r.thread_id, title: r.title, state: r.state as TaskState, updated_at: r.updated_at.toISOString() });
  }
  return out;
}
