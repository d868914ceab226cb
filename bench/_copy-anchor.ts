/**
 * The raw anchors of bench/ingest.ts: how fast this machine's PostgreSQL takes the same rows the
 * append path stores, with nothing of Clutch in between. Both write the Workload's events, as
 * `events` rows, into a scratch table with the `events` table's columns, generated search column
 * and indexes (`LIKE events INCLUDING ALL`), for `seconds`, and drop it afterwards.
 *
 * - `measureRawCopy`: COPY (text format, `pg-copy-streams`) in groups of `group` rows, one
 *   transaction each: the anchor of batched appends.
 * - `measureRawInsert`: one row per `INSERT` statement, autocommit, from `connections` pg
 *   connections at once: the anchor of single-event appends from many writers.
 */
import pg from "pg";
import { from as copyFrom } from "pg-copy-streams";
import { pipeline } from "node:stream/promises";
import { Readable } from "node:stream";
import { toRow } from "@/server/events/codec";
import { summarize, Workload, type Dist } from "./_lib";

export interface CopyAnchor {
  rows: number;
  seconds: number;
  rows_per_s: number;
  group: number;
}

const COLUMNS = "seq, id, run_id, thread_id, task_id, parent_task_id, type, from_agent_id, ts, idempotency_key, payload, rest";

export interface InsertAnchor {
  rows: number;
  seconds: number;
  rows_per_s: number;
  connections: number;
  /** One INSERT's round trip, ms (autocommit: the commit's flush included). */
  insert_ms: Dist;
}

/** One value in COPY's text format. */
const text = (v: unknown) =>
  v === null || v === undefined ? "\\N" : String(v).replace(/\\/g, "\\\\").replace(/\t/g, "\\t").replace(/\n/g, "\\n").replace(/\r/g, "\\r");

function line(r: ReturnType<typeof toRow>): string {
  const ts = (r.ts as Date).toISOString();
  return [r.seq, r.id, r.run_id, r.thread_id, r.task_id, r.parent_task_id, r.type, r.from_agent_id, ts, r.idempotency_key, JSON.stringify(r.payload), JSON.stringify(r.rest)].map(text).join("\t") + "\n";
}

/** COPY Workload rows into a scratch copy of `events` on `url` for `seconds`; resolves with the rate. */
export async function measureRawCopy(url: string, threads: string[], opts: { seconds: number; group: number }): Promise<CopyAnchor> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  const table = `copy_anchor_${Date.now()}`;
  try {
    await client.query(`CREATE TABLE ${table} (LIKE events INCLUDING ALL)`);
    const wl = new Workload(threads, { seed: 4242, openRuns: 6 });
    let seq = 0;
    let busy = 0;
    const end = performance.now() + opts.seconds * 1000;
    while (performance.now() < end) {
      const body = wl.batch(opts.group).map((m) => line(toRow(m, ++seq))).join("");
      const t = performance.now();
      await client.query("BEGIN");
      await pipeline(Readable.from([body]), client.query(copyFrom(`COPY ${table} (${COLUMNS}) FROM STDIN`)));
      await client.query("COMMIT");
      busy += performance.now() - t;
    }
    return { rows: seq, seconds: Math.round(busy) / 1000, rows_per_s: Math.round((seq / busy) * 1000), group: opts.group };
  } finally {
    await client.query(`DROP TABLE IF EXISTS ${table}`).catch(() => undefined);
    await client.end();
  }
}

/**
 * INSERT Workload rows one per statement (autocommit) into a scratch copy of `events` on `url`,
 * from `connections` connections each sending its next row when the last is stored, for
 * `seconds`; resolves with the rate over all of them.
 */
export async function measureRawInsert(url: string, threads: string[], opts: { seconds: number; connections: number }): Promise<InsertAnchor> {
  const admin = new pg.Client({ connectionString: url });
  await admin.connect();
  const table = `insert_anchor_${Date.now()}`;
  const clients: pg.Client[] = [];
  try {
    await admin.query(`CREATE TABLE ${table} (LIKE events INCLUDING ALL)`);
    for (let i = 0; i < opts.connections; i++) {
      const c = new pg.Client({ connectionString: url });
      await c.connect();
      clients.push(c);
    }
    const wl = new Workload(threads, { seed: 4243, openRuns: Math.max(6, opts.connections * 3) });
    const sql = `INSERT INTO ${table} (${COLUMNS}) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12)`;
    let seq = 0;
    const latencies: number[] = [];
    const t0 = performance.now();
    const end = t0 + opts.seconds * 1000;
    await Promise.all(
      clients.map(async (c) => {
        while (performance.now() < end) {
          const r = toRow(wl.next(), ++seq);
          const t = performance.now();
          await c.query(sql, [String(r.seq), r.id, r.run_id, r.thread_id, r.task_id, r.parent_task_id, r.type, r.from_agent_id, r.ts, r.idempotency_key, JSON.stringify(r.payload), JSON.stringify(r.rest)]);
          latencies.push(performance.now() - t);
        }
      }),
    );
    const wall = performance.now() - t0;
    return { rows: latencies.length, seconds: Math.round(wall) / 1000, rows_per_s: Math.round((latencies.length / wall) * 1000), connections: opts.connections, insert_ms: summarize(latencies) };
  } finally {
    await Promise.all(clients.map((c) => c.end().catch(() => undefined)));
    await admin.query(`DROP TABLE IF EXISTS ${table}`).catch(() => undefined);
    await admin.end();
  }
}
