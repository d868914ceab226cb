/**
 * Runs list benchmark: how long `GET /api/runs`'s reads take on a store with many runs, with and
 * without the runs table's list indexes (docs/benchmarks.md "The runs list").
 *
 *   node --import tsx bench/runs-list.ts [--runs=100000] [--channels=40] [--tasks=2] [--reps=30]
 *
 * A fresh migrated database (benchDatabase); `--runs` runs spread over `--channels` channels,
 * each with `--tasks` tasks, written with set-based SQL (generate_series), then ANALYZE. Then,
 * first with the migration's indexes and again with them dropped (and the old index on
 * `thread_id` alone back), `--reps` times each: the first page of every run (`runList` with
 * thread_ids "all", 50 runs, then their RunFacts: number in the channel, requester, agents, as
 * `listRuns` reads them), the first page of one channel, and a later page (a `before` cursor
 * half way down). Prints p50/p95 per read, with the calibration, and writes
 * bench/results/runs-list.json.
 */
import pg from "pg";
import { createDb } from "@/server/db/client";
import { Queries } from "@/server/events/queries";
import { benchDatabase, calibrate, calibrationLine, load, numArg, summarize, writeResults, type Dist } from "./_lib";

const RUNS = numArg("runs", 100_000);
const CHANNELS = numArg("channels", 40);
const TASKS = numArg("tasks", 2);
const REPS = numArg("reps", 30);
const PAGE = 50;

const calibration = await calibrate();
console.log(calibrationLine(calibration));
const db = await benchDatabase();
const sql = new pg.Client({ connectionString: db.url });
await sql.connect();
const prisma = createDb(db.url);
const queries = new Queries(prisma);

try {
  const started = performance.now();
  await sql.query(`INSERT INTO threads (id, name) SELECT 'thr_bench_' || c, 'bench-' || c FROM generate_series(1, ${CHANNELS}) c`);
  // Runs a minute apart, newest last; each channel gets every CHANNELS-th run.
  await sql.query(
    `INSERT INTO runs (id, thread_id, state, started_at, updated_at, created_at, task_total, task_done, event_count, last_seq)
     SELECT 'run_bench_' || lpad(i::text, 8, '0'), 'thr_bench_' || (1 + i % ${CHANNELS}),
            CASE WHEN i % 10 = 0 THEN 'running' ELSE 'succeeded' END,
            now() - make_interval(mins => ${RUNS} - i), now() - make_interval(mins => ${RUNS} - i),
            now() - make_interval(mins => ${RUNS} - i), ${TASKS}, ${TASKS}, ${TASKS * 4}, i
       FROM generate_series(1, ${RUNS}) i`,
  );
  await sql.query(
    `INSERT INTO tasks (id, run_id, thread_id, parent_task_id, assignee, requester, state, title, attempts, created_at, updated_at)
     SELECT 'task_bench_' || lpad(i::text, 8, '0') || '_' || k, 'run_bench_' || lpad(i::text, 8, '0'), 'thr_bench_' || (1 + i % ${CHANNELS}),
            CASE WHEN k = 1 THEN NULL ELSE 'task_bench_' || lpad(i::text, 8, '0') || '_1' END,
            'agent:bench-' || (k + i % 7), 'user:bench-' || (i % 5), 'succeeded', 'Bench task ' || k, 1, now(), now()
       FROM generate_series(1, ${RUNS}) i, generate_series(1, ${TASKS}) k`,
  );
  await sql.query("ANALYZE runs; ANALYZE tasks");
  console.log(`runs-list: ${RUNS.toLocaleString("en-US")} runs in ${CHANNELS} channels, ${TASKS} tasks each, written in ${Math.round(performance.now() - started)} ms; load ${load().join(" ")}`);

  const halfway = (await sql.query<{ started_at: Date; id: string }>(`SELECT started_at, id FROM runs ORDER BY started_at DESC, id DESC OFFSET ${Math.floor(RUNS / 2)} LIMIT 1`)).rows[0]!;
  const reads: Record<string, () => Promise<unknown>> = {
    "every channel, first page + facts": async () => {
      const rows = await queries.runList({ thread_ids: "all", limit: PAGE + 1 });
      await queries.runFacts(rows.map((r) => r.id));
    },
    "one channel, first page + facts": async () => {
      const rows = await queries.runList({ thread_ids: ["thr_bench_1"], limit: PAGE + 1 });
      await queries.runFacts(rows.map((r) => r.id));
    },
    "every channel, a page half way down": () => queries.runList({ thread_ids: "all", limit: PAGE + 1, before: { started_at: halfway.started_at, run_id: halfway.id } }),
  };

  const measure = async (): Promise<Record<string, Dist>> => {
    const out: Record<string, Dist> = {};
    for (const [name, read] of Object.entries(reads)) {
      await read(); // warm
      const ms: number[] = [];
      for (let i = 0; i < REPS; i++) {
        const t = performance.now();
        await read();
        ms.push(performance.now() - t);
      }
      out[name] = summarize(ms);
    }
    return out;
  };

  const withIndexes = await measure();
  await sql.query(`DROP INDEX runs_started_at_id_idx; DROP INDEX runs_thread_id_created_at_id_idx; CREATE INDEX runs_thread_id_idx ON runs (thread_id); ANALYZE runs`);
  const without = await measure();

  const line = (d: Dist) => `p50 ${d.p50.toFixed(1)} ms, p95 ${d.p95.toFixed(1)} ms`;
  for (const name of Object.keys(reads)) {
    console.log(`${name.padEnd(40)} with the indexes: ${line(withIndexes[name]!)}   without: ${line(without[name]!)}   (${(without[name]!.p50 / withIndexes[name]!.p50).toFixed(1)} ×)`);
  }
  const file = writeResults("runs-list", { calibration, runs: RUNS, channels: CHANNELS, tasks_per_run: TASKS, reps: REPS, with_indexes: withIndexes, without_indexes: without, load_after: load() });
  console.log(`results: ${file}`);
} finally {
  await sql.end();
  await prisma.$disconnect();
  await db.drop();
}
