/**
 * Runs and tasks as the UI reads them (`GET /api/threads/:id/runs`, `GET /api/runs/:id`), from
 * the `runs` and `tasks` projections through the named queries (queries.ts).
 */
import type { RunDetail, RunSummary, TaskSummary } from "@/lib/api/types";
import type { RunState } from "@/lib/fold/run-state";
import type { TaskState } from "@/lib/fold/task-state";
import type { Queries, RunRow, TaskRow } from "./queries";

/** The wire shape of a task row. */
export function toTaskSummary(t: TaskRow): TaskSummary {
  return {
    task_id: t.id,
    parent_task_id: t.parent_task_id,
    state: t.state as TaskState,
    assignee: t.assignee,
    requester: t.requester,
    title: t.title,
    attempts: t.attempts,
    created_at: t.created_at.toISOString(),
    updated_at: t.updated_at.toISOString(),
    ended_at: t.ended_at?.toISOString() ?? null,
  };
}

async function summaries(queries: Queries, rows: RunRow[]): Promise<RunSummary[]> {
  if (!rows.length) return [];
  const ids = rows.map((r) => r.id);
  const roots = await queries.rootTasks(ids);
  const firsts = await queries.firstSeqs(ids);
  return rows.map((r) => ({
    run_id: r.id,
    thread_id: r.thread_id,
    state: r.state as RunState,
    title: roots.find((t) => t.run_id === r.id)?.title ?? null,
    started_at: r.started_at.toISOString(),
    updated_at: r.updated_at.toISOString(),
    ended_at: r.ended_at?.toISOString() ?? null,
    task_total: r.task_total,
    task_done: r.task_done,
    event_count: r.event_count,
    first_seq: firsts.get(r.id) ?? 0,
    last_seq: Number(r.last_seq),
    forked_from: r.forked_from_run_id ? { run_id: r.forked_from_run_id, seq: Number(r.forked_at_seq ?? 0n) } : null,
  }));
}

/** The runs of a thread, oldest first (at most `limit`, the newest ones). */
export async function threadRuns(queries: Queries, thread_id: string, limit = 100): Promise<RunSummary[]> {
  const rows = await queries.runsOfThread(thread_id, limit);
  return summaries(queries, rows.reverse());
}

/** One run with its forks and tasks, or null. */
export async function runDetail(queries: Queries, run_id: string): Promise<RunDetail | null> {
  const row = await queries.run(run_id);
  if (!row) return null;
  const [run] = await summaries(queries, [row]);
  const forks = await queries.forksOf(run_id);
  const tasks = await queries.tasksOfRun(run_id);
  return {
    run: { ...run!, forks: forks.map((f) => ({ run_id: f.id, at_seq: Number(f.forked_at_seq ?? 0n), created_at: f.created_at.toISOString() })) },
    tasks: tasks.map(toTaskSummary),
  };
}
