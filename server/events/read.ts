/**
 * Reading the log: events of a thread, a run or an agent's inbox in seq order, by cursor.
 *
 * `after`: events with seq > after, oldest first. `before`: the `limit` events just before
 * that seq (or the newest when `before` is "end"), returned oldest first. Both: the events with
 * after < seq < before, oldest first, paged forward (a slice of a long run, so a client can load
 * several slices at once). `limit` is capped at MAX_PAGE.
 *
 * `readEventLines`: every event of a scope after a seq, as JSON Lines text a page at a time, for a
 * response that streams a whole run (docs/architecture.md "Reading a run").
 */
import type { StoredEvent } from "@/lib/protocol";
import type { Event as EventRow } from "../db/generated/client";
import type { Sql } from "./sql";
import { eventColumns, eventLine, eventLineColumns, fromRow, type EventLineRow } from "./codec";

export const DEFAULT_PAGE = 200;
export const MAX_PAGE = 5000;

/** Events of a thread, of a run, addressed to an agent (`to` names it), or all of them. */
export type Scope = { thread_id: string } | { run_id: string } | { to_agent: string } | { all: true };

export interface ReadQuery {
  after?: number;
  before?: number | "end";
  limit?: number;
}

export interface Page {
  events: StoredEvent[];
  /** Cursor for the next page forward; null when this page reached the newest event. */
  next_after: number | null;
  /** With `before`: whether older events exist. */
  has_more_before?: boolean;
}

/** The SQL conditions of `scope`, each value pushed to `params` and named by its `$n`. */
function whereOf(scope: Scope, params: unknown[]): string[] {
  const p = (v: unknown) => `$${params.push(v)}`;
  if ("thread_id" in scope) return [`thread_id = ${p(scope.thread_id)}`];
  if ("run_id" in scope) return [`run_id = ${p(scope.run_id)}`];
  // An agent's inbox never holds an imported copy (lib/protocol/imported.ts: copies never act).
  if ("to_agent" in scope) return [`rest->'to' @> ${p(JSON.stringify([{ agent_id: scope.to_agent }]))}::jsonb`, `rest->'meta'->'imported' IS NULL`];
  return [];
}

/**
 * A page of events in `scope`: one raw statement on the `(scope, seq)` indexes, no query
 * compilation (the tail, the socket gateway and the API read through here all the time).
 */
export async function readEvents(sql: Sql, scope: Scope, q: ReadQuery = {}): Promise<Page> {
  const limit = Math.min(Math.max(q.limit ?? DEFAULT_PAGE, 1), MAX_PAGE);
  const params: unknown[] = [];
  const where = whereOf(scope, params);
  const p = (v: unknown) => `$${params.push(v)}`;
  const backwards = q.before !== undefined && q.after === undefined;
  if (!backwards) where.push(`seq > ${p(q.after ?? 0)}::bigint`);
  if (typeof q.before === "number") where.push(`seq < ${p(q.before)}::bigint`);
  const rows = await sql.query<EventRow>(
    `SELECT ${eventColumns()} FROM events ${where.length ? `WHERE ${where.join(" AND ")}` : ""} ORDER BY seq ${backwards ? "DESC" : "ASC"} LIMIT ${p(limit + 1)}`,
    params,
  );
  const more = rows.length > limit;
  if (backwards) return { events: rows.slice(0, limit).reverse().map(fromRow), next_after: null, has_more_before: more };
  const events = rows.slice(0, limit).map(fromRow);
  return { events, next_after: more ? events[events.length - 1]!.seq : null };
}

/** Every event in `scope` with seq > `after`, in seq order, read MAX_PAGE at a time. */
export async function readAllEvents(sql: Sql, scope: Scope, after = 0): Promise<StoredEvent[]> {
  const out: StoredEvent[] = [];
  for (;;) {
    const page = await readEvents(sql, scope, { after, limit: MAX_PAGE });
    out.push(...page.events);
    if (page.next_after === null) return out;
    after = page.next_after;
  }
}

/** A run's channel (that of its first event) and its newest seq; null when it has no event. */
export async function runHead(sql: Sql, run_id: string): Promise<{ thread_id: string; last_seq: number } | null> {
  // Two single-row reads on the (run_id, seq) index, one from each end.
  const [row] = await sql.query<{ thread_id: string | null; last_seq: bigint | null }>(
    `SELECT (SELECT thread_id FROM events WHERE run_id = $1 ORDER BY seq LIMIT 1) AS thread_id,
            (SELECT max(seq) FROM events WHERE run_id = $1) AS last_seq`,
    [run_id],
  );
  return row?.thread_id && row.last_seq !== null ? { thread_id: row.thread_id, last_seq: Number(row.last_seq) } : null;
}

/**
 * Every event in `scope` with `after` < seq ≤ `upTo`, in seq order, as JSON Lines: each yielded
 * string is a page of at most `pageSize` (default MAX_PAGE) events (codec.ts `eventLine`), every line ending in "\n";
 * nothing is yielded when there is no such event. One statement a page, reading the payloads as
 * text: nothing is parsed or re-encoded on the way. The upper bound keeps each page an ordered
 * walk of the `(scope, seq)` index that stops after the page, also where PostgreSQL has no
 * statistics yet (without it, it may sort every later event of the scope for each page).
 */
export async function* readEventLines(sql: Sql, scope: Scope, after: number, upTo: number, pageSize = MAX_PAGE): AsyncGenerator<string> {
  for (let cursor = after; cursor < upTo; ) {
    const params: unknown[] = [];
    const where = whereOf(scope, params);
    const p = (v: unknown) => `$${params.push(v)}`;
    where.push(`seq > ${p(cursor)}::bigint`, `seq <= ${p(upTo)}::bigint`);
    const rows = await sql.query<EventLineRow>(`SELECT ${eventLineColumns()} FROM events WHERE ${where.join(" AND ")} ORDER BY seq LIMIT ${p(pageSize)}`, params);
    if (!rows.length) return;
    let text = "";
    for (const row of rows) text += `${eventLine(row)}\n`;
    yield text;
    if (rows.length < pageSize) return;
    cursor = Number(rows[rows.length - 1]!.seq);
  }
}

/** The newest seq in the whole log (0 when empty). */
export async function headSeq(sql: Sql): Promise<number> {
  const [r] = await sql.query<{ max: bigint | null }>(`SELECT max(seq) AS max FROM events`);
  return Number(r?.max ?? 0n);
}
