/**
 * Copying a run's events into a new run (fork, import as a new run: runs.ts). The copy gets a
 * new run id and new task ids (task ids are unique across the store), every reference to them
 * inside the events is rewritten (parent_task_id, meta.review_of, agent instance ids, text that
 * names them), and idempotency keys are scoped to the new run so they stay unique. Message ids
 * stay: they are unique per run, and replies keep pointing at the right message.
 */
import { newId, type ClutchMessage, type StoredEvent } from "@/lib/protocol";

const TASK_ID = /task_[0-9A-HJKMNP-TV-Z]{26}/g;

export interface RemapOptions {
  /** The new run's id (default: a new `run_` id). */
  run_id?: string;
  /** Put the copy in another thread. */
  thread_id?: string;
  /** Stamp every copy with this `ts` (a fork's copies are dated when the fork was made). */
  ts?: string;
  /** Extra `meta` for each copied event, from the original. */
  mark?: (ev: ClutchMessage & { seq?: number }) => Record<string, unknown>;
}

/** The messages of `events` (one run) as a new run, in the same order. Throws on an empty list. */
export function remapRun(events: readonly (ClutchMessage & { seq?: number })[], opts: RemapOptions = {}): { run_id: string; messages: ClutchMessage[] } {
  if (!events.length) throw new Error("remapRun: no events to copy");
  const source = events[0]!.run_id;
  const run_id = opts.run_id ?? newId("run");
  const tasks = new Map<string, string>();
  for (const ev of events) for (const id of [ev.task_id, ev.parent_task_id]) if (id && !tasks.has(id)) tasks.set(id, newId("task"));
  const messages = events.map((ev) => {
    const { seq, ...msg } = ev;
    void seq;
    const json = JSON.stringify(msg)
      .replace(TASK_ID, (id) => tasks.get(id) ?? id)
      .replaceAll(JSON.stringify(source).slice(1, -1), run_id);
    const copy = JSON.parse(json) as ClutchMessage;
    copy.run_id = run_id;
    copy.task_id = tasks.get(ev.task_id) ?? copy.task_id;
    if (opts.thread_id) copy.thread_id = opts.thread_id;
    if (opts.ts) copy.ts = opts.ts;
    if (copy.idempotency_key) copy.idempotency_key = `${run_id}:${ev.idempotency_key}`.slice(0, 200);
    const extra = opts.mark?.(ev);
    if (extra) copy.meta = { ...copy.meta, ...extra };
    return copy;
  });
  return { run_id, messages };
}

/** Events of a run with seq ≤ at_seq, as stored. */
export function upTo(events: readonly StoredEvent[], at_seq: number): StoredEvent[] {
  return events.filter((e) => e.seq <= at_seq);
}
