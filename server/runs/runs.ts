/**
 * Fork, export and import of runs (`POST /api/runs/:id/fork`, `GET /api/runs/:id/export`,
 * `POST /api/runs/import`; docs/architecture.md "Where each concern lives").
 *
 *   forkRun     a new run whose first events are copies of the source run's events 1..N
 *               (seq ≤ at_seq), each with meta.forked_from = { run_id, seq, at_seq, ts } and
 *               dated when the fork is made (the original's time is `forked_from.ts`), so
 *               the fork's durations count from the fork and the copies stay out of the
 *               channel's conversation (docs/channels.md "Forks"). Copied
 *               through the one append path, so the orchestrator sees them like any events and
 *               wakes the agents of unfinished tasks: their conversations are rebuilt from the
 *               copies, so recorded model steps and tool outputs before N are reused, and the
 *               run continues live from there.
 *   exportRun   the run as JSON Lines, one ClutchMessage (without seq) a line.
 *   importRun   JSON Lines back in: every line parsed and validated first (a bad line is
 *               reported with its number and the zod issue; a bad line stores nothing),
 *               then appended in bounded groups (EventStore.appendAll, docs/limits.md).
 */
import { ClutchMessageSchema, isEvent, isImportedCopy, type ClutchMessage, type ImportedMeta, type Participant } from "@/lib/protocol";
import type { RunImportResult, RunSummary } from "@/lib/api/types";
import { ClutchError } from "../errors";
import type { EventStore } from "../events/store";
import { runDetail } from "../events/runs";
import { remapRun, upTo } from "./remap";

/**
 * Fork `run_id` at `at_seq`, by `by` (the principal who forks, recorded as `forked_from.by`: they
 * asked for the fork's work too, docs/identity.md). Throws ClutchError unknown_run (404),
 * invalid_fork (400) when no event of the run is at or before at_seq, imported_copy (409) for an
 * imported copy, which never acts.
 */
export async function forkRun(store: EventStore, run_id: string, at_seq: number, by?: string): Promise<RunSummary> {
  const all = await store.readAll({ run_id });
  if (!all.length) throw new ClutchError("unknown_run", `run ${run_id} has no events`, 404);
  if (isImportedCopy(all[0])) {
    throw new ClutchError("imported_copy", `run ${run_id} is an imported copy: it never acts, so it cannot be re-run; re-run the original, or have an admin restore the file as a run (import without new_run)`, 409);
  }
  const copied = upTo(all, at_seq);
  if (!copied.length) throw new ClutchError("invalid_fork", `run ${run_id} has no event at or before seq ${at_seq}; its first is ${all[0]!.seq}`);
  const { run_id: fork, messages } = remapRun(copied, {
    ts: new Date().toISOString(),
    mark: (ev) => ({ forked_from: { run_id, seq: ev.seq, at_seq, ts: ev.ts, ...(by ? { by } : {}) } }),
  });
  await store.appendAll(messages);
  const detail = await runDetail(store.queries, fork);
  if (!detail) throw new ClutchError("invalid_fork", `the events up to seq ${at_seq} hold no task, so there is no run to continue`);
  return detail.run;
}

/** The run as JSON Lines (a trailing newline after every line). */
export async function* exportRun(store: EventStore, run_id: string): AsyncGenerator<string> {
  let after = 0;
  for (;;) {
    const page = await store.read({ run_id }, { after, limit: 5000 });
    yield page.events
      .map(({ seq, ...msg }) => {
        void seq;
        return JSON.stringify(msg) + "\n";
      })
      .join("");
    if (page.next_after === null) return;
    after = page.next_after;
  }
}

export interface ImportOptions {
  /** Put the run in this channel instead of the one its events name. */
  thread_id?: string;
  /** Give the run a new run id (and new task ids), e.g. to import next to the original. */
  new_run?: boolean;
  /** Whether the importer may write to a channel (unknown_thread otherwise); default: any. */
  canWrite?: (thread_id: string) => Promise<boolean>;
  /**
   * Who imports a copy (`new_run`): every copied event is theirs (`from`), with what the file
   * said quoted in `meta.imported` (lib/protocol/imported.ts), and its root requests'
   * `meta.requested_by` names them (docs/identity.md "Imported runs are copies that never act").
   */
  importer?: Participant;
  /** Validate and say what the import would do, storing nothing (the UI's "import into an existing run?" question). */
  dry_run?: boolean;
}

const MAX_ISSUES = 50;

/**
 * A restore writes the file's events as they are, but never decides an approval this server
 * holds: a granted, rejected or expired line about a stored approval would be a decision nobody
 * made here (an admin could approve their own work "as" another admin). Lines the log already
 * holds (the same id in the same run) are fine: the append skips them. Throws ClutchError
 * restore_decides (409) naming the first such line; nothing is stored.
 */
async function refuseStoredDecisions(store: EventStore, messages: readonly ClutchMessage[]): Promise<void> {
  for (const [i, m] of messages.entries()) {
    if (!isEvent(m, "approval.granted", "approval.rejected", "approval.expired")) continue;
    const approval_id = m.payload.approval_id;
    if (!(await store.queries.approval(approval_id))) continue;
    if (await store.queries.eventInRun(m.run_id, m.id)) continue;
    throw new ClutchError("restore_decides", `event ${i + 1} (${m.type}) decides approval ${approval_id}, which this server holds; a restore never decides an approval: decide it in Clutch; nothing was stored`, 409);
  }
}

/**
 * The copy's messages as the importer's own: `from` is the importer, the file's sender is quoted
 * in `meta.imported` (lib/protocol/imported.ts), a signature (which no longer matches) is dropped,
 * and root requests name the importer as the one who asked.
 */
function asImportedCopy(messages: ClutchMessage[], file_run_id: string, importer: Participant): ClutchMessage[] {
  const at = new Date().toISOString();
  return messages.map(({ security, ...m }) => {
    void security;
    const imported: ImportedMeta = { from: { ...m.from }, by: importer.agent_id, at, run_id: file_run_id };
    const root = m.type === "task.request" && !m.parent_task_id;
    return { ...m, from: { ...importer }, meta: { ...m.meta, imported, ...(root ? { requested_by: importer.agent_id } : {}) } };
  });
}

/**
 * Import JSON Lines into a run: a new one (`new_run`) or the run the lines name, which may
 * already exist (its events are then added to it; lines it already holds are skipped by the
 * append path's `(run_id, id)` dedupe). Returns what was done (RunImportResult); with `dry_run`,
 * what would be, storing nothing. Throws ClutchError invalid_jsonl (400, issues: [{ line, path,
 * message }]) when any line is bad, multiple_runs (400) when lines name several runs,
 * unknown_thread (422).
 */
export async function importRun(store: EventStore, text: string, opts: ImportOptions = {}): Promise<RunImportResult> {
  const messages: ClutchMessage[] = [];
  const issues: { line: number; path: (string | number)[]; message: string }[] = [];
  text.split(/\r?\n/).forEach((raw, i) => {
    if (!raw.trim() || issues.length >= MAX_ISSUES) return;
    const line = i + 1;
    let value: unknown;
    try {
      value = JSON.parse(raw);
    } catch (err) {
      issues.push({ line, path: [], message: `not JSON: ${(err as Error).message}` });
      return;
    }
    const r = ClutchMessageSchema.safeParse(value);
    if (r.success) messages.push(r.data);
    else for (const issue of r.error.issues) issues.push({ line, path: issue.path as (string | number)[], message: issue.message });
  });
  if (issues.length) {
    const f = issues[0]!;
    throw new ClutchError(
      "invalid_jsonl",
      `line ${f.line}${f.path.length ? ` at ${f.path.join(".")}` : ""}: ${f.message}${issues.length > 1 ? ` (and ${issues.length - 1} more)` : ""}; nothing was stored`,
      400,
      issues,
    );
  }
  if (!messages.length) throw new ClutchError("invalid_jsonl", "no events: send one ClutchMessage per line");
  const runs = new Set(messages.map((m) => m.run_id));
  if (runs.size > 1) throw new ClutchError("multiple_runs", `the lines name ${runs.size} runs (${[...runs].slice(0, 3).join(", ")}…); import one run at a time`);
  let run_id = messages[0]!.run_id;
  let toStore = messages;
  if (opts.new_run || opts.thread_id) {
    const remapped = opts.new_run
      ? remapRun(messages, { thread_id: opts.thread_id })
      : { run_id, messages: messages.map((m) => ({ ...m, thread_id: opts.thread_id! })) };
    run_id = remapped.run_id;
    toStore = remapped.messages;
  }
  if (opts.new_run && opts.importer) toStore = asImportedCopy(toStore, messages[0]!.run_id, opts.importer);
  if (opts.canWrite) {
    for (const thread_id of new Set(toStore.map((m) => m.thread_id))) {
      if (!(await opts.canWrite(thread_id))) throw new ClutchError("unknown_thread", `thread ${thread_id} does not exist`, 422);
    }
  }
  if (!opts.new_run) await refuseStoredDecisions(store, toStore);
  const before = opts.new_run ? null : await runDetail(store.queries, run_id);
  const existing = before ? { title: before.run.title, event_count: before.run.event_count } : null;
  const root = toStore.find((m) => m.type === "task.request" && !m.parent_task_id);
  const rootTitle = root && isEvent(root, "task.request") && typeof root.payload.title === "string" ? root.payload.title : null;
  const title = existing ? existing.title : rootTitle;
  if (opts.dry_run) return { run_id, events: toStore.length, created: 0, title, existing, dry_run: true };
  const result = await store.appendAll(toStore);
  return { run_id, events: result.events.length, created: result.created.filter(Boolean).length, title, existing, dry_run: false };
}
