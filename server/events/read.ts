/**
 * Reading the log: events of a thread, a run or an agent's inbox in seq order, by cursor.
 *
 * `after`: events with seq > after, oldest first. `before`: the `limit` events just before
 * that seq (or the newest when `before` is "end"), returned oldest first. `limit` is capped
 * at MAX_PAGE.
 */
import type { StoredEvent } from "@/lib/protocol";
import type { Db } from "../db/client";
import type { Prisma } from "../db/generated/client";
import { fromRow } from "./codec";

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

function whereOf(scope: Scope): Prisma.EventWhereInput {
  if ("thread_id" in scope) return { thread_id: scope.thread_id };
  if ("run_id" in scope) return { run_id: scope.run_id };
  if ("to_agent" in scope) return { rest: { path: ["to"], array_contains: [{ agent_id: scope.to_agent }] } };
  return {};
}

/** A page of events in `scope`. */
export async function readEvents(db: Db | Prisma.TransactionClient, scope: Scope, q: ReadQuery = {}): Promise<Page> {
  const limit = Math.min(Math.max(q.limit ?? DEFAULT_PAGE, 1), MAX_PAGE);
  const where = whereOf(scope);
  if (q.before !== undefined) {
    const rows = await db.event.findMany({
      where: q.before === "end" ? where : { ...where, seq: { lt: BigInt(q.before) } },
      orderBy: { seq: "desc" },
      take: limit + 1,
    });
    const hasMore = rows.length > limit;
    const events = rows.slice(0, limit).reverse().map(fromRow);
    return { events, next_after: null, has_more_before: hasMore };
  }
  const rows = await db.event.findMany({
    where: { ...where, seq: { gt: BigInt(q.after ?? 0) } },
    orderBy: { seq: "asc" },
    take: limit + 1,
  });
  const more = rows.length > limit;
  const events = rows.slice(0, limit).map(fromRow);
  return { events, next_after: more ? events[events.length - 1]!.seq : null };
}

/** Every event in `scope` with seq > `after`, in seq order, read MAX_PAGE at a time. */
export async function readAllEvents(db: Db, scope: Scope, after = 0): Promise<StoredEvent[]> {
  const out: StoredEvent[] = [];
  for (;;) {
    const page = await readEvents(db, scope, { after, limit: MAX_PAGE });
    out.push(...page.events);
    if (page.next_after === null) return out;
    after = page.next_after;
  }
}

/** The newest seq in the whole log (0 when empty). */
export async function headSeq(db: Db): Promise<number> {
  const r = await db.event.aggregate({ _max: { seq: true } });
  return Number(r._max.seq ?? 0n);
}
