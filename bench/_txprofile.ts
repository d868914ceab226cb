/**
 * Optional profiling for bench/ingest.ts (`--profile`): wraps the event store's Prisma client
 * `$transaction` (interactive form) and times, per transaction, the wait for a connection and
 * BEGIN, each statement issued on the transaction client, and COMMIT. A statement whose SQL
 * takes `pg_advisory_xact_lock` is the wait for the append lock; from its return until COMMIT
 * returns the transaction holds the lock, i.e. is the serialized part of the append path.
 *
 * It relies only on the append path using `db.$transaction(async (tx) => …)`; when nothing
 * is observed the report says so. Wrapping adds a few microseconds per statement.
 */
import type { Dist } from "./_lib";
import { summarize } from "./_lib";

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
  /** Per transaction (ms): from $transaction() to the callback starting (pool wait + BEGIN). */
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

function labelOf(sqlOrTemplate: unknown): string {
  const text = Array.isArray(sqlOrTemplate) ? (sqlOrTemplate as string[]).join("?") : String(sqlOrTemplate);
  return text.replace(/\s+/g, " ").trim().slice(0, 48);
}

type AnyFn = (...args: unknown[]) => unknown;

/** Start recording transactions on `db`. */
export function profileTransactions(db: object) {
  const records: TxRecord[] = [];
  const target = db as { $transaction: AnyFn };
  const original = target.$transaction.bind(db) as AnyFn;

  const timed = (rec: TxRecord, label: string, run: () => unknown) => {
    const s = now();
    return Promise.resolve(run()).then((r) => {
      const ms = now() - s;
      if (label.includes("pg_advisory")) {
        rec.lockWait += ms;
        rec.lockAcquired ??= now();
      } else rec.statements.push({ label, ms, held: rec.lockAcquired !== null });
      return r;
    });
  };

  const wrapTx = (tx: object, rec: TxRecord): object =>
    new Proxy(tx, {
      get(t, prop) {
        const v = Reflect.get(t, prop, t) as unknown;
        if (typeof prop !== "string") return v;
        if (typeof v === "function" && /^\$(execute|query)Raw/.test(prop)) {
          return (...args: unknown[]) => timed(rec, labelOf(args[0]), () => (v as AnyFn).apply(t, args));
        }
        if (v && typeof v === "object" && !prop.startsWith("$")) {
          return new Proxy(v, {
            get(dt, m) {
              const f = Reflect.get(dt, m, dt) as unknown;
              if (typeof f !== "function") return f;
              return (...args: unknown[]) => timed(rec, `${prop}.${String(m)}`, () => (f as AnyFn).apply(dt, args));
            },
          });
        }
        return v;
      },
    });

  target.$transaction = (arg: unknown, opts?: unknown) => {
    if (typeof arg !== "function") return original(arg, opts);
    const rec: TxRecord = { call: now(), start: 0, lockAcquired: null, lockWait: 0, cbEnd: 0, done: 0, statements: [] };
    const p = original(async (tx: object) => {
      rec.start = now();
      try {
        return await (arg as AnyFn)(wrapTx(tx, rec));
      } finally {
        rec.cbEnd = now();
      }
    }, opts) as Promise<unknown>;
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
      target.$transaction = original;
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
