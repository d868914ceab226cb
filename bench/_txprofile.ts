/**
 * Optional profiling for bench/ingest.ts (`--profile`): wraps the event store's append
 * transactor (`appendsOf(store)`, server/events/sql.ts) and times, per transaction, the wait for
 * a connection and BEGIN, each statement, and COMMIT. A statement whose SQL takes
 * `pg_advisory_xact_lock` is the wait for the append lock; from its return until COMMIT returns
 * the transaction holds the lock, i.e. is the serialized part of the append path.
 *
 * Wrapping adds a few microseconds per statement.
 */
import type { Dist } from "./_lib";
import { summarize } from "./_lib";
import type { Sql, Transactor } from "@/server/events/sql";

const now = () => performance.now();

interface TxRecord {
  call: number;
  start: number;
  lockAcquired: number | null;
  lockWait: number;
  cbEnd: number;
  done: number;
  statements: { label: string; ms: number; held: boolean }[];
}

export interface TxProfile {
  transactions: number;
  /** Per transaction (ms): from transaction() to the callback starting (pool wait + BEGIN). */
  begin: Dist;
  lock_wait: Dist;
  /** From acquiring the append lock to COMMIT returning (ms): the serialized section. */
  lock_held: Dist;
  commit: Dist;
  /** Sum of lock_held over wall time: 1.0 means appends were strictly back to back. */
  serialized_fraction: number;
  /** Per statement while holding the lock: count, mean and total ms, share of lock_held. */
  statements: { label: string; count: number; mean_ms: number; total_ms: number; share_of_held: number }[];
  note?: string;
}

function labelOf(text: string): string {
  return text.replace(/\s+/g, " ").trim().slice(0, 48);
}

/** Start recording the transactions of `transactor`. */
export function profileTransactions(transactor: Transactor) {
  const records: TxRecord[] = [];
  const original = transactor.transaction.bind(transactor);

  const timed = <T>(rec: TxRecord, label: string, run: () => Promise<T>): Promise<T> => {
    const s = now();
    return run().then((r) => {
      const ms = now() - s;
      if (label.includes("pg_advisory")) {
        rec.lockWait += ms;
        rec.lockAcquired ??= now();
      } else rec.statements.push({ label, ms, held: rec.lockAcquired !== null });
      return r;
    });
  };

  transactor.transaction = <T>(fn: (sql: Sql) => Promise<T>, opts?: { first?: string }) => {
    const rec: TxRecord = { call: now(), start: 0, lockAcquired: null, lockWait: 0, cbEnd: 0, done: 0, statements: [] };
    const p = original(async (sql) => {
      rec.start = now();
      // The lock taken with the BEGIN (group commit): its wait is in `begin`, held from here.
      if (opts?.first?.includes("pg_advisory")) rec.lockAcquired = rec.start;
      try {
        return await fn({ query: (text, params) => timed(rec, labelOf(text), () => sql.query(text, params)) });
      } finally {
        rec.cbEnd = now();
      }
    }, opts);
    return p.finally(() => {
      rec.done = now();
      records.push(rec);
    });
  };

  return {
    reset() {
      records.length = 0;
    },
    stop() {
      transactor.transaction = original;
    },
    report(wallMs: number): TxProfile {
      const withLock = records.filter((r) => r.lockAcquired !== null);
      const held = withLock.map((r) => r.done - r.lockAcquired!);
      const heldTotal = held.reduce((a, b) => a + b, 0);
      const per = new Map<string, { count: number; total: number }>();
      for (const r of withLock) {
        for (const s of r.statements) {
          if (!s.held) continue;
          const e = per.get(s.label) ?? { count: 0, total: 0 };
          e.count++;
          e.total += s.ms;
          per.set(s.label, e);
        }
        const c = per.get("COMMIT (after callback)") ?? { count: 0, total: 0 };
        c.count++;
        c.total += r.done - r.cbEnd;
        per.set("COMMIT (after callback)", c);
      }
      const accounted = [...per.values()].reduce((a, e) => a + e.total, 0);
      if (withLock.length) per.set("(between statements: JS work, event-loop waits)", { count: withLock.length, total: Math.max(0, heldTotal - accounted) });
      const r2 = (x: number) => Math.round(x * 1000) / 1000;
      return {
        transactions: records.length,
        begin: summarize(records.map((r) => r.start - r.call)),
        lock_wait: summarize(withLock.map((r) => r.lockWait)),
        lock_held: summarize(held),
        commit: summarize(records.map((r) => r.done - r.cbEnd)),
        serialized_fraction: r2(heldTotal / wallMs),
        statements: [...per]
          .map(([label, e]) => ({ label, count: e.count, mean_ms: r2(e.total / e.count), total_ms: Math.round(e.total), share_of_held: r2(e.total / heldTotal) }))
          .sort((a, b) => b.total_ms - a.total_ms),
        ...(records.length === 0 ? { note: "no interactive transaction observed on the store's database client" } : {}),
        ...(records.length && !withLock.length ? { note: "no pg_advisory lock statement observed" } : {}),
      };
    },
  };
}
