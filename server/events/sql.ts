/**
 * The SQL the append path speaks (docs/architecture.md "The append path"): one transaction's
 * statements with positional parameters (`$1`, …), rows as plain objects with int8 as `bigint`,
 * timestamptz as `Date` and jsonb parsed. Two transactors provide it:
 *
 * - `pgTransactor(url)`: a `pg` pool of its own, with no ORM between the append and PostgreSQL
 *   (the serialized section pays one driver round trip per statement and nothing else). Used on
 *   PostgreSQL, also by the tail, which reads the log on every commit of another node.
 * - `prismaTransactor(db)`: the Prisma client's interactive transactions, for the embedded
 *   database, which serves one connection only (server/db/open.ts), and for appends that commit
 *   with Prisma writes (`prismaSql`, a channel's row with its announcement).
 *
 * A transaction commits when `fn` resolves and rolls back when it throws; its error is thrown
 * as is (server/db/availability.ts tells an outage apart). A connection waits at most 10 s for
 * the pool, a statement runs at most 30 s. Statements are not prepared: PostgreSQL's generic
 * plans for them (after five runs) scan the log where the custom plans use its indexes; measured
 * with bench/ingest, appends slowed down as the log grew.
 */
import pg from "pg";
import type { Db, Prisma } from "../db/client";

/** One transaction's statements. */
export interface Sql {
  /** Run `text` with `params`; resolves with its rows (none for a statement that returns none). */
  query<R = Record<string, unknown>>(text: string, params?: unknown[]): Promise<R[]>;
}

/** Runs functions in transactions, and single statements (`query`) outside any. */
export interface Transactor extends Sql {
  /**
   * Run `fn` in a transaction. `opts.first`: a statement without parameters run first (on a `pg`
   * pool sent with the BEGIN, in the same round trip; e.g. taking the append lock).
   */
  transaction<T>(fn: (sql: Sql) => Promise<T>, opts?: { first?: string }): Promise<T>;
  /** Close the transactor's own connections (none for Prisma's). */
  close(): Promise<void>;
}

/** A transaction waits at most 10 s for a connection and runs at most 30 s (Prisma's interactive transactions). */
export const TX_OPTIONS = { maxWait: 10_000, timeout: 30_000 };

/** `tx` (a Prisma client or interactive transaction) as Sql. */
export function prismaSql(tx: Db | Prisma.TransactionClient): Sql {
  return { query: <R>(text: string, params: unknown[] = []) => tx.$queryRawUnsafe<R[]>(text, ...params) };
}

/** Transactions of the Prisma client `db` (see the module doc). */
export function prismaTransactor(db: Db): Transactor {
  return {
    ...prismaSql(db),
    transaction: (fn, opts) =>
      db.$transaction(async (tx) => {
        if (opts?.first) await tx.$executeRawUnsafe(opts.first);
        return fn(prismaSql(tx));
      }, TX_OPTIONS),
    close: async () => {},
  };
}

/** int8 as bigint, like Prisma's raw queries; every other type as pg parses it. */
const types = {
  getTypeParser: ((oid: number, format?: "text" | "binary") =>
    oid === pg.types.builtins.INT8 ? (v: string) => BigInt(v) : pg.types.getTypeParser(oid, format)) as typeof pg.types.getTypeParser,
};

/** Transactions on a `pg` pool of its own for `url`, at most `max` connections (see the module doc). */
export function pgTransactor(url: string, max = 2): Transactor {
  const pool = new pg.Pool({ connectionString: url, max, types, connectionTimeoutMillis: TX_OPTIONS.maxWait, statement_timeout: TX_OPTIONS.timeout });
  // An idle connection that drops is replaced on the next checkout; the error must not go unhandled.
  pool.on("error", () => undefined);
  return {
    query: async (text, params) => (await pool.query(text, params)).rows,
    async transaction(fn, opts) {
      const client = await pool.connect();
      let broken: Error | undefined;
      try {
        // One simple-protocol query for both (no parameters): one round trip.
        await client.query(opts?.first ? `BEGIN; ${opts.first}` : "BEGIN");
        const sql: Sql = { query: async (text, params) => (await client.query(text, params)).rows };
        const result = await fn(sql);
        await client.query("COMMIT");
        return result;
      } catch (err) {
        await client.query("ROLLBACK").catch((e: Error) => (broken = e));
        throw err;
      } finally {
        client.release(broken);
      }
    },
    close: () => pool.end(),
  };
}
