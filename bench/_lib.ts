/**
 * Shared helpers for the benchmarks in bench/ (not tests: benchmarks print figures, tests never
 * time things).
 *
 * - `benchDatabase()`: a fresh, migrated PostgreSQL database `clutch_bench_<ts>` on the local
 *   server (dropped by `drop()`), or `BENCH_DATABASE_URL` when given (never dropped).
 * - `Workload`: realistic ClutchMessages (chat, task lifecycle with subtasks, tool calls and
 *   results with JSON arguments, routing decisions, heartbeats) over a few threads and many
 *   runs, from a seeded generator so runs are repeatable.
 * - `machine()`, `summarize()`, `writeResults()`, `args()`: figures and their JSON file.
 * - `calibrate()`, `calibrationLine()`, `atReference()`: the machine's speed at the time of the
 *   run, printed on a bench's first line and stored in its JSON, so figures taken on a busier or
 *   slower day can be compared (docs/benchmarks.md "Targets").
 */
import { execFile, execFileSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import pg from "pg";
import { makeMessage, newId, type ClutchMessage, type MessageType, type PayloadOf } from "@/lib/protocol";
import { migrate } from "@/server/db/migrate";

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");

/** Wall-clock time in milliseconds with sub-millisecond precision, comparable across threads. */
export const wallMs = () => performance.timeOrigin + performance.now();

// ---------------------------------------------------------------------------------------------
// Arguments: `--name=value` or `--name value` on argv, else env BENCH_<NAME>, else the default.

const argv = process.argv.slice(2);

/** A string option: `--name=v` / `--name v`, else env `BENCH_<NAME>` (dashes → underscores). */
export function arg(name: string, fallback: string): string {
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    if (a === `--${name}` && i + 1 < argv.length && !argv[i + 1]!.startsWith("--")) return argv[i + 1]!;
    if (a.startsWith(`--${name}=`)) return a.slice(name.length + 3);
  }
  const env = process.env[`BENCH_${name.toUpperCase().replace(/-/g, "_")}`];
  return env ?? fallback;
}

export const numArg = (name: string, fallback: number) => {
  const v = Number(arg(name, String(fallback)));
  if (!Number.isFinite(v)) throw new Error(`--${name} must be a number`);
  return v;
};
export const listArg = (name: string, fallback: string) =>
  arg(name, fallback)
    .split(",")
    .map((s) => s.trim())
    .filter(Boolean);
export const flag = (name: string) => argv.includes(`--${name}`) || process.env[`BENCH_${name.toUpperCase().replace(/-/g, "_")}`] === "1";

// ---------------------------------------------------------------------------------------------
// Database

export interface BenchDatabase {
  url: string;
  /** True when this bench created the database (and will drop it). */
  created: boolean;
  drop(): Promise<void>;
}

const ADMIN_URL = process.env.BENCH_ADMIN_URL ?? "postgresql://postgres@127.0.0.1:5432/postgres";

/** BENCH_DATABASE_URL as given, or a fresh migrated `clutch_bench_<ts>` on the local server. */
export async function benchDatabase(): Promise<BenchDatabase> {
  const given = process.env.BENCH_DATABASE_URL;
  if (given) {
    await migrate(given);
    return { url: given, created: false, drop: async () => {} };
  }
  const name = `clutch_bench_${Date.now()}_${process.pid}`;
  const admin = new pg.Client({ connectionString: ADMIN_URL });
  await admin.connect();
  await admin.query(`CREATE DATABASE "${name}"`);
  await admin.end();
  const u = new URL(ADMIN_URL);
  u.pathname = `/${name}`;
  const url = u.toString();
  let dropped = false;
  const drop = async () => {
    if (dropped) return;
    dropped = true;
    const c = new pg.Client({ connectionString: ADMIN_URL });
    await c.connect();
    await c.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
    await c.end();
  };
  try {
    await migrate(url);
  } catch (err) {
    await drop();
    throw err;
  }
  return { url, created: true, drop };
}

/** The URL without a password, for printing. */
export const safeUrl = (url: string) => {
  const u = new URL(url);
  if (u.password) u.password = "***";
  return u.toString();
};

// ---------------------------------------------------------------------------------------------
// Workload: realistic ClutchMessages

/** mulberry32: a small seeded PRNG so workloads repeat. */
function rng(seed: number) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const WORDS = (
  "revenue churn cohort quarter forecast pipeline latency region segment retention margin backlog " +
  "deploy rollback incident ticket customer enterprise pricing discount invoice anomaly dashboard " +
  "query index schema migration benchmark throughput cluster replica cache budget hiring roadmap"
).split(" ");

const PEOPLE = ["user:alice", "user:bob", "user:chen", "user:dana"];
const ANALYSTS = ["agent:analyst-1", "agent:analyst-2", "agent:researcher-1", "agent:coder-1", "agent:reviewer-1"];
const TOOLS = [
  { tool: "sql.query", server_id: "mcp:warehouse" },
  { tool: "web.search", server_id: "mcp:search" },
  { tool: "fs.read_file", server_id: "mcp:files" },
  { tool: "python.run", server_id: "mcp:sandbox" },
];

type Step = () => ClutchMessage;

/**
 * An endless stream of realistic messages. Each run is a script: a person asks in a channel,
 * a task.request goes to a PM agent, a routing.decision, task.accept, a plan, then 2–4
 * subtasks (request, accept, progress, 1–2 tool.call/tool.result pairs with JSON arguments
 * and rows, occasional tool.error or task.error, task.result), a summary and the root result.
 * About 25–45 events per run. `openRuns` runs are interleaved, so a batch mixes runs and
 * threads the way concurrent agents would.
 */
export class Workload {
  private readonly rand: () => number;
  private readonly open: Step[][] = [];
  private nextThread = 0;
  runsStarted = 0;

  constructor(
    private readonly threads: readonly string[],
    opts: { seed?: number; openRuns?: number } = {},
  ) {
    if (!threads.length) throw new Error("Workload needs at least one thread");
    this.rand = rng(opts.seed ?? 1);
    for (let i = 0; i < (opts.openRuns ?? 6); i++) this.open.push(this.newRun());
  }

  /** The next message. */
  next(): ClutchMessage {
    const i = Math.floor(this.rand() * this.open.length);
    let run = this.open[i]!;
    if (!run.length) run = this.open[i] = this.newRun();
    return run.shift()!();
  }

  /** The next `n` messages. */
  batch(n: number): ClutchMessage[] {
    const out = new Array<ClutchMessage>(n);
    for (let k = 0; k < n; k++) out[k] = this.next();
    return out;
  }

  private pick<T>(xs: readonly T[]): T {
    return xs[Math.floor(this.rand() * xs.length)]!;
  }

  private words(n: number): string {
    const out: string[] = [];
    for (let i = 0; i < n; i++) out.push(this.pick(WORDS));
    return out.join(" ");
  }

  private newRun(): Step[] {
    this.runsStarted++;
    const thread_id = this.threads[this.nextThread++ % this.threads.length]!;
    const run_id = newId("run");
    const trace_id = newId("trace");
    const root = newId("task");
    const person = this.pick(PEOPLE);
    const pm = "agent:pm-1";
    const title = `Analyze ${this.words(3)}`;
    const base = { thread_id, run_id };
    const m = <T extends MessageType>(
      type: T,
      payload: PayloadOf<T>,
      o: { task_id: string; from: string; role: string; to?: string[]; parent?: string | null; extra?: Partial<ClutchMessage> },
    ): Step => () =>
      makeMessage({
        ...base,
        type,
        payload,
        task_id: o.task_id,
        parent_task_id: o.parent ?? null,
        from: { agent_id: o.from, role: o.role },
        to: (o.to ?? []).map((agent_id) => ({ agent_id })),
        trace: { trace_id, span_id: newId("span") },
        ...o.extra,
      });

    const steps: Step[] = [
      m("chat.message", { text: `@pm-1 ${title.toLowerCase()} for the ${this.words(2)} review. ${this.words(25)}`, mentions: [pm], expects_reply: true }, { task_id: root, from: person, role: "human", to: [pm] }),
      m("task.request", { title, instructions: `${this.words(40)}.`, input: { quarter: "Q4", regions: ["emea", "amer", "apac"], limit: 500 } }, { task_id: root, from: person, role: "human", to: [pm], extra: { requires: ["skill:planning"], prefers: ["skill:finance"] } }),
      m("routing.decision", { selected: pm, candidates: [pm, "agent:pm-2"], reason: "capability match skill:planning; lowest load", scores: { [pm]: 0.91, "agent:pm-2": 0.74 } }, { task_id: root, from: "agent:router", role: "router" }),
      m("task.accept", { agent_id: pm, note: "on it" }, { task_id: root, from: pm, role: "orchestrator" }),
      m("chat.message", { text: `Plan: ${this.words(30)}.`, reply_to: "prev" }, { task_id: root, from: pm, role: "orchestrator", to: [person] }),
    ];
    const subtasks = 2 + Math.floor(this.rand() * 3);
    for (let s = 0; s < subtasks; s++) {
      const task_id = newId("task");
      const agent = this.pick(ANALYSTS);
      const o = { task_id, parent: root };
      steps.push(
        m("task.request", { title: `Step ${s + 1}: ${this.words(4)}`, instructions: this.words(30), context_summary: this.words(20) }, { ...o, from: pm, role: "orchestrator", to: [agent] }),
        m("task.accept", { agent_id: agent }, { ...o, from: agent, role: "worker" }),
        m("task.progress", { message: `reading ${this.words(3)}`, percent: 20 }, { ...o, from: agent, role: "worker" }),
      );
      const calls = 1 + Math.floor(this.rand() * 2);
      for (let c = 0; c < calls; c++) {
        const call_id = newId("call");
        const t = this.pick(TOOLS);
        steps.push(
          m("tool.call", { call_id, ...t, arguments: { query: `SELECT region, sum(amount) FROM ${this.pick(WORDS)} WHERE quarter = $1 GROUP BY region`, params: ["2025-Q4"], timeout_ms: 30000, options: { cache: true, max_rows: 1000 } } }, { ...o, from: agent, role: "worker" }),
        );
        if (this.rand() < 0.05) {
          steps.push(m("tool.error", { call_id, ...t, code: "TIMEOUT", message: "tool timed out after 30000 ms", retryable: true, duration_ms: 30000 }, { ...o, from: agent, role: "worker" }));
        } else {
          const rows = Array.from({ length: 3 + Math.floor(this.rand() * 6) }, (_, r) => ({ region: this.pick(["emea", "amer", "apac"]), amount: Math.round(this.rand() * 1e6) / 100, rank: r + 1 }));
          steps.push(m("tool.result", { call_id, ...t, result: { rows, row_count: rows.length }, duration_ms: Math.round(this.rand() * 900) }, { ...o, from: agent, role: "worker" }));
        }
      }
      if (this.rand() < 0.3) steps.push(m("agent.heartbeat", { agent_id: agent, status: "busy", active_tasks: 1 }, { ...o, from: agent, role: "worker" }));
      steps.push(m("task.progress", { message: "aggregating", percent: 80 }, { ...o, from: agent, role: "worker" }));
      if (this.rand() < 0.08) {
        steps.push(m("task.error", { code: "DATA_MISSING", message: `no rows for ${this.words(2)}`, retryable: false }, { ...o, from: agent, role: "worker" }));
      } else {
        steps.push(m("task.result", { summary: this.words(35), data: { total: Math.round(this.rand() * 1e7) / 100, currency: "EUR" } }, { ...o, from: agent, role: "worker", extra: { attachments: [{ kind: "artifact_ref", ref: `artifact:${newId("message")}` }] } }));
      }
    }
    steps.push(
      m("chat.message", { text: `Summary: ${this.words(40)}.` }, { task_id: root, from: pm, role: "orchestrator", to: [person] }),
      m("task.result", { summary: this.words(30) }, { task_id: root, from: pm, role: "orchestrator" }),
    );
    return steps;
  }
}

/** Create `n` channels named `<prefix>-<i>-<suffix>`; returns their ids. */
export async function createThreads(
  store: { createThread(input: unknown, by: { agent_id: string }): Promise<{ id: string }> },
  n: number,
  prefix: string,
): Promise<string[]> {
  const suffix = Date.now().toString(36);
  const ids: string[] = [];
  for (let i = 0; i < n; i++) ids.push((await store.createThread({ name: `${prefix}-${i}-${suffix}`, topic: "benchmark" }, { agent_id: "user:bench" })).id);
  return ids;
}

// ---------------------------------------------------------------------------------------------
// Figures

export interface Dist {
  n: number;
  mean: number;
  p50: number;
  p95: number;
  p99: number;
  max: number;
}

/** Distribution of `xs` (ms), rounded to 0.01. Sorts a copy. */
export function summarize(xs: ArrayLike<number>): Dist {
  const a = Float64Array.from(xs).sort();
  const n = a.length;
  const q = (p: number) => (n ? a[Math.min(n - 1, Math.max(0, Math.ceil(p * n) - 1))]! : NaN);
  const r = (x: number) => Math.round(x * 100) / 100;
  let sum = 0;
  for (let i = 0; i < n; i++) sum += a[i]!;
  return { n, mean: r(n ? sum / n : NaN), p50: r(q(0.5)), p95: r(q(0.95)), p99: r(q(0.99)), max: r(n ? a[n - 1]! : NaN) };
}

/** The machine and what else is using it (load average over 1/5/15 min). */
export function machine() {
  let pgVersion = "?";
  try {
    pgVersion = execFileSync("psql", ["-At", "-h", "127.0.0.1", "-U", "postgres", "-c", "show server_version"], { encoding: "utf8", timeout: 5000 }).trim();
  } catch {
    /* not essential */
  }
  return {
    cpus: os.cpus().length,
    cpu_model: os.cpus()[0]?.model ?? "?",
    memory_gb: Math.round(os.totalmem() / 2 ** 30),
    node: process.version,
    postgres: pgVersion,
    loadavg: os.loadavg().map((x) => Math.round(x * 100) / 100),
  };
}

/** The commit the bench ran on, and whether the append path had uncommitted changes. */
export function gitState() {
  const git = (...a: string[]) => {
    try {
      return execFileSync("git", a, { cwd: ROOT, encoding: "utf8", timeout: 5000 }).trim();
    } catch {
      return "";
    }
  };
  return {
    commit: git("log", "-1", "--format=%h %s"),
    append_path_dirty: git("status", "--porcelain", "server/events").length > 0,
  };
}

/** Write `data` to bench/results/<name>.json (via a .tmp file, then rename); returns the path. */
export function writeResults(name: string, data: unknown): string {
  const dir = path.join(ROOT, "bench/results");
  fs.mkdirSync(dir, { recursive: true });
  const file = path.join(dir, `${name}.json`);
  fs.writeFileSync(`${file}.tmp`, JSON.stringify(data, null, 2) + "\n");
  fs.renameSync(`${file}.tmp`, file);
  return file;
}

// ---------------------------------------------------------------------------------------------
// Calibration

/** The calibration's program, run as `node -e` in a child process. */
export const CALIBRATION_SCRIPT = "let s=0;for(let i=0;i<3e8;i++)s+=i";

/** What `calibrate()` measured; stored as `calibration` in every results JSON that has one. */
export interface Calibration {
  /** Best of `runs_s`, in seconds: the figure to compare. */
  seconds: number;
  /** Every run, in seconds, child-process start to exit included. */
  runs_s: number[];
  what: string;
  /** The 1-minute/5-minute/15-minute load average just before the calibration. */
  loadavg: number[];
}

/**
 * The calibration of this box: `node -e "let s=0;for(let i=0;i<3e8;i++)s+=i"` in a child
 * process, timed from spawn to exit, best of `runs` (2). One core's speed as the machine gives it
 * now: about 1.8 s on a quiet box, 3.9 s on the loaded one of the issue. Takes 4–10 s.
 * Rejects when the child fails.
 */
export async function calibrate(runs = 2): Promise<Calibration> {
  const loadavg = load();
  const times: number[] = [];
  for (let i = 0; i < runs; i++) {
    const t = performance.now();
    await new Promise<void>((resolve, reject) =>
      execFile(process.execPath, ["-e", CALIBRATION_SCRIPT], { timeout: 120_000 }, (err) => (err ? reject(err) : resolve())),
    );
    times.push(Math.round(performance.now() - t) / 1000);
  }
  return { seconds: Math.min(...times), runs_s: times, what: "node summing 3×10⁸ integers", loadavg };
}

/** A bench's first line: "calibration: 3.9 s (node summing 3×10⁸ integers); load 3.1 2.9 2.7". */
export const calibrationLine = (c: Calibration) => `calibration: ${c.seconds.toFixed(1)} s (${c.what}); load ${c.loadavg.join(" ")}`;

/** The calibration the run-page target is stated at (docs/benchmarks.md "Targets"), in seconds. */
export const REFERENCE_CALIBRATION_S = 1.8;

/**
 * `ms` scaled to a box whose calibration is `reference` seconds (default 1.8): a CPU-bound figure
 * of a run whose calibration was `c` as it would be on that box. An estimate: it assumes the figure
 * scales with one core's speed.
 */
export const atReference = (ms: number, c: Calibration, reference = REFERENCE_CALIBRATION_S) => Math.round((ms * reference) / c.seconds);

/** Load average now, rounded. */
export const load = () => os.loadavg().map((x) => Math.round(x * 100) / 100);

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
