/**
 * Runs and tasks as the UI reads them (`GET /api/threads/:id/runs`, `GET /api/runs/:id`), from
 * the `runs` and `tasks` projections through the named queries (queries.ts).
 */
import type { RunDetail, RunList, RunOutcome, RunSummary, TaskSummary, WaitingQuestion } from "@/lib/api/types";
import type { Decider } from "@/lib/approvers";
import { isEvent, type StoredEventOf } from "@/lib/protocol";
import { resultText, runTitle } from "@/lib/run-title";
import type { RunState } from "@/lib/fold/run-state";
import { isPeopleId, runStatusFacts, waitingOnOf, waitsOnYou, type ApprovalFacts, type TaskFacts } from "@/lib/fold/run-status";
import { cancelledBy, TERMINAL_STATES, type OpenQuestion, type TaskState } from "@/lib/fold/task-state";
import type { Queries, RunListFilter, RunRow, TaskRow } from "./queries";

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
    started_at: t.started_at?.toISOString() ?? null,
    ended_at: t.ended_at?.toISOString() ?? null,
  };
}

/** Root task titles of the runs, fork-marked (lib/run-title.ts), by run id. */
export async function runTitles(queries: Queries, rows: RunRow[]): Promise<Map<string, string | null>> {
  const roots = await queries.rootTasks(rows.map((r) => r.id));
  return new Map(
    rows.map((r) => [r.id, runTitle(roots.find((t) => t.run_id === r.id)?.title, r.forked_from_run_id ? Number(r.forked_at_seq ?? 0n) : null)]),
  );
}

/**
 * The wire summaries of run rows, with what their card shows now (Clutch Protocol §8.3): who
 * works on what, the questions to people and the approvals that wait, and the outcome once
 * ended, all read from the tasks and approvals projections, so they hold however far back in
 * the channel the question or approval was asked. Status, `waiting_on` and who cancelled are
 * the browser's fold over the same tasks and approvals (lib/fold/run-status.ts `waitingOnOf`,
 * `runStatusFacts`).
 */
async function summaries(queries: Queries, rows: RunRow[]): Promise<RunSummary[]> {
  if (!rows.length) return [];
  const ids = rows.map((r) => r.id);
  // Independent reads go out together: the answer waits for the slowest, not for their sum.
  const [roots, firsts, open, approvals, facts, usage] = await Promise.all([
    queries.rootTasks(ids),
    queries.firstSeqs(ids),
    queries.openTasksOfRuns(ids),
    queries.pendingApprovalsOfRuns(ids),
    queries.runFacts(ids),
    queries.usageByModel({ run_ids: ids }),
  ]);
  const asked = open.flatMap((t) => openQuestions(t).filter((q) => q.to.some(isPeopleId)).map((q) => ({ run_id: t.run_id, id: q.id })));
  const ended = roots.filter((t) => t.state !== "pending" && t.state !== "running" && t.state !== "waiting_input");
  const [questionEvents, requests, results] = await Promise.all([
    queries.eventsInRuns(asked),
    queries.eventsAtSeqs(approvals.map((a) => Number(a.request_seq))),
    queries.lastResults(ended.filter((t) => t.state === "succeeded").map((t) => t.id)),
  ]);
  return rows.map((r) => {
    const own = roots.filter((t) => t.run_id === r.id);
    // The first root names the run and gives its outcome; later roots are follow-ups, each with its own (docs/channels.md "Follow-ups").
    const first = own[0] ?? null;
    const questions: WaitingQuestion[] = [];
    for (const { run_id, id } of asked) {
      const ev = run_id === r.id ? questionEvents.get(`${run_id}/${id}`) : undefined;
      if (ev && isEvent(ev, "chat.message")) {
        questions.push({ id: ev.id, seq: ev.seq, run_id, task_id: ev.task_id, from: ev.from, text: typeof ev.payload.text === "string" ? ev.payload.text : "" });
      }
    }
    questions.sort((a, b) => a.seq - b.seq);
    const waitingApprovals = approvals.filter((a) => a.run_id === r.id);
    const waiting_on = waitingOnOf(
      open.filter((t) => t.run_id === r.id).map(taskFacts),
      waitingApprovals.map((a): ApprovalFacts => {
        const request = requests.get(Number(a.request_seq));
        return {
          approval_id: a.id,
          task_id: a.task_id,
          agent_id: a.agent_id,
          approvers: a.approvers as "any" | string[],
          state: a.state,
          request: request && isEvent(request, "approval.requested") ? request.payload : undefined,
        };
      }),
    );
    const { status, cancelled_by } = runStatusFacts(own.map(taskFacts), waiting_on);
    return {
      run_id: r.id,
      thread_id: r.thread_id,
      run_number: facts.get(r.id)?.run_number ?? 0,
      requester: facts.get(r.id)?.requester ?? null,
      agents: facts.get(r.id)?.agents ?? [],
      state: r.state as RunState,
      status,
      waiting_on,
      cancelled_by,
      title: runTitle(first?.title, r.forked_from_run_id ? Number(r.forked_at_seq ?? 0n) : null),
      started_at: r.started_at.toISOString(),
      updated_at: r.updated_at.toISOString(),
      ended_at: r.ended_at?.toISOString() ?? null,
      task_total: r.task_total,
      task_done: r.task_done,
      task_succeeded: facts.get(r.id)?.task_succeeded ?? 0,
      event_count: r.event_count,
      first_seq: firsts.get(r.id) ?? 0,
      last_seq: Number(r.last_seq),
      forked_from: r.forked_from_run_id ? { run_id: r.forked_from_run_id, seq: Number(r.forked_at_seq ?? 0n) } : null,
      ...(first?.imported ? { imported: true as const } : {}),
      active: open
        .filter((t) => t.run_id === r.id && t.assignee)
        .map((t) => ({ task_id: t.id, title: t.title, assignee: t.assignee!, state: t.state as TaskState })),
      questions,
      approvals: waitingApprovals.map((a) => ({
          approval_id: a.id,
          agent_id: a.agent_id,
          summary: a.summary,
          request_id: requests.get(Number(a.request_seq))?.id ?? "",
          request_seq: Number(a.request_seq),
        })),
      outcome: first && TERMINAL_STATES.has(first.state as TaskState) ? outcomeOf(first, results.get(first.id)) : null,
      follow_ups: own.slice(1).map((t) => ({ task_id: t.id, title: t.title, state: t.state as TaskState, outcome: TERMINAL_STATES.has(t.state as TaskState) ? outcomeOf(t, results.get(t.id)) : null })),
      usage: usage.filter((u) => u.key === r.id).map(({ key: _run, ...row }) => row),
    };
  });
}

/** A task row's open questions (TaskView.open_questions, stored as JSON). */
function openQuestions(t: TaskRow): OpenQuestion[] {
  return (t.open_questions as unknown as OpenQuestion[] | null) ?? [];
}

/** A task row as the status folds read it (lib/fold/run-status.ts `TaskFacts`). */
function taskFacts(t: TaskRow): TaskFacts {
  return { task_id: t.id, state: t.state as TaskState, error: t.error as Record<string, unknown> | null, open_questions: openQuestions(t) };
}

/** The root task's outcome: its result's text when it succeeded, else its error's message. */
function outcomeOf(root: TaskRow, result: StoredEventOf<"task.result"> | undefined): RunOutcome | null {
  if (root.state === "succeeded") {
    const text = result ? resultText(result.payload) : null;
    return text ? { kind: "result", text, agent_id: result?.from.agent_id ?? root.assignee, task_id: root.id } : null;
  }
  const error = root.error as Record<string, unknown> | null;
  const given = typeof error?.message === "string" && error.message ? error.message : null;
  if (root.state === "cancelled") {
    const by = cancelledBy(error);
    return { kind: "error", text: `Cancelled${by ? ` by ${by}` : ""}${given ? `: ${given}` : "."}`, agent_id: root.assignee, task_id: root.id };
  }
  const fallback = root.state === "timed_out" ? "The run timed out." : "The run failed.";
  return { kind: "error", text: given ?? fallback, agent_id: root.assignee, task_id: root.id };
}

/** The runs of a thread, oldest first (at most `limit`, the newest ones). */
export async function threadRuns(queries: Queries, thread_id: string, limit = 100): Promise<RunSummary[]> {
  const rows = await queries.runsOfThread(thread_id, limit);
  return summaries(queries, rows.reverse());
}

/** A page cursor (`before=`): the run's `started_at` (ISO 8601, ms) and id, as `<started_at>~<run_id>`. */
export function runCursor(run: { started_at: string; run_id: string }): string {
  return `${run.started_at}~${run.run_id}`;
}

/** The (started_at, run id) of a cursor made by `runCursor`, or null when it is not one. */
export function parseRunCursor(cursor: string): { started_at: Date; run_id: string } | null {
  const at = cursor.indexOf("~");
  if (at < 0) return null;
  const started_at = new Date(cursor.slice(0, at));
  const run_id = cursor.slice(at + 1);
  return Number.isNaN(started_at.getTime()) || !run_id ? null : { started_at, run_id };
}

/** How many pages of runs `listRuns` reads at most to fill one page of runs waiting on a person. */
const WAITING_ON_ME_PAGES = 5;

/**
 * The runs list (`GET /api/runs`, docs/channels.md "Runs"): runs of `filter.thread_ids` newest
 * first, at most `filter.limit`, as RunSummary. With `waitingOn` (a person), only the runs that
 * wait on them (lib/fold/run-status.ts `waitsOnYou`): that is decided on the summaries, after the
 * SQL filters, reading further pages (at most WAITING_ON_ME_PAGES) to fill the page.
 * `next_cursor` names the last run looked at while older runs may follow, else null.
 */
export async function listRuns(queries: Queries, filter: RunListFilter, waitingOn?: Decider): Promise<RunList> {
  if (!waitingOn) {
    const rows = await queries.runList({ ...filter, limit: filter.limit + 1 });
    const runs = await summaries(queries, rows.slice(0, filter.limit));
    return { runs, next_cursor: rows.length > filter.limit ? runCursor(runs.at(-1)!) : null };
  }
  // Waiting on someone is a run that waits at all.
  if (filter.status && filter.status !== "waiting" && filter.status !== "active") return { runs: [], next_cursor: null };
  const runs: RunSummary[] = [];
  let before = filter.before;
  for (let page = 0; page < WAITING_ON_ME_PAGES; page++) {
    const rows = await queries.runList({ ...filter, status: "waiting", before, limit: filter.limit });
    const listed = await summaries(queries, rows);
    for (const run of listed) {
      if (run.status === "waiting" && waitsOnYou(run, waitingOn)) runs.push(run);
      before = { started_at: new Date(run.started_at), run_id: run.run_id };
      if (runs.length === filter.limit) return { runs, next_cursor: run === listed.at(-1) && rows.length < filter.limit ? null : runCursor(run) };
    }
    if (rows.length < filter.limit) return { runs, next_cursor: null };
  }
  return { runs, next_cursor: before ? runCursor({ started_at: before.started_at.toISOString(), run_id: before.run_id }) : null };
}

/** One run with its forks and tasks, or null. */
export async function runDetail(queries: Queries, run_id: string): Promise<RunDetail | null> {
  const row = await queries.run(run_id);
  if (!row) return null;
  // A fork reads by its number in its channel and its title, "#13 Analyze sales (fork at #46)".
  const forksOf = async () => {
    const forks = await queries.forksOf(run_id);
    const [titles, facts] = await Promise.all([runTitles(queries, forks), queries.runFacts(forks.map((f) => f.id))]);
    return { forks, titles, facts };
  };
  const [[run], { forks, titles: forkTitles, facts: forkFacts }, tasks] = await Promise.all([summaries(queries, [row]), forksOf(), queries.tasksOfRun(run_id)]);
  return {
    run: {
      ...run!,
      forks: forks.map((f) => ({
        run_id: f.id,
        at_seq: Number(f.forked_at_seq ?? 0n),
        created_at: f.created_at.toISOString(),
        run_number: forkFacts.get(f.id)?.run_number ?? 0,
        title: forkTitles.get(f.id) ?? null,
      })),
    },
    tasks: tasks.map(toTaskSummary),
  };
}
