/**
 * One Clutch node of bench/cluster.ts, in a process of its own: Clutch with the agents of the
 * workspace folder given as argv[2], in deployment argv[3] (nodes given the same one elect one
 * leader and share the agents' turns, server/dispatch/turns.ts), on the built-in model with the
 * sales example's playbooks (`builtinModel({ playbooks })`, server/agents/models), as
 * test/fixtures/agent-process.ts does for the tests.
 *
 *   node --import tsx bench/_cluster-node.ts <workspace dir> <deployment>
 *
 * Environment: DATABASE_URL (migrated by the bench), CLUTCH_NODE_NAME (this node's name, in
 * `meta.node` of its agents' events), CLUTCH_AGENT_CONCURRENCY (passes at once; default 4),
 * BENCH_MODEL_LATENCY_MS (each model call waits this long before the playbook answers; default
 * 1000), BENCH_NODE_DATA_DIR (its data folder; default a new temporary one), LOG_LEVEL (default warn).
 *
 * Stdout, one line each, for the bench to read:
 *   ready here|standby          once started: this node leads (runs the orchestrator) or stands by
 *   model call <key>            a model call of that turn begins (printed before the latency wait)
 *   turn-start <at> <key>       a turn (one job of the turn queue) begins here, wall ms
 *   turn <start> <end> <key>    that turn ended here
 *   wake <at> <key>             this node's orchestrator or runner queued a turn, wall ms
 *   swept <start> <end> <n>     this node's turn queue unlocked the turns of n workers that are gone
 *   leading <at>                this node took the lead over (another node's lease was lost)
 * SIGTERM stops it cleanly: `clutch.stop({ graceMs: 2000 })` (passes in hand are handed back to
 * the other nodes), then exit 0.
 */
import { AsyncLocalStorage } from "node:async_hooks";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { builtinModel, loadPlaybooks, slowModel } from "../server/agents/models";
import { createClutch } from "../server/clutch";
import { log } from "../server/log";

log.level = process.env.LOG_LEVEL ?? "warn";
const workspaceDir = process.argv[2];
const deployment = process.argv[3];
if (!workspaceDir || !deployment || !process.env.DATABASE_URL) {
  console.error("usage: DATABASE_URL=… node --import tsx bench/_cluster-node.ts <workspace dir> <deployment>");
  process.exit(2);
}
const latencyMs = Number(process.env.BENCH_MODEL_LATENCY_MS ?? 1000);
const now = () => Math.round(performance.timeOrigin + performance.now());
/** The turn (instance key) a model call belongs to. */
const turnOf = new AsyncLocalStorage<string>();
const modelCall = () => console.log(`model call ${turnOf.getStore() ?? "-"}`);

const playbooks = await loadPlaybooks(path.resolve("examples/sales-analysis"));
// The bench gives each node a data folder inside the scenario's (removed with it, even after a SIGKILL).
const dataDir = process.env.BENCH_NODE_DATA_DIR ?? fs.mkdtempSync(path.join(os.tmpdir(), "clutch-bench-node-"));
fs.mkdirSync(dataDir, { recursive: true });
const clutch = await createClutch({
  databaseUrl: process.env.DATABASE_URL,
  migrate: false, // the bench migrated its database
  dataDir,
  workspaceDir,
  deployment,
  leaseRetryMs: 300,
  traces: false,
  ...(process.env.CLUTCH_NODE_NAME ? { nodeName: process.env.CLUTCH_NODE_NAME } : {}),
  ...(process.env.CLUTCH_AGENT_CONCURRENCY ? { agentConcurrency: Number(process.env.CLUTCH_AGENT_CONCURRENCY) } : {}),
  modelFor: () => slowModel(builtinModel({ playbooks }), latencyMs, modelCall),
});

// Where the time goes: each turn this node ran, and each turn it queued. The turn queue calls
// `runner.runTurn` and the orchestrator `runner.wake` through the instance, so wrapping them here
// sees every one (nothing else changes).
const runner = clutch.runner as unknown as {
  runTurn: (agent_id: string, task_id: string, signal: AbortSignal) => Promise<unknown>;
  wake: (agent_id: string, task_id: string) => Promise<void>;
};
const runTurn = runner.runTurn.bind(runner);
runner.runTurn = async (agent_id, task_id, signal) => {
  const start = now();
  console.log(`turn-start ${start} ${agent_id}/${task_id}`);
  try {
    return await turnOf.run(`${agent_id}/${task_id}`, () => runTurn(agent_id, task_id, signal));
  } finally {
    console.log(`turn ${start} ${now()} ${agent_id}/${task_id}`);
  }
};
const wake = runner.wake.bind(runner);
runner.wake = (agent_id, task_id) => {
  console.log(`wake ${now()} ${agent_id}/${task_id}`);
  return wake(agent_id, task_id);
};

// The turn queue's sweeps that unlocked a gone node's turns, and when this node took the lead.
const turns = (clutch.runner as unknown as { deps: { turns?: { sweep: () => Promise<number> } } }).deps.turns;
if (turns) {
  const sweep = turns.sweep.bind(turns);
  turns.sweep = async () => {
    const start = now();
    const n = await sweep();
    if (n) console.log(`swept ${start} ${now()} ${n}`);
    return n;
  };
}
let leading = clutch.agents() === "here";
setInterval(() => {
  const here = clutch.agents() === "here";
  if (here && !leading) console.log(`leading ${now()}`);
  leading = here;
}, 50).unref();

let stopping = false;
process.on("SIGTERM", () => {
  if (stopping) return;
  stopping = true;
  void clutch
    .stop({ graceMs: 2000 })
    .catch((err) => console.error("stop failed", err))
    .finally(() => {
      fs.rmSync(dataDir, { recursive: true, force: true });
      process.exit(0);
    });
});
console.log(`ready ${clutch.agents()}`);
