/**
 * The raw anchor of bench/ingest.ts: how fast this machine's PostgreSQL takes the same rows the
 * append path stores, with nothing of Clutch in between. It COPYs (text format, `pg-copy-streams`)
 * the Workload's events, as `events` rows, into a scratch table with the `events` table's
 * columns, generated search column and indexes (`LIKE events INCLUDING ALL`), in groups of
 * `group` rows, one transaction each, for `seconds`. The table is dropped afterwards.
 */
import pg from "pg";
import { from as copyFrom } from "pg-copy-streams";
import { pipeline } from "node:stream/promises";
import { Readable } from "node:stream";
import { toRow } from "@/server/events/codec";
import { Workload } from "./_lib";

export interface CopyAnchor {
  rows: number;
  seconds: number;
  rows_per_s: number;
  group: number;
}

const COLUMNS = "seq, id, run_id, thread_id, task_id, parent_task_id, type, from_agent_id, ts, idempotency_key, payload, rest";

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
