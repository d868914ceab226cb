/**
 * The one append path (docs/architecture.md "The append path"; Clutch Protocol §5, §8.1).
 *
 * `appendInTx(sql, messages)` deduplicates, assigns `seq`, inserts and updates the projections
 * (threads, tasks, runs) inside the caller's transaction; `EventStore.append` wraps it in a
 * transaction and publishes only after commit.
 *
 * ## Why seq is gap-free and in commit order
 * A plain sequence hands out numbers at insert time, so with concurrent writers seq 11 can
 * commit before seq 10, and a reader that saw 11 would later find 10. Here every append first
 * takes one transaction-scoped advisory lock (`pg_advisory_xact_lock`), then reads
 * `max(seq) + 1`. The lock is released only when the transaction commits or rolls back, and
 * PostgreSQL makes a commit visible before it releases the transaction's locks. So appends
 * run one after another: each sees every earlier commit, numbers continue without a gap (a
 * rolled-back append leaves max(seq) where it was), and no transaction can commit a lower seq
 * after a higher one is visible. Dedup checks run under the same lock, so two writers racing
 * with the same id cannot both insert. Throughput comes from batching: one append may carry
 * up to MAX_BATCH messages in one transaction, and concurrent appends in one process are
 * committed together (group commit, `appendGroupInTx`, driven by server/events/store.ts).
 *
 * ## Duplicates (§5.2)
 * A message whose `(run_id, id)` or `idempotency_key` is already stored (or appears earlier
 * in the same batch) is not inserted; the stored original is returned in its place with
 * `created: false`, and nothing is published for it.
 */
import { isImportedCopy, type ClutchMessage, type StoredEvent } from "@/lib/protocol";
import { affectsTask, foldTask, TERMINAL_STATES, type OpenQuestion, type TaskState, type TaskView } from "@/lib/fold/task-state";
import { runStateOf } from "@/lib/fold/run-state";
import { approvalIdOf, foldApproval, type ApprovalView, type Approvers } from "@/lib/fold/approvals";
import { countsAsUnread } from "@/lib/unread";
import type { Approval as ApprovalRow, Event as EventRow, Task as TaskRow } from "../db/generated/client";
import { ClutchError } from "../errors";
import { eventColumns, fromRow, normalise, toRow } from "./codec";
import type { Sql } from "./sql";

/** Arbitrary constant naming the append lock (pg advisory lock key space is global per db). */
const APPEND_LOCK_KEY = 0x436c7574; // "Clut"

/**
 * The statement that takes the append lock. A transaction may send it with its BEGIN (one round
 * trip: server/events/sql.ts `transaction(fn, { first })`) and tell `appendGroupInTx` so
 * (`locked`); it must be a statement of its own, before the reads: a statement's snapshot is taken
 * when it starts, so a read in the statement that waited for the lock would miss the commits made
 * while it waited.
 */
export const APPEND_LOCK_SQL = `SELECT 1 FROM pg_advisory_xact_lock(${APPEND_LOCK_KEY})`;

export interface AppendResult {
  /** One stored event per input message, in input order (the original for a duplicate). */
  events: StoredEvent[];
  /** Per input: true when stored by this append, false when it was a duplicate. */
  created: boolean[];
}

/**
 * Work that must commit with the events or not at all, run last in the append transaction with
 * the newly stored events (the durable dispatch queue, server/dispatch/queue.ts).
 */
export type InTxHook = (sql: Sql, fresh: StoredEvent[]) => Promise<void>;

const pairKey = (run_id: string, id: string) => `${run_id}\u0000${id}`;

/**
 * Append validated messages inside the transaction `sql` (server/events/sql.ts) as one unit. Throws ClutchError `unknown_thread` (422)
 * when a message names a thread that does not exist. The caller commits, then publishes the
 * events whose `created` is true.
 */
export async function appendInTx(sql: Sql, messages: ClutchMessage[]): Promise<AppendResult> {
  const [result] = await appendGroupInTx(sql, [messages]);
  if (result instanceof ClutchError) throw result;
  return result!;
}

/**
 * Group commit: append several callers' batches in one transaction. Each batch stays all or
 * nothing: a batch naming an unknown thread gets a ClutchError in its slot and stores
 * nothing, while the others are appended. Results are in the order of `batches`. `inTx` runs
 * last, in the same transaction, with the events stored by it. `opts.locked`: the transaction
 * has taken the append lock already (APPEND_LOCK_SQL, its first statement).
 *
 * Round trips under the lock: one read (`logHead`: the head, the threads, the tasks, the runs'
 * root tasks and the stored duplicates), one write (`writeGroup`: events, thread activity, tasks
 * and runs in one statement), then approvals and `inTx` only when there is something for them.
 */
export async function appendGroupInTx(sql: Sql, batches: ClutchMessage[][], inTx?: InTxHook, opts: { locked?: boolean } = {}): Promise<(AppendResult | ClutchError)[]> {
  if (!opts.locked) await sql.query(APPEND_LOCK_SQL);
  const results: (AppendResult | ClutchError)[] = new Array(batches.length);
  const head = await logHead(sql, batches.flat());
  const { known, taskRun } = head;
  const accepted: { index: number; messages: ClutchMessage[] }[] = [];
  batches.forEach((batch, index) => {
    const missing = [...new Set(batch.filter((m) => !known.has(m.thread_id)).map((m) => m.thread_id))];
    const foreign = foreignTask(batch, taskRun);
    if (missing.length) {
      results[index] = new ClutchError(
        "unknown_thread",
        `thread ${missing.join(", ")} does not exist; create it with POST /api/threads first; nothing was stored`,
        422,
      );
    } else if (foreign) {
      results[index] = new ClutchError(
        "task_id_taken",
        `task_id ${foreign.message.task_id} belongs to run ${foreign.owner}, not ${foreign.message.run_id}; a task id names one task of one run, so give this task a new id; nothing was stored`,
        409,
      );
    } else {
      accepted.push({ index, messages: batch.map(normalise) });
      for (const m of batch) if (!taskRun.has(m.task_id)) taskRun.set(m.task_id, m.run_id); // later batches of the group see it too
    }
  });
  const all = accepted.flatMap((a) => a.messages);
  if (!all.length) return results;

  const stored = head.stored;
  let seq = head.maxSeq;

  const fresh: StoredEvent[] = [];
  const byPair = new Map<string, StoredEvent>();
  const byKey = new Map<string, StoredEvent>();
  for (const { index, messages } of accepted) {
    const events: StoredEvent[] = [];
    const created: boolean[] = [];
    for (const msg of messages) {
      const earlier =
        stored.byPair.get(pairKey(msg.run_id, msg.id)) ??
        (msg.idempotency_key ? stored.byKey.get(msg.idempotency_key) : undefined) ??
        byPair.get(pairKey(msg.run_id, msg.id)) ??
        (msg.idempotency_key ? byKey.get(msg.idempotency_key) : undefined);
      if (earlier) {
        events.push(earlier);
        created.push(false);
        continue;
      }
      const ev: StoredEvent = { ...msg, seq: ++seq };
      byPair.set(pairKey(msg.run_id, msg.id), ev);
      if (msg.idempotency_key) byKey.set(msg.idempotency_key, ev);
      events.push(ev);
      created.push(true);
      fresh.push(ev);
    }
    results[index] = { events, created };
  }

  if (fresh.length) {
    const tasks = projectTasks(fresh, head.tasks);
    await writeGroup(sql, fresh, tasks.changed, projectRuns(fresh, tasks, head.roots));
    // An imported copy never acts (lib/protocol/imported.ts): it decides no approval and queues no work.
    const acting = fresh.filter((ev) => !isImportedCopy(ev));
    await projectApprovals(sql, acting);
    if (inTx && acting.length) await inTx(sql, acting);
  }
  return results;
}

/** What the group needs to know of the log before it appends (`logHead`). */
interface LogHead {
  maxSeq: number;
  /** Which of the group's threads exist. */
  known: Set<string>;
  /** The run each of the group's stored task ids belongs to (Clutch Protocol §1.1: a task_id names one task of one run). */
  taskRun: Map<string, string>;
  /** The group's stored tasks, as the fold starts from them. */
  tasks: Map<string, TaskView>;
  /** The root tasks (no parent) of the group's runs: task id → its run and state. */
  roots: Map<string, { run_id: string; state: TaskState }>;
  /** Stored events with the same `(run_id, id)` or `idempotency_key` as a message of the group. */
  stored: { byPair: Map<string, StoredEvent>; byKey: Map<string, StoredEvent> };
}

/**
 * What the group needs to know of the log before it appends, in one round trip read under the
 * append lock: the highest seq, which of its threads exist, its stored tasks (their runs, and the
 * rows the task fold starts from), the root tasks of its runs (a run's state follows them) and the
 * stored events it would duplicate. The duplicates are two lookups joined with UNION so each uses
 * its unique index (an OR would scan the whole log). Rows come as JSON (one statement, any
 * number of rows of each kind).
 */
async function logHead(sql: Sql, messages: ClutchMessage[]): Promise<LogHead> {
  const keys = messages.flatMap((m) => (m.idempotency_key ? [m.idempotency_key] : []));
  const [row] = await sql.query<{ max_seq: bigint | number | null; threads: string[]; tasks: TaskJson[]; roots: [string, string, string][]; stored: EventJson[] }>(
    `SELECT (SELECT max(seq) FROM events) AS max_seq,
            ARRAY(SELECT id FROM threads WHERE id = ANY($1::text[])) AS threads,
            (SELECT coalesce(json_agg(t), '[]'::json) FROM (SELECT ${TASK_COLUMNS} FROM tasks WHERE id = ANY($2::text[])) t) AS tasks,
            (SELECT coalesce(json_agg(json_build_array(id, run_id, state)), '[]'::json) FROM tasks WHERE run_id = ANY($3::text[]) AND parent_task_id IS NULL) AS roots,
            (SELECT coalesce(json_agg(s), '[]'::json) FROM (
               SELECT ${eventColumns("e")} FROM unnest($4::text[], $5::text[]) AS k(run_id, id) JOIN events e ON e.run_id = k.run_id AND e.id = k.id
               UNION
               SELECT ${eventColumns("e")} FROM events e WHERE e.idempotency_key = ANY($6::text[])) s) AS stored`,
    [
      [...new Set(messages.map((m) => m.thread_id))],
      [...new Set(messages.map((m) => m.task_id))],
      [...new Set(messages.map((m) => m.run_id))],
      messages.map((m) => m.run_id),
      messages.map((m) => m.id),
      keys,
    ],
  );
  const tasks = new Map(row!.tasks.map((t) => [t.id, taskViewOf(t)]));
  const byPair = new Map<string, StoredEvent>();
  const byKey = new Map<string, StoredEvent>();
  for (const json of row!.stored) {
    const ev = fromRow({ ...json, seq: BigInt(json.seq), ts: new Date(json.ts), stored_at: new Date(json.stored_at) } as EventRow);
    byPair.set(pairKey(ev.run_id, ev.id), ev);
    if (ev.idempotency_key) byKey.set(ev.idempotency_key, ev);
  }
  return {
    maxSeq: Number(row!.max_seq ?? 0),
    known: new Set(row!.threads),
    taskRun: new Map([...tasks.values()].map((t) => [t.task_id, t.run_id])),
    tasks,
    roots: new Map(row!.roots.map(([id, run_id, state]) => [id, { run_id, state: state as TaskState }])),
    stored: { byPair, byKey },
  };
}

/** The first message of `batch` whose task_id belongs to another run (stored, or earlier in the batch), with that run. */
function foreignTask(batch: ClutchMessage[], owners: ReadonlyMap<string, string>): { message: ClutchMessage; owner: string } | undefined {
  const local = new Map<string, string>();
  for (const message of batch) {
    const owner = owners.get(message.task_id) ?? local.get(message.task_id);
    if (owner !== undefined && owner !== message.run_id) return { message, owner };
    local.set(message.task_id, message.run_id);
  }
  return undefined;
}

/** The task columns the fold starts from. */
const TASK_COLUMNS =
  "id, run_id, thread_id, parent_task_id, state, assignee, requester, title, attempts, created_at, updated_at, started_at, ended_at, error, open_questions, open_approvals, last_seq, imported";

/** A `tasks` row as JSON (json_agg): timestamps as strings, last_seq as a number. */
type TaskJson = { [K in keyof TaskRow]: TaskRow[K] extends Date ? string : TaskRow[K] extends Date | null ? string | null : TaskRow[K] extends bigint ? number : TaskRow[K] };
/** An `events` row as JSON (json_agg). */
type EventJson = Omit<EventRow, "seq" | "ts" | "stored_at"> & { seq: number; ts: string; stored_at: string };

const iso = (t: string) => new Date(t).toISOString();

function taskViewOf(row: TaskJson): TaskView {
  return {
    task_id: row.id,
    run_id: row.run_id,
    thread_id: row.thread_id,
    parent_task_id: row.parent_task_id,
    state: row.state as TaskState,
    assignee: row.assignee,
    requester: row.requester,
    title: row.title,
    attempts: row.attempts,
    created_at: iso(row.created_at),
    updated_at: iso(row.updated_at),
    started_at: row.started_at === null ? null : iso(row.started_at),
    ended_at: row.ended_at === null ? null : iso(row.ended_at),
    error: (row.error as Record<string, unknown> | null) ?? null,
    open_questions: (row.open_questions as unknown as OpenQuestion[] | null) ?? [],
    open_approvals: (row.open_approvals as unknown as TaskView["open_approvals"] | null) ?? [],
    last_seq: Number(row.last_seq),
    imported: row.imported,
  };
}

interface RunDelta {
  thread_id: string;
  started_at: string;
  tasks_added: number;
  done_delta: number;
}

/**
 * tasks: fold each event that affects a task (task.*, questions and answers;
 * lib/fold/task-state.ts) into the task as stored (`stored`, read by logHead). Returns the tasks
 * that changed (to upsert) and the per-run deltas.
 */
function projectTasks(fresh: StoredEvent[], stored: ReadonlyMap<string, TaskView>): { changed: TaskView[]; runs: Map<string, RunDelta> } {
  const taskEvents = fresh.filter(affectsTask);
  const runs = new Map<string, RunDelta>();
  if (!taskEvents.length) return { changed: [], runs };
  const ids = new Set(taskEvents.map((ev) => ev.task_id));
  const before = new Map([...stored].filter(([id]) => ids.has(id)));
  const after = new Map(before);
  for (const ev of taskEvents) {
    const task = foldTask(after.get(ev.task_id), ev);
    if (task) after.set(ev.task_id, task);
  }
  for (const [id, task] of after) {
    const prev = before.get(id);
    const delta = runs.get(task.run_id) ?? { thread_id: task.thread_id, started_at: task.created_at, tasks_added: 0, done_delta: 0 };
    if (!prev) delta.tasks_added++;
    const wasDone = prev ? TERMINAL_STATES.has(prev.state) : false;
    const isDone = TERMINAL_STATES.has(task.state);
    delta.done_delta += Number(isDone) - Number(wasDone);
    runs.set(task.run_id, delta);
  }
  return { changed: [...after.values()].filter((t) => t !== before.get(t.task_id)), runs };
}

/** The runs' rows to write: `upserts` (runs whose tasks changed), `others` (the rest, counted). */
interface RunRows {
  upserts: Record<string, unknown>[];
  others: { id: string; n: number; last_seq: number; updated_at: string }[];
}

/**
 * runs: a run appears with its first task (a fork's copies name their source in
 * `meta.forked_from`); every event of a known run bumps its counters; its state follows its
 * root tasks (lib/fold/run-state.ts): the stored roots (`roots`, read by logHead) with the
 * group's changes to them.
 */
function projectRuns(fresh: StoredEvent[], tasks: { changed: TaskView[]; runs: Map<string, RunDelta> }, roots: ReadonlyMap<string, { run_id: string; state: TaskState }>): RunRows {
  const taskRuns = tasks.runs;
  const per = new Map<string, { id: string; n: number; last_seq: number; updated_at: string }>();
  for (const ev of fresh) {
    const r = per.get(ev.run_id) ?? { id: ev.run_id, n: 0, last_seq: 0, updated_at: ev.ts };
    r.n++;
    r.last_seq = ev.seq;
    r.updated_at = ev.ts;
    per.set(ev.run_id, r);
  }
  // Runs with task changes are upserted (their state follows their roots); the others only count events.
  let upserts: Record<string, unknown>[] = [];
  if (taskRuns.size) {
    const now = new Map(roots);
    for (const t of tasks.changed) if (t.parent_task_id === null) now.set(t.task_id, { run_id: t.run_id, state: t.state });
    upserts = [...taskRuns.keys()].map((id) => {
      const d = taskRuns.get(id)!;
      const p = per.get(id)!;
      const state = runStateOf([...now.values()].filter((r) => r.run_id === id).map((r) => r.state));
      const fork = fresh.find((ev) => ev.run_id === id && ev.meta?.forked_from)?.meta?.forked_from as { run_id?: string; at_seq?: number } | undefined;
      return {
        ...d,
        ...p,
        state,
        ended_at: state === "running" ? null : p.updated_at,
        forked_from_run_id: fork?.run_id ?? null,
        forked_at_seq: fork?.at_seq ?? null,
      };
    });
  }
  return { upserts, others: [...per.values()].filter((r) => !taskRuns.has(r.id)) };
}

/**
 * Insert the new events, update their threads' activity (last_seq, last_event_at and
 * message_count, lib/unread.ts), upsert the changed tasks and the runs, in one statement: the
 * data-modifying parts of one WITH, each fed by one jsonb parameter (jsonb_to_recordset: any
 * batch size). The parts write different tables (the two on runs, disjoint sets of runs), so none
 * needs to see another's rows.
 */
async function writeGroup(sql: Sql, fresh: StoredEvent[], tasks: TaskView[], runs: RunRows): Promise<void> {
  const rows = fresh.map((ev) => {
    const r = toRow(ev, ev.seq);
    return { ...r, seq: ev.seq, ts: ev.ts };
  });
  const threads = new Map<string, { id: string; last_seq: number; last_event_at: string; n: number }>();
  for (const ev of fresh) {
    const t = threads.get(ev.thread_id) ?? { id: ev.thread_id, last_seq: 0, last_event_at: ev.ts, n: 0 };
    t.last_seq = ev.seq;
    t.last_event_at = ev.ts;
    if (countsAsUnread(ev)) t.n++;
    threads.set(ev.thread_id, t);
  }
  await sql.query(
    `WITH inserted AS (
       INSERT INTO events (seq, id, run_id, thread_id, task_id, parent_task_id, type, from_agent_id, ts, idempotency_key, payload, rest)
       SELECT seq, id, run_id, thread_id, task_id, parent_task_id, type, from_agent_id, ts, idempotency_key, payload, rest
         FROM jsonb_to_recordset($1::jsonb) AS x(seq bigint, id text, run_id text, thread_id text, task_id text, parent_task_id text,
              type text, from_agent_id text, ts timestamptz, idempotency_key text, payload jsonb, rest jsonb)
     ), activity AS (
       UPDATE threads t
          SET last_seq = x.last_seq, last_event_at = x.last_event_at, message_count = t.message_count + x.n
         FROM jsonb_to_recordset($2::jsonb) AS x(id text, last_seq bigint, last_event_at timestamptz, n int)
        WHERE t.id = x.id
     ), tasked AS (
       INSERT INTO tasks (id, run_id, thread_id, parent_task_id, state, assignee, requester, title, attempts,
                          created_at, updated_at, started_at, ended_at, error, open_questions, open_approvals, last_seq, imported)
       SELECT task_id, run_id, thread_id, parent_task_id, state, assignee, requester, title, attempts,
              created_at, updated_at, started_at, ended_at, error, open_questions, open_approvals, last_seq, imported
         FROM jsonb_to_recordset($3::jsonb) AS x(task_id text, run_id text, thread_id text, parent_task_id text,
              state text, assignee text, requester text, title text, attempts int, created_at timestamptz,
              updated_at timestamptz, started_at timestamptz, ended_at timestamptz, error jsonb, open_questions jsonb,
              open_approvals jsonb, last_seq bigint, imported boolean)
       ON CONFLICT (id) DO UPDATE SET state = EXCLUDED.state, assignee = EXCLUDED.assignee, title = EXCLUDED.title,
              attempts = EXCLUDED.attempts, updated_at = EXCLUDED.updated_at, started_at = EXCLUDED.started_at, ended_at = EXCLUDED.ended_at,
              error = EXCLUDED.error, open_questions = EXCLUDED.open_questions, open_approvals = EXCLUDED.open_approvals,
              last_seq = EXCLUDED.last_seq
     ), upserted AS (
       INSERT INTO runs (id, thread_id, state, started_at, updated_at, ended_at, task_total, task_done, event_count, last_seq,
                         forked_from_run_id, forked_at_seq)
       SELECT id, thread_id, state, started_at, updated_at, ended_at, tasks_added, done_delta, n, last_seq,
              forked_from_run_id, forked_at_seq
         FROM jsonb_to_recordset($4::jsonb) AS x(id text, thread_id text, state text, started_at timestamptz,
              updated_at timestamptz, ended_at timestamptz, tasks_added int, done_delta int, n int, last_seq bigint,
              forked_from_run_id text, forked_at_seq bigint)
       ON CONFLICT (id) DO UPDATE SET state = EXCLUDED.state, updated_at = EXCLUDED.updated_at,
              ended_at = EXCLUDED.ended_at, task_total = runs.task_total + EXCLUDED.task_total,
              task_done = runs.task_done + EXCLUDED.task_done, event_count = runs.event_count + EXCLUDED.event_count,
              last_seq = EXCLUDED.last_seq
     ), counted AS (
       UPDATE runs r SET event_count = r.event_count + x.n, last_seq = x.last_seq, updated_at = x.updated_at
         FROM jsonb_to_recordset($5::jsonb) AS x(id text, n int, last_seq bigint, updated_at timestamptz)
        WHERE r.id = x.id
     )
     SELECT 1`,
    [JSON.stringify(rows), JSON.stringify([...threads.values()]), JSON.stringify(tasks), JSON.stringify(runs.upserts), JSON.stringify(runs.others)],
  );
}

/**
 * approvals: each approval event folded into its approval's row with the browser's transition
 * (lib/fold/approvals.ts `foldApproval`), starting from the row as stored. Only pending
 * approvals change, so only pending rows are read; a request whose approval_id or gate is
 * already stored is not inserted again (ON CONFLICT DO NOTHING). One statement inserts the new
 * rows, one updates the decided ones.
 */
async function projectApprovals(sql: Sql, fresh: StoredEvent[]): Promise<void> {
  const ids = [...new Set(fresh.map(approvalIdOf).filter((id) => id !== null))];
  if (!ids.length) return;
  const before = await pendingApprovals(sql, ids);
  const after = new Map(before);
  for (const ev of fresh) {
    const id = approvalIdOf(ev);
    const next = id ? foldApproval(after.get(id), ev) : undefined;
    if (next) after.set(next.approval_id, next);
  }
  const created = [...after].filter(([id]) => !before.has(id)).map(([, a]) => approvalRow(a));
  const decided = [...after].filter(([id, a]) => before.has(id) && a !== before.get(id)).map(([id, a]) => ({ id, ...decisionOf(a) }));
  const decisionColumns = `state text, approvers jsonb, expires_at timestamptz, decided_at timestamptz, decided_by text, comment text, decided_arguments jsonb`;
  if (created.length) {
    await sql.query(
      `INSERT INTO approvals (id, run_id, thread_id, task_id, agent_id, kind, summary, subject, arguments, preview, recommendation, rule,
                             requested_at, request_seq, gate_key, state, approvers, expires_at, decided_at, decided_by, comment, decided_arguments)
       SELECT id, run_id, thread_id, task_id, agent_id, kind, summary, subject, arguments, preview, recommendation, rule,
              requested_at, request_seq, gate_key, state, approvers, expires_at, decided_at, decided_by, comment, decided_arguments
         FROM jsonb_to_recordset($1::jsonb) AS x(id text, run_id text, thread_id text, task_id text, agent_id text, kind text, summary text,
              subject jsonb, arguments jsonb, preview text, recommendation jsonb, rule text, requested_at timestamptz, request_seq bigint,
              gate_key text, ${decisionColumns})
       ON CONFLICT DO NOTHING`,
      [JSON.stringify(created)],
    );
  }
  if (decided.length) {
    await sql.query(
      `UPDATE approvals a SET state = x.state, approvers = x.approvers, expires_at = x.expires_at, decided_at = x.decided_at,
              decided_by = x.decided_by, comment = x.comment, decided_arguments = x.decided_arguments
         FROM jsonb_to_recordset($1::jsonb) AS x(id text, ${decisionColumns})
        WHERE a.id = x.id`,
      [JSON.stringify(decided)],
    );
  }
}

/**
 * The stored pending approvals among `ids`, as the fold's state: the request (read back from the
 * log by `request_seq`) folded, with the approvers and deadline the row holds now (an
 * escalation may have changed them). `history` and `escalation` start empty: no column needs them.
 */
async function pendingApprovals(sql: Sql, ids: string[]): Promise<Map<string, ApprovalView>> {
  const rows = await sql.query<Pick<ApprovalRow, "id" | "approvers" | "expires_at" | "request_seq">>(
    `SELECT id, approvers, expires_at, request_seq FROM approvals WHERE id = ANY($1::text[]) AND state = 'pending'`,
    [ids],
  );
  if (!rows.length) return new Map();
  const requests = await sql.query<EventRow>(`SELECT ${eventColumns()} FROM events WHERE seq = ANY($1::bigint[])`, [rows.map((r) => String(r.request_seq))]);
  const bySeq = new Map(requests.map((r) => [r.seq, fromRow(r)]));
  const out = new Map<string, ApprovalView>();
  for (const row of rows) {
    const request = bySeq.get(row.request_seq);
    const approval = request && foldApproval(undefined, request);
    if (approval) out.set(row.id, { ...approval, approvers: row.approvers as Approvers, expires_at: row.expires_at.toISOString() });
  }
  return out;
}

/** The columns an approval's state and decision fill (who decided, when, with what comment and arguments), as JSON. */
function decisionOf(a: ApprovalView) {
  const o = a.outcome;
  const decision = o && o.type !== "approval.expired" ? o : null;
  return {
    state: a.state,
    approvers: a.approvers,
    expires_at: a.expires_at,
    decided_at: o?.ts ?? null,
    decided_by: decision?.payload.by ?? null,
    comment: decision?.payload.comment ?? null,
    decided_arguments: (decision?.type === "approval.granted" ? decision.payload.arguments : undefined) ?? null,
  };
}

/** A new `approvals` row, as JSON. */
function approvalRow(a: ApprovalView) {
  const { request, payload: p } = a;
  return {
    id: a.approval_id,
    run_id: request.run_id,
    thread_id: request.thread_id,
    task_id: request.task_id,
    agent_id: p.subject.agent,
    kind: p.subject.kind,
    summary: p.summary,
    subject: p.subject,
    arguments: p.arguments ?? null,
    preview: p.preview ?? null,
    recommendation: p.recommendation ?? null,
    rule: p.rule ?? null,
    requested_at: request.ts,
    request_seq: request.seq,
    gate_key: String(request.meta?.gate ?? a.approval_id),
    ...decisionOf(a),
  };
}
