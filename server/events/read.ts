/**
 * Reading the log: events of a thread, a run or an agent's inbox in seq order, by cursor.
 *
 * `after`: events with seq > after, oldest first. `before`: the `limit` events just before
 * that seq (or the newest when `before` is "end"), returned oldest first. Both: the events with
 * after < seq < before, oldest first, paged forward (a slice of a long run, so a client can load
 * several slices at once). `limit` is capped at MAX_PAGE.
 */
import type { StoredEvent } from "@/lib/protocol";
import type { Event as EventRow } from "../db/generated/client";
import type { Sql } from "./sql";
import { eventColumns, fromRow } from "./codec";

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

/** The SQL condition of `scope`, its parameter placed at `$1`. */
function whereOf(scope: Scope): { sql: string; params: unknown[] } {
  if ("thread_id" in scope) return { sql: "thread_id = $1", params: [scope.thread_id] };
  if ("run_id" in scope) return { sql: "run_id = $1", params: [scope.run_id] };
  if ("to_agent" in scope) return { sql: "rest->'to' @> $1::jsonb", params: [JSON.stringify([{ agent_id: scope.to_agent }])] };
  return { sql: "$1::int = 1", params: [1] };
}

/**
 * A page of events in `scope`: one raw statement on the `(scope, seq)` indexes, no query
 * compilation (the tail, the socket gateway and the API read through here all the time).
 */
export async function readEvents(sql: Sql, scope: Scope, q: ReadQuery = {}): Promise<Page> {
  const limit = Math.min(Math.max(q.limit ?? DEFAULT_PAGE, 1), MAX_PAGE);
  const where = whereOf(scope);
  const columns = eventColumns();
  if (q.before !== undefined && q.after === undefined) {
    const bound = q.before === "end" ? "" : ` AND seq < $3::bigint`;
    const rows = await sql.query<EventRow>(`SELECT ${columns} FROM events WHERE ${where.sql}${bound} ORDER BY seq DESC LIMIT $2`, [
      ...where.params,
      limit + 1,
      ...(q.before === "end" ? [] : [q.before]),
    ]);
    const hasMore = rows.length > limit;
    const events = rows.slice(0, limit).reverse().map(fromRow);
    return { events, next_after: null, has_more_before: hasMore };
  }
  const upTo = typeof q.before === "number" ? q.before : null;
  const rows = await sql.query<EventRow>(
    `SELECT ${columns} FROM events WHERE ${where.sql} AND seq > $3::bigint${upTo === null ? "" : " AND seq < $4::bigint"} ORDER BY seq ASC LIMIT $2`,
    [...where.params, limit + 1, q.after ?? 0, ...(upTo === null ? [] : [upTo])],
  );
  const more = rows.length > limit;
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

/** The newest seq in the whole log (0 when empty). */
export async function headSeq(sql: Sql): Promise<number> {
  const [r] = await sql.query<{ max: bigint | null }>(`SELECT max(seq) AS max FROM events`);
  return Number(r?.max ?? 0n);
}
