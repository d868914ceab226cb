/**
 * Import contention benchmark: how long a person's small append waits while a large run import
 * holds the append path (docs/limits.md, "Imports and forks"; docs/benchmarks.md).
 *
 *   node --import tsx bench/import-contention.ts [--lines=50000] [--interval=50] [--baseline=5]
 *
 * 1. Baseline: one chat.message appended every `--interval` ms for `--baseline` seconds, alone.
 * 2. Contention: a run of `--lines` events (the bench Workload's realistic mix, one run_id) is
 *    imported through `importRun` (the code behind `POST /api/runs/import`: parse, validate every
 *    line, then `store.appendAll` in groups of APPEND_ALL_GROUP), while the same small appends
 *    continue every `--interval` ms until the import ends.
 *
 * Prints p50 / p99 / max of the small appends' latency (ms, from the call to its resolution) in
 * both phases, the import's duration and rate, and writes bench/results/<name>.json.
 */
import { makeMessage, newId, type ClutchMessage } from "@/lib/protocol";
import { createClutch } from "@/server/clutch";
import { APPEND_ALL_GROUP } from "@/server/events/store";
import { importRun } from "@/server/runs/runs";
import { arg, benchDatabase, createThreads, gitState, load, machine, numArg, sleep, summarize, Workload, writeResults } from "./_lib";

const LINES = numArg("lines", 50_000);
const INTERVAL = numArg("interval", 50);
const BASELINE_S = numArg("baseline", 5);
const NAME = arg("name", "import-contention");

/** Appends one chat message every INTERVAL ms until `until()` is true; returns the latencies (ms). */
async function smallAppends(append: (m: ClutchMessage) => Promise<unknown>, thread_id: string, until: () => boolean): Promise<number[]> {
  const latencies: number[] = [];
  const inflight: Promise<void>[] = [];
  while (!until()) {
    const message = makeMessage({ thread_id, run_id: newId("run"), task_id: newId("task"), type: "chat.message", to: [], from: { agent_id: "user:bench", role: "human" }, payload: { text: "a small message while the import runs" } });
    const started = performance.now();
    inflight.push(append(message).then(() => void latencies.push(performance.now() - started)));
    await sleep(INTERVAL);
  }
  await Promise.all(inflight);
  return latencies;
}

async function main() {
  const db = await benchDatabase();
  const clutch = await createClutch({ databaseUrl: db.url, dataDir: "", workspaceDir: null });
  try {
    const [importThread, chatThread] = await createThreads(clutch.store, 2, "import");
    const workload = new Workload([importThread!], { seed: 3 });
    const run_id = workload.batch(1)[0]!.run_id;
    const text = workload
      .batch(LINES)
      .map((m) => JSON.stringify({ ...m, run_id }))
      .join("\n");
    const append = (m: ClutchMessage) => clutch.store.append(m);

    const baselineEnds = performance.now() + BASELINE_S * 1000;
    const baseline = await smallAppends(append, chatThread!, () => performance.now() > baselineEnds);

    let done = false;
    const importStarted = performance.now();
    const imported = importRun(clutch.store, text).finally(() => (done = true));
    const during = await smallAppends(append, chatThread!, () => done);
    const result = await imported;
    const importMs = performance.now() - importStarted;

    const figures = {
      lines: LINES,
      group: APPEND_ALL_GROUP,
      interval_ms: INTERVAL,
      import_ms: Math.round(importMs),
      import_events_per_s: Math.round((result.events / importMs) * 1000),
      baseline: summarize(baseline),
      during_import: summarize(during),
    };
    const fmt = (d: ReturnType<typeof summarize>) => `n=${d.n} p50=${d.p50.toFixed(1)} ms p99=${d.p99.toFixed(1)} ms max=${d.max.toFixed(1)} ms`;
    console.log(`import of ${LINES} lines (groups of ${APPEND_ALL_GROUP}): ${(importMs / 1000).toFixed(1)} s, ${figures.import_events_per_s} events/s`);
    console.log(`small appends alone:          ${fmt(figures.baseline)}`);
    console.log(`small appends during import:  ${fmt(figures.during_import)}`);
    const file = writeResults(NAME, { machine: machine(), git: gitState(), load: load(), figures });
    console.log(`results: ${file}`);
  } finally {
    await clutch.stop();
    await db.drop();
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
