/**
 * Cluster benchmark: the deployment's agents' work spread over nodes (docs/deploy.md "Where agents
 * run"; server/dispatch/turns.ts), each figure printed beside its target and the machine's
 * calibration (docs/benchmarks.md "bench/cluster.ts").
 *
 *   node --import tsx bench/cluster.ts [options]
 *
 * Every node is a Clutch in a process of its own (bench/_cluster-node.ts), on one fresh bench
 * database, in one deployment: the nodes elect one leader (the orchestrator: routing, delegation,
 * queueing turns) and every node takes agents' turns, up to its `--concurrency` (4). The agents
 * are the sales example's team (pm-1 → analyst-1 → qa-1 review), on the built-in model with the
 * example's playbooks behind a middleware that makes every model call take `--latency-ms` (1 s),
 * with the example's MCP servers (started by each node that needs them). The bench itself is a
 * Clutch without a workspace (the observer) that posts the requests as the person Dana and answers
 * pm-1's question of each run as it appears (polling every 200 ms), as test/agent-nodes.test.ts
 * does.
 *
 * Scenarios (`--sections=one,three,kill`), each in a deployment and a channel of its own:
 * 1. one: 1 node. `--runs` (36) requests "Analyze last quarter's sales trends" posted at once;
 *    timed from the first request to the last run's end (`runs.ended_at`).
 * 2. three: `--nodes` (3) nodes, the same workload. Targets: the runs finish in ≤ 0.45 × one's
 *    time; every node makes ≥ 25 % of the model calls (`model.usage` events by `meta.node`).
 * 3. kill: 3 nodes; once `--kill-at` (half) of the runs' expected model calls are done, node
 *    `--kill-node` (1, a standby: node 0 leads) is SIGKILLed. Targets: every run succeeds and
 *    happened once (no agent action stored twice, each task accepted and ended once, each tool
 *    call with exactly one outcome), and 0 orphaned processes: once the surviving nodes are
 *    stopped (SIGTERM), no process of the scenario is left, the killed node's MCP servers included
 *    (found by a marker in their environment, `CLUTCH_BENCH_MARK`, which the scenario's copy of
 *    the example's mcp.json adds to each server).
 * Where the time goes, per scenario: each node prints every turn it ran (with its model calls),
 * every turn it queued, its sweeps of a gone node's turns and when it took the lead over
 * (bench/_cluster-node.ts), so the bench reports the slots' use against the floor (the model's
 * latency alone over every slot), the wait of a queued turn until a node takes it, a run's time
 * split into its turns (the model, the rest), queued, Dana's answer and the rest, a turn's time
 * besides its model calls, the CPU time of every process, and, after the kill, when the killed
 * node's turns were swept, woken and resumed.
 *
 * Options (or env BENCH_<NAME>): --runs=36 --latency-ms=1000 --concurrency=4 --nodes=3
 * --sections=one,three,kill --kill-node=1 --kill-at=0.5 --calls-per-run=0 (the expected model calls
 * of a run for the kill's moment; 0: as measured by one or three, else 27) --timeout=900 (s, per
 * scenario) --node-logs (forward the nodes' warnings) --name=cluster (results in
 * bench/results/<name>.json). The first line is the calibration (bench/_lib.ts `calibrate`).
 * About 9 minutes with the defaults on a 2-core box (one ≈ 4.5 min, three and kill ≈ 2 min each).
 */
import { spawn, type ChildProcess } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import readline from "node:readline";
import pg from "pg";
import { newId, type StoredEvent } from "@/lib/protocol";
import { indexQuestions } from "@/lib/fold/questions";
import { createClutch, type Clutch } from "@/server/clutch";
import { personMessage } from "@/server/events/chat";
import { log } from "@/server/log";
import { arg, benchDatabase, calibrate, calibrationLine, flag, listArg, load, machine, numArg, ROOT, safeUrl, sleep, summarize, writeResults, type BenchDatabase, type Dist } from "./_lib";

const RUNS = numArg("runs", 36);
const LATENCY_MS = numArg("latency-ms", 1000);
const CONCURRENCY = numArg("concurrency", 4);
const NODES = numArg("nodes", 3);
const SECTIONS = listArg("sections", "one,three,kill");
const KILL_NODE = numArg("kill-node", 1);
const KILL_AT = numArg("kill-at", 0.5);
const CALLS_PER_RUN = numArg("calls-per-run", 0);
const TIMEOUT_S = numArg("timeout", 900);
const NODE_LOGS = flag("node-logs");
const NAME = arg("name", "cluster");

const TARGET = { ratio: 0.45, share: 0.25, orphans: 0 };
const EXAMPLE = path.join(ROOT, "examples/sales-analysis");
const REQUEST = "Analyze last quarter's sales trends";
const DANA = { agent_id: "user:dana", display_name: "Dana" };
const CLK_TCK = 100;

const met = (ok: boolean) => (ok ? "met" : "MISSED");
const s1 = (ms: number) => `${(ms / 1000).toFixed(1)} s`;
const pct = (x: number) => `${(x * 100).toFixed(1)} %`;
const wallNow = () => Math.round(performance.timeOrigin + performance.now());

// ---------------------------------------------------------------------------------------------
// Workspace: the example's team in a channel of its own (as test/agents.ts scratchWorkspace, whose
// module imports vitest), with a copy of the example's mcp.json that marks its servers.

interface Scratch {
  dir: string;
  channel: string;
  /** In the environment of every process of the scenario (nodes and MCP servers): CLUTCH_BENCH_MARK=<mark>. */
  mark: string;
}

function scratchWorkspace(scenario: string): Scratch {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), `clutch-bench-cluster-${scenario}-`));
  const channel = `sales-${newId("thread").slice(-8).toLowerCase()}`;
  const mark = `${path.basename(dir)}`;
  fs.mkdirSync(path.join(dir, "agents"));
  for (const f of fs.readdirSync(path.join(EXAMPLE, "agents"))) fs.copyFileSync(path.join(EXAMPLE, "agents", f), path.join(dir, "agents", f));
  // The example's servers as they are, run in the example's folder, each with the scenario's mark.
  const mcp = JSON.parse(fs.readFileSync(path.join(EXAMPLE, "mcp.json"), "utf8")) as { mcpServers: Record<string, { env?: Record<string, string>; cwd?: string }> };
  for (const s of Object.values(mcp.mcpServers)) {
    s.cwd = EXAMPLE;
    s.env = { ...s.env, CLUTCH_BENCH_MARK: mark };
  }
  fs.writeFileSync(path.join(dir, "mcp.json"), JSON.stringify(mcp, null, 2));
  // No clutch.policy.yaml: everything allowed (the example's policy holds the report for an admin).
  fs.writeFileSync(path.join(dir, "workspace.json"), JSON.stringify({ agents: "agents", mcp: "mcp.json", channels: [{ name: channel, entry_agent: "pm-1", answers: "every_message" }] }));
  return { dir, channel, mark };
}

// ---------------------------------------------------------------------------------------------
// Processes

interface Turn {
  node: string;
  start: number;
  end: number;
  key: string;
  /** Model calls the turn made. */
  model_calls: number;
}

class Node {
  readonly child: ChildProcess;
  agents: "here" | "standby" | null = null;
  modelCalls = 0;
  readonly turns: Turn[] = [];
  /** Turns begun here and not ended (by key → start). */
  readonly inFlight = new Map<string, number>();
  readonly wakes: { at: number; key: string }[] = [];
  /** This node's sweeps that unlocked a gone node's turns. */
  readonly sweeps: { start: number; end: number; workers: number }[] = [];
  /** When this node took the lead over, if it did. */
  leadingAt: number | null = null;
  /** Model calls of the turns in hand, by key. */
  private readonly callsOf = new Map<string, number>();
  readonly stderrTail: string[] = [];
  warnings = 0;
  exitCode: number | null | undefined = undefined;
  readonly exited: Promise<void>;
  readonly ready: Promise<void>;

  constructor(
    readonly name: string,
    ws: Scratch,
    deployment: string,
    databaseUrl: string,
  ) {
    this.child = spawn(process.execPath, ["--import", "tsx", "bench/_cluster-node.ts", ws.dir, deployment], {
      cwd: ROOT,
      env: {
        ...process.env,
        DATABASE_URL: databaseUrl,
        CLUTCH_NODE_NAME: name,
        CLUTCH_AGENT_CONCURRENCY: String(CONCURRENCY),
        BENCH_MODEL_LATENCY_MS: String(LATENCY_MS),
        BENCH_NODE_DATA_DIR: path.join(ws.dir, `data-${name}`),
        CLUTCH_BENCH_MARK: ws.mark,
        LOG_LEVEL: "warn",
      },
      stdio: ["ignore", "pipe", "pipe"],
    });
    this.exited = new Promise((r) => this.child.once("exit", (code) => ((this.exitCode = code), r())));
    let readyResolve: () => void;
    let readyReject: (e: Error) => void;
    this.ready = new Promise((res, rej) => ((readyResolve = res), (readyReject = rej)));
    void this.exited.then(() => readyReject(new Error(`${name} exited with ${this.exitCode} before it was ready:\n${this.stderrTail.join("\n")}`)));
    readline.createInterface({ input: this.child.stdout! }).on("line", (line) => {
      if (line.startsWith("model call")) {
        this.modelCalls++;
        const key = line.slice(11);
        this.callsOf.set(key, (this.callsOf.get(key) ?? 0) + 1);
      }
      else if (line.startsWith("turn-start ")) {
        const [, at, key] = line.split(" ");
        this.inFlight.set(key!, Number(at));
      } else if (line.startsWith("turn ")) {
        const [, start, end, key] = line.split(" ");
        this.turns.push({ node: name, start: Number(start), end: Number(end), key: key!, model_calls: this.callsOf.get(key!) ?? 0 });
        this.callsOf.delete(key!);
        this.inFlight.delete(key!);
      } else if (line.startsWith("wake ")) {
        const [, at, key] = line.split(" ");
        this.wakes.push({ at: Number(at), key: key! });
      } else if (line.startsWith("swept ")) {
        const [, start, end, n] = line.split(" ");
        this.sweeps.push({ start: Number(start), end: Number(end), workers: Number(n) });
      } else if (line.startsWith("leading ")) {
        this.leadingAt = Number(line.slice(8));
      } else if (line.startsWith("ready ")) {
        this.agents = line.slice(6) as "here" | "standby";
        readyResolve();
      }
    });
    readline.createInterface({ input: this.child.stderr! }).on("line", (line) => {
      this.stderrTail.push(line);
      if (this.stderrTail.length > 30) this.stderrTail.shift();
      if (/"level":(40|50|60)/.test(line)) this.warnings++;
      if (NODE_LOGS) console.error(`[${name}] ${line}`);
    });
  }

  get pid(): number {
    return this.child.pid!;
  }

  get alive(): boolean {
    return this.exitCode === undefined;
  }

  /** SIGTERM, then wait up to `ms` for a clean exit; true when it exited by itself. */
  async stop(ms = 20_000): Promise<boolean> {
    if (!this.alive) return true;
    this.child.kill("SIGTERM");
    const clean = await Promise.race([this.exited.then(() => true), sleep(ms).then(() => false)]);
    if (!clean) {
      this.child.kill("SIGKILL");
      await this.exited;
    }
    return clean;
  }
}

/** Every child process this bench started (the nodes), so none outlives it, even on error. */
const started: Node[] = [];
/** Every scenario's mark, for the last sweep of left processes. */
const marks: string[] = [];

interface Proc {
  pid: number;
  ppid: number;
  args: string;
}

/** The processes whose environment has CLUTCH_BENCH_MARK=<mark> or whose command line names `dir` (from /proc). */
function processesOf(mark: string, dir?: string): Proc[] {
  const out: Proc[] = [];
  for (const d of fs.readdirSync("/proc")) {
    if (!/^\d+$/.test(d)) continue;
    const pid = Number(d);
    if (pid === process.pid) continue;
    try {
      const args = fs.readFileSync(`/proc/${d}/cmdline`, "utf8").split("\0").join(" ").trim();
      if (!args) continue; // a zombie, or a kernel thread
      const environ = fs.readFileSync(`/proc/${d}/environ`, "utf8");
      if (!environ.split("\0").includes(`CLUTCH_BENCH_MARK=${mark}`) && !(dir && args.includes(dir))) continue;
      const stat = fs.readFileSync(`/proc/${d}/stat`, "utf8");
      const ppid = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
      out.push({ pid, ppid, args });
    } catch {
      // gone meanwhile, or not readable
    }
  }
  return out;
}

/** Whether the process has exited and waits for its parent to collect it. */
function isZombie(pid: number): boolean {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, "utf8");
    return stat.slice(stat.lastIndexOf(")") + 2).startsWith("Z");
  } catch {
    return true;
  }
}

/** CPU seconds (user + system) a process has used so far, from /proc/<pid>/stat; null when gone. */
function cpuSeconds(pid: number): number | null {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, "utf8");
    const f = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    return (Number(f[11]) + Number(f[12])) / CLK_TCK;
  } catch {
    return null;
  }
}

/** A short name for a process of the scenario: the node's name, or the MCP server's script. */
function procLabel(p: Proc, nodes: Node[]): string {
  const n = nodes.find((x) => x.pid === p.pid);
  if (n) return n.name;
  const m = /mcp-servers\/([\w-]+)\.ts/.exec(p.args);
  const parent = nodes.find((x) => x.pid === p.ppid);
  return `${m ? m[1] : p.args.slice(0, 60)}${parent ? ` (of ${parent.name})` : " (parent gone)"}`;
}

function killEverything(): void {
  for (const n of started) if (n.alive) n.child.kill("SIGKILL");
  for (const mark of marks) for (const p of processesOf(mark)) {
    try {
      process.kill(p.pid, "SIGKILL");
    } catch {
      // already gone
    }
  }
}

// ---------------------------------------------------------------------------------------------
// The workload: requests, answers, runs

/** The runs people's requests started in the thread: the root tasks requested of pm-1. */
function runsOf(events: StoredEvent[]): string[] {
  return [...new Set(events.filter((e) => e.type === "task.request" && e.to[0]?.agent_id === "agent:pm-1" && !e.parent_task_id).map((e) => e.run_id))];
}

/** The thread's events so far, read incrementally (and read whole again when nothing moved for a while, in case a late commit was skipped). */
class ThreadReader {
  events: StoredEvent[] = [];
  private lastSeq = 0;
  private lastGrowth = Date.now();

  constructor(
    private readonly rt: Clutch,
    private readonly thread_id: string,
  ) {}

  async read(): Promise<StoredEvent[]> {
    if (Date.now() - this.lastGrowth > 3000) {
      this.events = await this.rt.store.readAll({ thread_id: this.thread_id });
      this.lastSeq = this.events.at(-1)?.seq ?? 0;
      this.lastGrowth = Date.now();
      return this.events;
    }
    const more = await this.rt.store.readAll({ thread_id: this.thread_id }, this.lastSeq);
    if (more.length) {
      this.events.push(...more);
      this.lastSeq = more.at(-1)!.seq;
      this.lastGrowth = Date.now();
    }
    return this.events;
  }
}

interface RunOutcome {
  run_id: string;
  state: string;
  task_total: number;
  task_done: number;
  started_ms: number;
  ended_ms: number | null;
  /** How long pm-1's question waited for Dana's answer, ms (the poll's share of the run). */
  answer_wait_ms: number | null;
  asked_ms: number | null;
  answered_ms: number | null;
}

/** What "once" found in one run's events (as test/agents.ts expectSalesRunOnce checks, counted). */
interface OnceCheck {
  action_events: number;
  duplicate_actions: number;
  duplicate_accepts: number;
  duplicate_results: number;
  tool_calls: number;
  tool_calls_without_one_outcome: number;
  outcomes_without_call: number;
  approved_review: boolean;
  report_to_person: boolean;
}

function onceCheck(events: StoredEvent[]): OnceCheck {
  const actionKey = (e: StoredEvent) => {
    const a = e.meta?.agent as { instance_id: string; step: number; call_id?: string } | undefined;
    return a ? `${e.type}|${a.instance_id}|${a.step}|${a.call_id ?? ""}` : null;
  };
  const keys = events.map(actionKey).filter((k): k is string => Boolean(k));
  const dup = (xs: string[]) => xs.length - new Set(xs).size;
  const calls = events.filter((e) => e.type === "tool.call").map((e) => String(e.payload.call_id));
  const outcomes = events.filter((e) => e.type === "tool.result" || e.type === "tool.error").map((e) => String(e.payload.call_id));
  const count = new Map<string, number>();
  for (const o of outcomes) count.set(o, (count.get(o) ?? 0) + 1);
  const callSet = new Set(calls);
  return {
    action_events: keys.length,
    duplicate_actions: dup(keys),
    duplicate_accepts: dup(events.filter((e) => e.type === "task.accept").map((e) => e.task_id)),
    duplicate_results: dup(events.filter((e) => e.type === "task.result").map((e) => e.task_id)),
    tool_calls: calls.length,
    tool_calls_without_one_outcome: dup(calls) + calls.filter((c) => count.get(c) !== 1).length,
    outcomes_without_call: outcomes.filter((o) => !callSet.has(o)).length,
    approved_review: events.some((e) => e.type === "task.result" && e.payload_type === "review.feedback.v1" && e.payload.decision === "approved"),
    report_to_person: events.some((e) => e.type === "chat.message" && e.from.agent_id === "agent:pm-1" && e.to[0]?.agent_id === "user" && /Q4 2017/.test(String(e.payload.text))),
  };
}

// ---------------------------------------------------------------------------------------------
// One scenario

interface ScenarioResult {
  scenario: string;
  nodes: { name: string; agents: string | null; pid: number; model_calls_stdout: number; turns: number; cpu_s: number | null; cpu_workload_s: number | null; warnings: number; killed: boolean; stopped_cleanly: boolean | null }[];
  runs: number;
  runs_succeeded: number;
  /** Runs that did not end `succeeded` with their 3 tasks done. */
  runs_failed: { run_id: string; state: string; task_total: number; task_done: number }[];
  /** First request posted → the last run's `ended_at`. */
  wall_ms: number;
  /** First request posted → the bench saw every run ended. */
  wall_seen_ms: number;
  run_ms: Dist;
  answer_wait_ms: Dist;
  model_calls: number;
  model_calls_per_run: number;
  model_calls_by_node: Record<string, number>;
  share_by_node: Record<string, number>;
  turns_by_node: Record<string, number>;
  /** Model calls × latency ÷ (wall × nodes × concurrency): how busy the slots were with the model alone. */
  model_slot_use: number;
  /** Σ turn durations ÷ (wall × nodes × concurrency). */
  turn_slot_use: number;
  /** A queued turn's wait until a node began it: from its first wake after the instance's turn before began, or that turn's end when later. */
  queue_wait_ms: Dist;
  /**
   * Where a run's time went, mean ms per run: `run` = model (calls × latency) + turn_other (the
   * rest of its turns) + queued (its turns waiting to be taken) + answer (pm-1's question waiting
   * for Dana) + rest (between turns otherwise: the leader reacting to events).
   */
  run_breakdown_ms: { run: number; model: number; turn_other: number; queued: number; answer: number; rest: number };
  /** A turn's time besides its model calls (turn − calls × latency), ms: all, begun in the first 20 s, later, by agent, by node; and model calls a turn. */
  turn_other_ms: { all: Dist; early: Dist; later: Dist; by_agent: Record<string, Dist>; by_node: Record<string, Dist>; calls_per_turn: Dist };
  /** Slot-seconds left idle while some turn waited to be taken (the queue's pickup delay, deployment-wide). */
  idle_slot_s_while_queued: number;
  /** Model calls begun (the nodes' "model call" lines): more than `model_calls` when a killed node's calls were lost. */
  model_calls_made: number;
  /** The model's latency alone over every slot: model calls × latency ÷ (nodes × concurrency), the wall time's floor. */
  slot_bound_ms: number;
  /** How many turns ran at once, deployment-wide, sampled every 100 ms from the first request to the last run's end. */
  turns_at_once: { mean: number; max: number; per_node_mean: Record<string, number> };
  mcp_servers: { label: string; cpu_s: number | null }[];
  bench_cpu_s: number;
  once: { runs_checked: number; duplicate_actions: number; duplicate_accepts: number; duplicate_results: number; tool_calls: number; tool_calls_without_one_outcome: number; outcomes_without_call: number; runs_without_approved_review: number; runs_without_report: number; action_events: number };
  /** Processes of the scenario left once its nodes were stopped (and, after a kill, the killed node's). */
  orphans: { count: number; processes: string[]; killed_node_children: number; killed_node_children_left: number; killed_node_children_left_at_stop: string[] };
  kill?: {
    node: string;
    at_ms: number;
    model_calls_done: number;
    model_calls_expected: number;
    /** The killed node's turns in hand (begun, not ended) when it was killed. */
    turns_in_flight: string[];
    /** When each of them began again on another node, ms after the kill (null: never). */
    resumed_after_ms: Record<string, number | null>;
    /** When the killed node's MCP servers had all exited, ms after the kill (null: not while the runs went on). */
    mcp_servers_gone_after_ms?: number | null;
    /** Sweeps that unlocked a gone node's turns, ms after the kill. */
    sweeps_after_ms?: { node: string; start: number; end: number; workers: number }[];
    /** The node that took the lead over, and when (a killed leader). */
    new_leader?: { node: string; after_ms: number } | null;
    /** Wakes of the killed node's turns in hand since the kill, ms after it. */
    wakes_of_turns_in_flight_after_ms?: Record<string, number[]>;
    /** Turns queued in the 10 s after the kill (a new leader's recovery wakes every unfinished task). */
    wakes_after_kill_10s?: number;
    /** The turns begun in the 15 s after the kill (first 40): "start end node key model-calls", ms after the kill. */
    turns_begun_after_kill?: string[];
    leader_was: string;
  };
  load: { start: number[]; end: number[]; mean_1min: number };
}

async function scenario(name: "one" | "three" | "kill", db: BenchDatabase, observer: Clutch, pool: pg.Pool, nodeCount: number, expectedCallsPerRun: number): Promise<ScenarioResult> {
  const ws = scratchWorkspace(name);
  marks.push(ws.mark);
  const deployment = `bench.cluster.${name}.${Date.now().toString(36)}`;
  const loadStart = load();
  console.log(`\n${name}: ${nodeCount} node${nodeCount > 1 ? "s" : ""}, concurrency ${CONCURRENCY} each, model latency ${LATENCY_MS} ms, ${RUNS} runs; load ${loadStart.join(" ")}`);
  const nodes: Node[] = [];
  const benchCpu0 = process.cpuUsage();
  try {
    for (let i = 0; i < nodeCount; i++) {
      const n = new Node(`node-${i}`, ws, deployment, db.url);
      started.push(n);
      nodes.push(n);
      await n.ready; // one at a time: node-0 leads
    }
    const leader = nodes.find((n) => n.agents === "here");
    console.log(`  nodes ready: ${nodes.map((n) => `${n.name} ${n.agents} (pid ${n.pid})`).join(", ")}`);
    const thread_id = (await observer.store.queries.threadByName(ws.channel))?.id;
    if (!thread_id) throw new Error(`no channel ${ws.channel}`);
    const reader = new ThreadReader(observer, thread_id);
    await reader.read();

    // Load while it runs, every 5 s.
    const loadSamples: number[] = [];
    const loadTimer = setInterval(() => loadSamples.push(os.loadavg()[0]!), 5000);
    // CPU of the MCP servers, sampled until they go (a killed node's included).
    const mcpCpu = new Map<number, { label: string; cpu_s: number | null }>();
    const sampleMcp = () => {
      for (const p of processesOf(ws.mark)) {
        if (nodes.some((n) => n.pid === p.pid)) continue;
        const cpu = cpuSeconds(p.pid);
        const prev = mcpCpu.get(p.pid);
        mcpCpu.set(p.pid, { label: prev?.label ?? procLabel(p, nodes), cpu_s: cpu ?? prev?.cpu_s ?? null });
      }
    };
    const mcpTimer = setInterval(sampleMcp, 2000);

    const cpuAtStart = new Map(nodes.map((n) => [n.name, cpuSeconds(n.pid)]));
    const t0 = wallNow();
    await Promise.all(
      Array.from({ length: RUNS }, async (_, i) => observer.store.append(await personMessage(observer.store.queries, thread_id, { text: `${REQUEST} (${i + 1})` }, DANA))),
    );
    console.log(`  ${RUNS} requests posted in ${wallNow() - t0} ms`);

    const answered = new Map<string, number>(); // question id → answered at
    const asked = new Map<string, { run_id: string; at: number }>();
    const ended = new Map<string, RunOutcome>();
    let kill: ScenarioResult["kill"];
    let killedChildren: Proc[] = [];
    let killedGoneAt: number | null = null;
    let victimCpu: number | null = null;
    const deadline = t0 + TIMEOUT_S * 1000;
    let lastReport = t0;
    for (;;) {
      const events = await reader.read();
      for (const q of indexQuestions(events).openToPeople) {
        if (!asked.has(q.id)) {
          const ts = events.find((e) => e.id === q.id)?.ts;
          asked.set(q.id, { run_id: q.run_id, at: ts ? Date.parse(ts) : wallNow() });
        }
        if (answered.has(q.id)) continue;
        answered.set(q.id, wallNow());
        await observer.store.append(await personMessage(observer.store.queries, thread_id, { text: "Regional breakdown by major market", reply_to: q.id }, DANA));
      }
      const runs = runsOf(events);
      const open = runs.filter((id) => !ended.has(id));
      // One statement for the runs' rows (store.queries.run per run, 36 of them every 200 ms, cost the bench more CPU than the nodes).
      const rows = open.length
        ? (await pool.query<{ id: string; state: string; task_total: number; task_done: number; started_at: Date; ended_at: Date | null }>("SELECT id, state, task_total, task_done, started_at, ended_at FROM runs WHERE id = ANY($1::text[]) AND state <> 'running'", [open])).rows
        : [];
      for (const row of rows) {
        const q = [...asked.entries()].find(([, a]) => a.run_id === row.id);
        ended.set(row.id, {
          run_id: row.id,
          state: row.state,
          task_total: row.task_total,
          task_done: row.task_done,
          started_ms: row.started_at.getTime(),
          ended_ms: row.ended_at?.getTime() ?? null,
          answer_wait_ms: q ? answered.get(q[0])! - q[1].at : null,
          asked_ms: q ? q[1].at : null,
          answered_ms: q ? answered.get(q[0])! : null,
        });
      }
      const usage = events.filter((e) => e.type === "model.usage").length;
      if (name === "kill" && !kill) {
        const expected = Math.round(RUNS * expectedCallsPerRun);
        if (usage >= KILL_AT * expected) {
          const victim = nodes[KILL_NODE] ?? nodes[1]!;
          killedChildren = processesOf(ws.mark).filter((p) => p.ppid === victim.pid);
          const inFlight = [...victim.inFlight.keys()];
          victimCpu = cpuSeconds(victim.pid);
          const at = wallNow();
          victim.child.kill("SIGKILL");
          await victim.exited;
          kill = { node: victim.name, at_ms: at - t0, model_calls_done: usage, model_calls_expected: expected, turns_in_flight: inFlight, resumed_after_ms: {}, leader_was: leader?.name ?? "?" };
          console.log(
            `  killed ${victim.name} (SIGKILL, ${victim.agents}) at ${s1(at - t0)}: ${usage} of ~${expected} model calls done, ${inFlight.length} turn${inFlight.length === 1 ? "" : "s"} in its hands, ${killedChildren.length} MCP server${killedChildren.length === 1 ? "" : "s"} under it`,
          );
        }
      }
      if (kill && killedGoneAt === null && killedChildren.every((c) => !fs.existsSync(`/proc/${c.pid}`) || isZombie(c.pid))) killedGoneAt = wallNow();
      if (wallNow() - lastReport > 15_000) {
        lastReport = wallNow();
        console.log(`  ${s1(lastReport - t0)}: ${runs.length} runs, ${ended.size} ended, ${answered.size} answered, ${usage} model calls; nodes ${nodes.map((n) => `${n.name} ${n.modelCalls}`).join(", ")}; load ${load()[0]}`);
      }
      if (runs.length >= RUNS && ended.size >= runs.length) break;
      if (wallNow() > deadline) throw new Error(`${name}: runs not finished after ${TIMEOUT_S} s: ${runs.length} runs, ${ended.size} ended`);
      await sleep(200);
    }
    const seen = wallNow();
    clearInterval(loadTimer);
    clearInterval(mcpTimer);
    sampleMcp();

    // Figures, before the nodes stop.
    const events = await observer.store.readAll({ thread_id });
    const outcomes = [...ended.values()];
    const lastEnd = Math.max(...outcomes.map((o) => o.ended_ms ?? seen));
    const wall = lastEnd - t0;
    const byNode: Record<string, number> = {};
    for (const e of events) {
      const node = e.meta?.node;
      if (e.type === "model.usage" && typeof node === "string") byNode[node] = (byNode[node] ?? 0) + 1;
    }
    const calls = Object.values(byNode).reduce((a, b) => a + b, 0);
    const share = Object.fromEntries(nodes.map((n) => [n.name, calls ? (byNode[n.name] ?? 0) / calls : 0]));
    const turns = nodes.flatMap((n) => n.turns);
    const turnsByNode = Object.fromEntries(nodes.map((n) => [n.name, n.turns.length]));
    const slots = wall * nodeCount * CONCURRENCY;
    const wakes = nodes.flatMap((n) => n.wakes).sort((a, b) => a.at - b.at);
    const byKey = new Map<string, Turn[]>();
    for (const t of [...turns].sort((a, b) => a.start - b.start)) byKey.set(t.key, [...(byKey.get(t.key) ?? []), t]);
    // When each turn was queued: its instance's first wake after the instance's turn before began,
    // or that turn's end when the wake came while it ran (the queue runs an instance's jobs one at a time).
    const queuedOfTurn = new Map<Turn, number>();
    for (const [key, ts] of byKey) {
      let prevStart = -Infinity;
      let prevEnd = -Infinity;
      for (const t of ts) {
        const w = wakes.find((x) => x.key === key && x.at > prevStart && x.at <= t.start);
        if (w) queuedOfTurn.set(t, Math.max(w.at, prevEnd));
        prevStart = t.start;
        prevEnd = t.end;
      }
    }
    const waits = [...queuedOfTurn].map(([t, from]) => t.start - from);
    // Where a run's time goes: in its turns (the model's latency, the rest of the turn: tools,
    // appends, rebuilding the conversation) or between them (a turn queued and not yet taken, pm-1's
    // question waiting for Dana, and the rest: the leader's orchestrator reacting to an event).
    const runOfTask = new Map<string, string>();
    for (const e of events) if (e.task_id && !runOfTask.has(e.task_id)) runOfTask.set(e.task_id, e.run_id);
    const usageOfRun = new Map<string, number>();
    for (const e of events) if (e.type === "model.usage") usageOfRun.set(e.run_id, (usageOfRun.get(e.run_id) ?? 0) + 1);
    // On a 10 ms timeline of each run, each moment counts once, in this order: a turn of the run
    // runs; a turn of the run is queued; pm-1's question waits for Dana; otherwise "rest".
    const parts = { run: [] as number[], model: [] as number[], turn_other: [] as number[], queued: [] as number[], answer: [] as number[], rest: [] as number[] };
    for (const o of outcomes) {
      const end = o.ended_ms ?? seen;
      const mine = turns.filter((t) => runOfTask.get(t.key.slice(t.key.indexOf("/") + 1)) === o.run_id);
      const queuedSpans = mine.flatMap((t) => (queuedOfTurn.has(t) ? [[queuedOfTurn.get(t)!, t.start] as const] : []));
      let inTurns = 0;
      let queued = 0;
      let answer = 0;
      let rest = 0;
      for (let t = o.started_ms; t < end; t += 10) {
        if (mine.some((x) => x.start <= t && t < x.end)) inTurns += 10;
        else if (queuedSpans.some(([a, b]) => a <= t && t < b)) queued += 10;
        else if (o.asked_ms !== null && o.answered_ms !== null && o.asked_ms <= t && t < o.answered_ms) answer += 10;
        else rest += 10;
      }
      const model = (usageOfRun.get(o.run_id) ?? 0) * LATENCY_MS;
      parts.run.push(end - o.started_ms);
      parts.model.push(model);
      parts.turn_other.push(inTurns - model);
      parts.queued.push(queued);
      parts.answer.push(answer);
      parts.rest.push(rest);
    }
    const breakdown = Object.fromEntries(Object.entries(parts).map(([k, v]) => [k, Math.round(v.reduce((a, b) => a + b, 0) / Math.max(1, v.length))])) as Record<keyof typeof parts, number>;
    // Slots left idle while some turn of the deployment waited to be taken (sampled every 100 ms).
    let idleWhileQueued = 0;
    const allQueued = turns.flatMap((t) => (queuedOfTurn.has(t) ? [[queuedOfTurn.get(t)!, t.start] as const] : []));
    const samples: number[] = [];
    const perNode: Record<string, number[]> = Object.fromEntries(nodes.map((n) => [n.name, []]));
    for (let t = t0; t <= lastEnd; t += 100) {
      let all = 0;
      for (const n of nodes) {
        const k = n.turns.filter((x) => x.start <= t && x.end > t).length;
        perNode[n.name]!.push(k);
        all += k;
      }
      samples.push(all);
      const waiting = allQueued.filter(([a, b]) => a <= t && t < b).length;
      const capacity = nodes.filter((n) => !(kill && kill.node === n.name && t >= t0 + kill.at_ms)).length * CONCURRENCY;
      idleWhileQueued += Math.max(0, Math.min(waiting, capacity - all)) * 100;
    }
    // A turn's time besides its model calls (tool calls and the MCP servers they start, appends,
    // reading the run, rebuilding the conversation), by agent, and early (the turns begun in the
    // first 20 s, when each node starts its MCP servers) against the rest.
    const other = (t: Turn) => t.end - t.start - t.model_calls * LATENCY_MS;
    const agentOf = (t: Turn) => t.key.slice(0, t.key.indexOf("/")).replace(/^agent:/, "");
    const turnOther = {
      all: summarize(turns.map(other)),
      early: summarize(turns.filter((t) => t.start < t0 + 20_000).map(other)),
      later: summarize(turns.filter((t) => t.start >= t0 + 20_000).map(other)),
      by_agent: Object.fromEntries([...new Set(turns.map(agentOf))].sort().map((a) => [a, summarize(turns.filter((t) => agentOf(t) === a).map(other))])),
      by_node: Object.fromEntries(nodes.map((n) => [n.name, summarize(n.turns.map(other))])),
      calls_per_turn: summarize(turns.map((t) => t.model_calls)),
    };
    const mean = (xs: number[]) => (xs.length ? Math.round((xs.reduce((a, b) => a + b, 0) / xs.length) * 100) / 100 : 0);
    const cpu = new Map(nodes.map((n) => [n.name, kill?.node === n.name ? victimCpu : cpuSeconds(n.pid)]));

    const once = { runs_checked: 0, duplicate_actions: 0, duplicate_accepts: 0, duplicate_results: 0, tool_calls: 0, tool_calls_without_one_outcome: 0, outcomes_without_call: 0, runs_without_approved_review: 0, runs_without_report: 0, action_events: 0 };
    for (const o of outcomes) {
      const c = onceCheck(events.filter((e) => e.run_id === o.run_id));
      once.runs_checked++;
      once.action_events += c.action_events;
      once.duplicate_actions += c.duplicate_actions;
      once.duplicate_accepts += c.duplicate_accepts;
      once.duplicate_results += c.duplicate_results;
      once.tool_calls += c.tool_calls;
      once.tool_calls_without_one_outcome += c.tool_calls_without_one_outcome;
      once.outcomes_without_call += c.outcomes_without_call;
      if (!c.approved_review) once.runs_without_approved_review++;
      if (!c.report_to_person) once.runs_without_report++;
    }
    if (kill) {
      // When each turn the killed node held began again on another node.
      const killAt = t0 + kill.at_ms;
      for (const key of kill.turns_in_flight) {
        const next = turns.filter((t) => t.key === key && t.node !== kill!.node && t.start >= killAt).sort((a, b) => a.start - b.start)[0];
        kill.resumed_after_ms[key] = next ? next.start - killAt : null;
      }
      kill.mcp_servers_gone_after_ms = killedGoneAt === null ? null : killedGoneAt - killAt;
      // What happened to those turns: the sweeps that freed them, a new leader, their wakes since.
      kill.sweeps_after_ms = nodes.flatMap((n) => n.sweeps.filter((x) => x.end >= killAt).map((x) => ({ node: n.name, start: x.start - killAt, end: x.end - killAt, workers: x.workers })));
      const next = nodes.find((n) => n.leadingAt !== null && n.leadingAt >= killAt);
      kill.new_leader = next ? { node: next.name, after_ms: next.leadingAt! - killAt } : null;
      kill.wakes_of_turns_in_flight_after_ms = Object.fromEntries(kill.turns_in_flight.map((key) => [key, wakes.filter((w) => w.key === key && w.at >= killAt).map((w) => w.at - killAt)]));
      kill.wakes_after_kill_10s = wakes.filter((w) => w.at >= killAt && w.at < killAt + 10_000).length;
      kill.turns_begun_after_kill = turns.filter((t) => t.start >= killAt && t.start < killAt + 15_000).sort((a, b) => a.start - b.start).slice(0, 40).map((t) => `${t.start - killAt} ${t.end - killAt} ${t.node} ${t.key} ${t.model_calls}`);
    }

    // Stop the nodes that live, then look for what is left of the scenario.
    const stoppedCleanly = new Map<string, boolean>();
    for (const n of nodes) if (n.alive) stoppedCleanly.set(n.name, await n.stop());
    await sleep(1500); // an MCP server's own shutdown grace is 1 s
    const left = processesOf(ws.mark, ws.dir);
    const killedLeft = killedChildren.filter((c) => left.some((p) => p.pid === c.pid));
    const orphans = {
      count: left.length,
      processes: left.map((p) => `${p.pid} ppid ${p.ppid} ${procLabel(p, nodes)}: ${p.args.slice(0, 160)}`),
      killed_node_children: killedChildren.length,
      killed_node_children_left: killedLeft.length,
      killed_node_children_left_at_stop: killedLeft.map((p) => `${p.pid} ${p.args.slice(0, 160)}`),
    };
    for (const p of left) {
      try {
        process.kill(p.pid, "SIGKILL"); // left by the scenario: counted above, cleaned here
      } catch {
        // gone
      }
    }

    const benchCpu = process.cpuUsage(benchCpu0);
    const result: ScenarioResult = {
      scenario: name,
      nodes: nodes.map((n) => ({
        name: n.name,
        agents: n.agents,
        pid: n.pid,
        model_calls_stdout: n.modelCalls,
        turns: n.turns.length,
        cpu_s: cpu.get(n.name) ?? null,
        cpu_workload_s: cpu.get(n.name) != null && cpuAtStart.get(n.name) != null ? Math.round((cpu.get(n.name)! - cpuAtStart.get(n.name)!) * 100) / 100 : null,
        warnings: n.warnings,
        killed: kill?.node === n.name,
        stopped_cleanly: stoppedCleanly.get(n.name) ?? null,
      })),
      runs: outcomes.length,
      runs_succeeded: outcomes.filter((o) => o.state === "succeeded" && o.task_total === 3 && o.task_done === 3).length,
      runs_failed: outcomes.filter((o) => !(o.state === "succeeded" && o.task_total === 3 && o.task_done === 3)).map((o) => ({ run_id: o.run_id, state: o.state, task_total: o.task_total, task_done: o.task_done })),
      wall_ms: wall,
      wall_seen_ms: seen - t0,
      run_ms: summarize(outcomes.map((o) => (o.ended_ms ?? seen) - o.started_ms)),
      answer_wait_ms: summarize(outcomes.map((o) => o.answer_wait_ms).filter((x): x is number => x !== null)),
      model_calls: calls,
      model_calls_per_run: Math.round((calls / Math.max(1, outcomes.length)) * 100) / 100,
      model_calls_by_node: byNode,
      share_by_node: share,
      turns_by_node: turnsByNode,
      model_slot_use: Math.round(((calls * LATENCY_MS) / slots) * 1000) / 1000,
      turn_slot_use: Math.round((turns.reduce((a, t) => a + (Math.min(t.end, lastEnd) - Math.max(t.start, t0)), 0) / slots) * 1000) / 1000,
      queue_wait_ms: summarize(waits),
      run_breakdown_ms: breakdown,
      turn_other_ms: turnOther,
      idle_slot_s_while_queued: Math.round(idleWhileQueued / 100) / 10,
      model_calls_made: nodes.reduce((a, n) => a + n.modelCalls, 0),
      slot_bound_ms: Math.round((calls * LATENCY_MS) / (nodeCount * CONCURRENCY)),
      turns_at_once: { mean: mean(samples), max: Math.max(0, ...samples), per_node_mean: Object.fromEntries(Object.entries(perNode).map(([k, v]) => [k, mean(v)])) },
      mcp_servers: [...mcpCpu.values()],
      bench_cpu_s: Math.round(((benchCpu.user + benchCpu.system) / 1e6) * 100) / 100,
      once,
      orphans,
      ...(kill ? { kill } : {}),
      load: { start: loadStart, end: load(), mean_1min: Math.round(mean(loadSamples) * 100) / 100 },
    };
    printScenario(result);
    return result;
  } finally {
    for (const n of nodes) if (n.alive) n.child.kill("SIGKILL");
    await Promise.all(nodes.map((n) => n.exited));
    fs.rmSync(ws.dir, { recursive: true, force: true });
  }
}

function printScenario(r: ScenarioResult): void {
  console.log(`  wall ${s1(r.wall_ms)} (first request → last run's end; seen at ${s1(r.wall_seen_ms)}); runs succeeded ${r.runs_succeeded}/${r.runs}`);
  console.log(`  run: p50 ${s1(r.run_ms.p50)}, max ${s1(r.run_ms.max)}; Dana's answer waited p50 ${r.answer_wait_ms.p50} ms, max ${r.answer_wait_ms.max} ms`);
  console.log(`  model calls ${r.model_calls} (${r.model_calls_per_run} a run): ${Object.entries(r.model_calls_by_node).map(([k, v]) => `${k} ${v} (${pct(r.share_by_node[k] ?? 0)})`).join(", ")}`);
  console.log(`  turns ${Object.entries(r.turns_by_node).map(([k, v]) => `${k} ${v}`).join(", ")}; turns at once: mean ${r.turns_at_once.mean}, max ${r.turns_at_once.max} (${Object.entries(r.turns_at_once.per_node_mean).map(([k, v]) => `${k} ${v}`).join(", ")})`);
  console.log(`  slots in use: model ${pct(r.model_slot_use)}, turns ${pct(r.turn_slot_use)}; a queued turn waited p50 ${r.queue_wait_ms.p50} ms, p95 ${r.queue_wait_ms.p95} ms, max ${r.queue_wait_ms.max} ms (n=${r.queue_wait_ms.n})`);
  console.log(`  floor (the model's latency alone over ${r.nodes.length * CONCURRENCY} slots): ${s1(r.slot_bound_ms)}, wall ÷ floor ${(r.wall_ms / r.slot_bound_ms).toFixed(2)}; model calls begun ${r.model_calls_made}, recorded ${r.model_calls}; slot-seconds idle while a turn waited ${r.idle_slot_s_while_queued}`);
  const to = r.turn_other_ms;
  console.log(
    `  a turn besides its model calls (${to.calls_per_turn.mean} calls a turn): mean ${to.all.mean} ms, p50 ${to.all.p50}, p95 ${to.all.p95}, max ${to.all.max}; begun in the first 20 s mean ${to.early.mean} ms (n=${to.early.n}), later ${to.later.mean} ms (n=${to.later.n}); ${Object.entries(to.by_agent).map(([a, d]) => `${a} ${d.mean}`).join(", ")}; ${Object.entries(to.by_node).map(([a, d]) => `${a} ${d.mean}`).join(", ")}`,
  );
  const b = r.run_breakdown_ms;
  console.log(`  a run's ${s1(b.run)} (mean): in its turns ${s1(b.model + b.turn_other)} (the model ${s1(b.model)}, the rest ${s1(b.turn_other)}), a turn queued ${s1(b.queued)}, Dana's answer ${s1(b.answer)}, between turns otherwise ${s1(b.rest)}`);
  console.log(`  cpu: ${r.nodes.map((n) => `${n.name} ${n.cpu_s ?? "?"} s (${n.cpu_workload_s ?? "?"} s after ready)`).join(", ")}; MCP servers ${r.mcp_servers.reduce((a, m) => a + (m.cpu_s ?? 0), 0).toFixed(1)} s (${r.mcp_servers.length}); bench ${r.bench_cpu_s} s; warnings ${r.nodes.map((n) => n.warnings).reduce((a, b) => a + b, 0)}`);
  const o = r.once;
  console.log(
    `  once: ${o.runs_checked} runs, ${o.action_events} agent actions: ${o.duplicate_actions} stored twice; accepts twice ${o.duplicate_accepts}, results twice ${o.duplicate_results}; tool calls ${o.tool_calls}, without exactly one outcome ${o.tool_calls_without_one_outcome}, outcomes without a call ${o.outcomes_without_call}; runs without the approved review ${o.runs_without_approved_review}, without the report ${o.runs_without_report}`,
  );
  if (r.kill) {
    const resumed = Object.entries(r.kill.resumed_after_ms);
    console.log(`  kill: ${r.kill.node} at ${s1(r.kill.at_ms)}; its turns in hand resumed on another node after ${resumed.map(([k, v]) => `${k.split("/")[0]} ${v === null ? "never" : s1(v)}`).join(", ") || "(none in hand)"}; its MCP servers all gone ${r.kill.mcp_servers_gone_after_ms == null ? "(not seen)" : `${s1(r.kill.mcp_servers_gone_after_ms)} after`}`);
    console.log(
      `  after the kill: sweeps ${(r.kill.sweeps_after_ms ?? []).map((x) => `${x.node} ${s1(x.start)}–${s1(x.end)} (${x.workers} workers)`).join(", ") || "none"}; ${r.kill.new_leader ? `${r.kill.new_leader.node} leads after ${s1(r.kill.new_leader.after_ms)}; ` : ""}${r.kill.wakes_after_kill_10s} turns queued in the 10 s after; wakes of its turns: ${Object.entries(r.kill.wakes_of_turns_in_flight_after_ms ?? {}).map(([k, v]) => `${k.split("/")[0]} [${v.map(s1).join(", ")}]`).join(", ")}`,
    );
  }
  console.log(`  left after stop: ${r.orphans.count} process${r.orphans.count === 1 ? "" : "es"}${r.orphans.count ? `: ${r.orphans.processes.join("; ")}` : ""}${r.kill ? `; of the killed node's ${r.orphans.killed_node_children} MCP servers, ${r.orphans.killed_node_children_left} left` : ""}`);
  console.log(`  load ${r.load.start.join(" ")} → ${r.load.end.join(" ")} (1-min mean while it ran ${r.load.mean_1min})`);
}

// ---------------------------------------------------------------------------------------------

/** Files under `roots` (relative to the repository) modified after `since` (ms), generated code left out. */
function changedSince(since: number, roots: string[]): string[] {
  const out: string[] = [];
  const walk = (rel: string) => {
    const abs = path.join(ROOT, rel);
    let st: fs.Stats;
    try {
      st = fs.statSync(abs);
    } catch {
      return;
    }
    if (st.isDirectory()) {
      if (/node_modules|generated/.test(rel)) return;
      for (const f of fs.readdirSync(abs)) walk(path.join(rel, f));
    } else if (st.mtimeMs > since) out.push(rel);
  };
  for (const r of roots) walk(r);
  return out.sort();
}

async function main() {
  log.level = process.env.LOG_LEVEL ?? "warn";
  const benchStart = Date.now();
  const startedAt = new Date().toISOString();
  const calibration = await calibrate();
  console.log(calibrationLine(calibration));
  const m0 = machine();
  console.log(`cluster: ${m0.cpus} cpus, node ${m0.node}, postgres ${m0.postgres}, load ${m0.loadavg.join(" ")}`);
  const db = await benchDatabase();
  console.log(`         database ${safeUrl(db.url)}${db.created ? " (fresh, dropped at the end)" : ""}`);
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "clutch-bench-observer-"));
  let observer: Clutch | undefined;
  const pool = new pg.Pool({ connectionString: db.url, max: 2 });
  const onSignal = () => {
    killEverything();
    process.exit(130);
  };
  process.once("SIGINT", onSignal);
  process.once("SIGTERM", onSignal);
  try {
    observer = await createClutch({ databaseUrl: db.url, dataDir, workspaceDir: null, deployment: "bench.observer", migrate: false, traces: false });
    const results: Partial<Record<"one" | "three" | "kill", ScenarioResult>> = {};
    let perRun = CALLS_PER_RUN;
    if (SECTIONS.includes("one")) {
      results.one = await scenario("one", db, observer, pool, 1, perRun || 27);
      perRun ||= results.one.model_calls_per_run;
    }
    if (SECTIONS.includes("three")) {
      results.three = await scenario("three", db, observer, pool, NODES, perRun || 27);
      perRun ||= results.three.model_calls_per_run;
    }
    if (SECTIONS.includes("kill")) results.kill = await scenario("kill", db, observer, pool, NODES, perRun || 27);

    // Figures beside their targets.
    const summary: { figure: string; measured: string; target: string; met: boolean | null }[] = [];
    const { one, three, kill } = results;
    if (one) summary.push({ figure: "one: wall (1 node)", measured: s1(one.wall_ms), target: "(the reference)", met: null });
    if (three) summary.push({ figure: `three: wall (${NODES} nodes)`, measured: s1(three.wall_ms), target: "(compared below)", met: null });
    if (one && three) {
      const ratio = three.wall_ms / one.wall_ms;
      summary.push({ figure: "three ÷ one", measured: ratio.toFixed(3), target: `≤ ${TARGET.ratio}`, met: ratio <= TARGET.ratio });
    }
    if (three) {
      for (const n of three.nodes) summary.push({ figure: `three: ${n.name}'s share of model calls`, measured: pct(three.share_by_node[n.name] ?? 0), target: `≥ ${pct(TARGET.share)}`, met: (three.share_by_node[n.name] ?? 0) >= TARGET.share });
    }
    for (const r of [one, three, kill]) {
      if (!r) continue;
      const o = r.once;
      const bad = o.duplicate_actions + o.duplicate_accepts + o.duplicate_results + o.tool_calls_without_one_outcome + o.outcomes_without_call + o.runs_without_approved_review + o.runs_without_report;
      summary.push({ figure: `${r.scenario}: runs succeeded`, measured: `${r.runs_succeeded}/${RUNS}`, target: `${RUNS}/${RUNS}`, met: r.runs_succeeded === RUNS });
      summary.push({ figure: `${r.scenario}: once (actions, accepts, results, tool outcomes twice or missing)`, measured: String(bad), target: "0", met: bad === 0 });
      summary.push({ figure: `${r.scenario}: processes left after stop`, measured: String(r.orphans.count), target: "0", met: r.orphans.count === TARGET.orphans });
    }
    if (kill?.kill) {
      const resumed = Object.values(kill.kill.resumed_after_ms);
      const worst = resumed.some((v) => v === null) ? Infinity : Math.max(0, ...resumed.map(Number));
      summary.push({ figure: "kill: killed node's turns resumed by the others", measured: resumed.length ? (worst === Infinity ? "not all" : `all, within ${s1(worst)}`) : "none in hand", target: "all (≤ ~4 s + a turn's wait)", met: worst !== Infinity });
      summary.push({ figure: "kill: killed node's MCP servers left", measured: `${kill.orphans.killed_node_children_left} of ${kill.orphans.killed_node_children}`, target: "0", met: kill.orphans.killed_node_children_left === 0 });
    }
    const w = Math.max(...summary.map((r) => r.figure.length));
    const wm = Math.max(...summary.map((r) => r.measured.length));
    console.log(`\nsummary: calibration ${calibration.seconds.toFixed(1)} s; load ${m0.loadavg.join(" ")} at the start, ${load().join(" ")} at the end`);
    for (const r of summary) console.log(`         ${r.figure.padEnd(w)}  ${r.measured.padEnd(wm)}  target ${r.target}${r.met === null ? "" : `: ${met(r.met)}`}`);

    // Other work shares this tree: code changed while the bench ran is named with the figures.
    const changed = changedSince(benchStart, ["server", "lib", "prisma", "examples/sales-analysis", "bench/_cluster-node.ts"]);
    if (changed.length) console.log(`note: ${changed.length} file${changed.length === 1 ? "" : "s"} of the code under test changed while the bench ran: ${changed.slice(0, 12).join(", ")}${changed.length > 12 ? ", …" : ""}`);
    const file = writeResults(NAME, {
      bench: "cluster",
      started_at: startedAt,
      finished_at: new Date().toISOString(),
      calibration,
      machine: { ...m0, loadavg_start: m0.loadavg, loadavg_end: load() },
      options: { runs: RUNS, latency_ms: LATENCY_MS, concurrency: CONCURRENCY, nodes: NODES, sections: SECTIONS, kill_node: KILL_NODE, kill_at: KILL_AT, calls_per_run: perRun },
      targets: TARGET,
      code_changed_during_run: changed,
      summary,
      ...results,
    });
    console.log(`results: ${path.relative(process.cwd(), file)}`);
    if (summary.some((r) => r.met === false)) process.exitCode = 1;
  } finally {
    killEverything();
    await observer?.stop().catch(() => undefined);
    await pool.end().catch(() => undefined);
    await db.drop();
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}

await main();
