/**
 * Ingest benchmark: events/s through the real append path (validate, dedupe, seq, insert,
 * projections, commit, publish to the tail), for several batch sizes and numbers of
 * concurrent writers, (a) in-process via `clutch.store.append(batch)` and (b) over HTTP
 * `POST /api/events`.
 *
 *   node --import tsx bench/ingest.ts [options]
 *
 * Options (or env BENCH_<NAME>):
 *   --events=100000        events per configuration (stops earlier at --cap)
 *   --cap=15               seconds per configuration at most
 *   --batches=1,10,100,1000
 *   --writers=1,4,16       concurrent writers (each awaits its append before the next; over HTTP
 *                          a run's events are stored in order: a writer waits, untimed, for the
 *                          run's earlier events another writer is sending)
 *   --modes=inproc,http
 *   --http=auto|server|handler   server: spawn `server.ts` (needs `next build`); handler: a
 *                          minimal node:http server mounting app/api/events/route.ts POST;
 *                          auto: server when .next/BUILD_ID exists, else handler
 *   --threads=8            channels the events are spread over
 *   --profile              time the append transactions (bench/_txprofile.ts), in-process only
 *   --server-cpu-prof      HTTP: run the server with `node --cpu-prof` (profiles in
 *                          bench/results/cpu/; summarise with bench/_cpuprofile.ts)
 *   --nodes=1              HTTP: start this many server processes on the one database, as
 *                          several nodes of one deployment on one machine (docs/deploy.md
 *                          "Several nodes on one PostgreSQL"; ports --port, --port+1, …); a
 *                          request goes to the node of its (first) run, so a run's events, which
 *                          concurrent writers may send at once, are ordered on one node as with
 *                          one (a task.accept committed before its task.request is refused)
 *   --probe=1              after each mode's matrix, batch 1 × 1 writer for 5 s again on the
 *                          grown log (0 to skip)
 *   --paced=200            after each mode's matrix, single-event appends at this rate for 10 s:
 *                          the latency one agent's event sees (0 to skip)
 *   --anchor=8             seconds of raw COPY of the same rows (bench/_copy-anchor.ts) at the
 *                          start; every figure is also printed as a ratio to it (0 to skip)
 *   --insert-anchor=8      seconds of the same rows INSERTed one per statement (autocommit) by
 *                          --insert-connections=16 pg connections at once; the single-event
 *                          figures (batch 1) are also printed as a ratio to it (0 to skip)
 *   --name=ingest          results go to bench/results/<name>.json
 *
 * The first line is the machine's calibration (bench/_lib.ts `calibrate`) and load; both are in
 * the results JSON.
 *
 * Database: BENCH_DATABASE_URL, or for each mode a fresh `clutch_bench_<ts>` created on the
 * local PostgreSQL, migrated, and dropped after that mode. The event log grows from one
 * configuration to the next (it is append-only); each row gives the log size it started at.
 */
import { spawn, type ChildProcess } from "node:child_process";
import fs from "node:fs";
import http from "node:http";
import path from "node:path";
import type { ClutchMessage } from "@/lib/protocol";
import { createClutch, type Clutch } from "@/server/clutch";
import { appendsOf, databaseOf } from "@/server/events/testing";
import { arg, benchDatabase, calibrate, calibrationLine, createThreads, flag, gitState, listArg, load, machine, numArg, ROOT, safeUrl, sleep, summarize, Workload, writeResults, type Dist } from "./_lib";
import { profileTransactions, type TxProfile } from "./_txprofile";
import { measureRawCopy, measureRawInsert, type CopyAnchor, type InsertAnchor } from "./_copy-anchor";

const EVENTS = numArg("events", 100_000);
const CAP_S = numArg("cap", 15);
const BATCHES = listArg("batches", "1,10,100,1000").map(Number);
const WRITERS = listArg("writers", "1,4,16").map(Number);
const MODES = listArg("modes", "inproc,http");
const HTTP_KIND = arg("http", "auto");
const THREADS = numArg("threads", 8);
const PROFILE = flag("profile");
const SERVER_CPU_PROF = flag("server-cpu-prof");
const NAME = arg("name", "ingest");
const PROBE = arg("probe", "1") !== "0";
const PACED = numArg("paced", 200);
const ANCHOR_S = numArg("anchor", 8);
const INSERT_ANCHOR_S = numArg("insert-anchor", 8);
const INSERT_CONNECTIONS = numArg("insert-connections", 16);
const NODES = numArg("nodes", 1);

type Append = (batch: ClutchMessage[]) => Promise<void>;

interface ConfigResult {
  mode: string;
  /** HTTP: server processes the writers were spread over. */
  nodes?: number;
  batch: number;
  writers: number;
  events: number;
  seconds: number;
  events_per_s: number;
  appends: number;
  /** Latency of one append call as its caller sees it (ms). */
  append_ms: Dist;
  /** Time spent building messages inside the timed loop (ms, whole configuration). */
  generate_ms: number;
  stopped_by: "events" | "cap";
  log_size_before: number;
  loadavg_after: number[];
  profile?: TxProfile;
  /** "log-size": batch 1 × 1 for 5 s again after the matrix, on the grown log; "paced": single events at --paced/s. */
  probe?: string;
  /** events_per_s over the raw COPY anchor's rows/s. */
  ratio_to_copy?: number;
  /** Single events (batch 1): events_per_s over the raw single-row INSERT anchor's rows/s. */
  ratio_to_insert?: number;
}

const now = () => performance.now();

/** The node (its append) for a batch: the one of its first message's run (see --nodes). */
function nodeOf(appends: Append[], batch: ClutchMessage[]): Append {
  if (appends.length === 1) return appends[0]!;
  let h = 0;
  for (const c of batch[0]!.run_id) h = (h * 31 + c.charCodeAt(0)) >>> 0;
  return appends[h % appends.length]!;
}

/**
 * Events in the bench's own channels: the server's own agents and people may write elsewhere
 * meanwhile, which is no fault of the bench's appends.
 */
async function logSize(rt: Clutch, threads: readonly string[]): Promise<number> {
  const rows = await databaseOf(rt.store).$queryRawUnsafe<{ n: bigint }[]>("SELECT count(*) AS n FROM events WHERE thread_id = ANY($1::text[])", [...threads]);
  return Number(rows[0]!.n);
}

async function runConfig(
  rt: Clutch,
  mode: string,
  appends: Append[],
  threads: string[],
  batch: number,
  writers: number,
  seed: number,
  profiler?: ReturnType<typeof profileTransactions>,
  capS = CAP_S,
): Promise<ConfigResult> {
  const before = await logSize(rt, threads);
  const wl = new Workload(threads, { seed, openRuns: Math.max(6, writers * 3) });
  let claimed = 0;
  let appended = 0;
  let generateMs = 0;
  const latencies: number[] = [];
  const t0 = now();
  const deadline = t0 + capS * 1000;
  profiler?.reset();
  // Over HTTP a run's events go in order (the API checks that a task's events come from its
  // requester or assignee in order: a task.accept stored before its task.request is refused, as
  // it would be for one agent posting out of order): a writer whose batch holds a run's next
  // events first waits, untimed, until that run's earlier ones are stored.
  const previous = new Map<string, Promise<unknown>>();
  const writer = async () => {
    while (claimed < EVENTS && now() < deadline) {
      const n = Math.min(batch, EVENTS - claimed);
      claimed += n;
      const g = now();
      const msgs = wl.batch(n);
      generateMs += now() - g;
      const runs = mode === "http" ? [...new Set(msgs.map((m) => m.run_id))] : [];
      const earlier = runs.flatMap((r) => previous.get(r) ?? []);
      let done!: () => void;
      const mine = new Promise<void>((r) => (done = r));
      for (const r of runs) previous.set(r, mine);
      try {
        if (earlier.length) await Promise.all(earlier);
        const s = now();
        await nodeOf(appends, msgs)(msgs);
        latencies.push(now() - s);
      } finally {
        done();
        for (const r of runs) if (previous.get(r) === mine) previous.delete(r);
      }
      appended += n;
    }
  };
  await Promise.all(Array.from({ length: writers }, writer));
  const elapsed = now() - t0;
  const profile = profiler?.report(elapsed);
  const after = await logSize(rt, threads);
  if (after - before !== appended) {
    throw new Error(`${mode} batch ${batch} × ${writers}: appended ${appended} but the log grew by ${after - before}`);
  }
  return {
    mode,
    batch,
    writers,
    events: appended,
    seconds: Math.round(elapsed) / 1000,
    events_per_s: Math.round((appended / elapsed) * 1000),
    appends: latencies.length,
    append_ms: summarize(latencies),
    generate_ms: Math.round(generateMs),
    stopped_by: appended >= EVENTS ? "events" : "cap",
    log_size_before: before,
    loadavg_after: load(),
    ...(profile ? { profile } : {}),
  };
}

/**
 * Single-event appends at `rate` per second for `seconds`, each started on schedule whatever the
 * others are doing (as independent agents would): the latency of one append at a steady rate.
 * Over HTTP (`ordered`) a run's events go one after the other, each sent when its schedule is due
 * and the run's previous event is stored, as one agent streaming its steps does (the API checks
 * that a task's events come from its requester or assignee in order: docs/identity.md); many runs
 * are open at once, so the rate holds. Latency is from the call. Rejects with the first failure,
 * after every append has settled.
 */
async function runPaced(rt: Clutch, mode: string, appends: Append[], threads: string[], rate: number, seconds: number, ordered = false): Promise<ConfigResult> {
  const before = await logSize(rt, threads);
  const wl = new Workload(threads, { seed: 77, openRuns: ordered ? Math.max(12, Math.ceil(rate / 10)) : 12 });
  const latencies: number[] = [];
  const inflight: Promise<void>[] = [];
  const errors: Error[] = [];
  const previous = new Map<string, Promise<void>>();
  const t0 = now();
  for (let i = 0; i < rate * seconds; i++) {
    const due = t0 + (i * 1000) / rate;
    if (due > now()) await sleep(due - now());
    const msg = wl.batch(1);
    const append = nodeOf(appends, msg);
    const send = () => {
      const s = now();
      return append(msg).then(() => void latencies.push(now() - s));
    };
    const run = msg[0]!.run_id;
    // A handler at once: a rejection must not wait for the loop to end (it would crash the bench).
    const p = (ordered && previous.has(run) ? previous.get(run)!.then(send) : send()).catch((err: Error) => void errors.push(err));
    if (ordered) previous.set(run, p);
    inflight.push(p);
  }
  await Promise.all(inflight);
  if (errors.length) throw errors[0]!;
  const elapsed = now() - t0;
  const appended = latencies.length;
  if ((await logSize(rt, threads)) - before !== appended) throw new Error(`${mode} paced: the log did not grow by ${appended}`);
  return {
    mode,
    batch: 1,
    writers: 0,
    events: appended,
    seconds: Math.round(elapsed) / 1000,
    events_per_s: Math.round((appended / elapsed) * 1000),
    appends: appended,
    append_ms: summarize(latencies),
    generate_ms: 0,
    stopped_by: "events",
    log_size_before: before,
    loadavg_after: load(),
    probe: "paced",
  };
}

// ---------------------------------------------------------------------------------------------
// HTTP target: the real server (server.ts after `next build`) or the route handler mounted on
// node:http (bench/_http-server.ts); either way its own process.

interface HttpTarget {
  kind: "next-server" | "route-handler";
  port: number;
  child: ChildProcess;
  stop(): Promise<void>;
}

async function startHttpTarget(databaseUrl: string, index = 0): Promise<HttpTarget> {
  const built = fs.existsSync(path.join(ROOT, ".next/BUILD_ID"));
  const kind = HTTP_KIND === "server" || (HTTP_KIND === "auto" && built) ? "next-server" : "route-handler";
  if (kind === "next-server" && !built) throw new Error("--http=server needs a production build: run `npx next build` first");
  const port = kind === "next-server" ? numArg("port", 3200) + index : 0;
  const script = kind === "next-server" ? "server.ts" : "bench/_http-server.ts";
  const cpuProf = SERVER_CPU_PROF ? ["--cpu-prof", `--cpu-prof-dir=${path.join(ROOT, "bench/results/cpu")}`] : [];
  const child = spawn(process.execPath, [...cpuProf, "--import", "tsx", script], {
    cwd: ROOT,
    // The bench writes far more than a person or an agent would: lift the per-principal write limits.
    // Several nodes share what docs/deploy.md says they must (the auth secret) and name themselves.
    env: {
      ...process.env,
      DATABASE_URL: databaseUrl,
      PORT: String(port),
      HOST: "127.0.0.1",
      NODE_ENV: "production",
      LOG_LEVEL: "warn",
      CLUTCH_WRITES_PER_MIN: "100000000",
      CLUTCH_AGENT_WRITES_PER_MIN: "100000000",
      ...(NODES > 1 ? { CLUTCH_AUTH_SECRET: process.env.CLUTCH_AUTH_SECRET ?? "ingest-bench-shared-secret-0123456789abcdef", CLUTCH_NODE_NAME: `bench-node-${index + 1}` } : {}),
    },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let output = "";
  child.stderr!.on("data", (d: Buffer) => (output += d.toString()));
  const exited = new Promise<void>((r) => child.once("exit", () => r()));
  const stop = async () => {
    if (child.exitCode === null) child.kill("SIGTERM");
    await Promise.race([exited, sleep(10_000)]);
    if (child.exitCode === null) child.kill("SIGKILL");
  };
  const ready = new Promise<number>((resolve, reject) => {
    child.once("exit", (code) => reject(new Error(`${script} exited (${code}) before it was ready:\n${output}`)));
    if (kind === "route-handler") {
      child.stdout!.on("data", (d: Buffer) => {
        output += d.toString();
        const m = /listening (\d+)/.exec(output);
        if (m) resolve(Number(m[1]));
      });
    } else {
      child.stdout!.on("data", (d: Buffer) => (output += d.toString()));
      const poll = async () => {
        for (let i = 0; i < 600; i++) {
          const ok = await new Promise<boolean>((r) =>
            http.get({ host: "127.0.0.1", port, path: "/api/health" }, (res) => (res.resume(), r(res.statusCode === 200))).on("error", () => r(false)),
          );
          if (ok) return resolve(port);
          await sleep(100);
        }
        reject(new Error(`server.ts did not answer /api/health in 60 s:\n${output}`));
      };
      void poll();
    }
  });
  try {
    return { kind, port: await ready, child, stop };
  } catch (err) {
    await stop();
    throw err;
  }
}

/**
 * The external agent the http mode posts as. The API accepts an event only from its key's own
 * agent, for tasks addressed to it, and never Clutch's own types (docs/identity.md), so the
 * Workload's messages are rewritten as that agent's: every participant (`from`, `to`) becomes
 * HTTP_AGENT and Clutch-only types (routing.decision, chat.system, …) go as chat.message with the
 * same payload. The rows stored, their sizes and the projections touched stay comparable.
 */
const HTTP_AGENT = "agent:bench";
const CLUTCH_ONLY = new Set(["routing.decision", "routing.failure", "policy.decision", "approval.requested", "approval.granted", "approval.rejected", "approval.expired", "audit.change", "chat.system", "task.cancel", "task.timeout"]);

function asHttpAgent(m: ClutchMessage): ClutchMessage {
  const who = { ...m.from, agent_id: HTTP_AGENT };
  const type = CLUTCH_ONLY.has(m.type) ? "chat.message" : m.type;
  const payload = type !== m.type ? { text: JSON.stringify(m.payload) } : m.type === "agent.heartbeat" ? { ...m.payload, agent_id: HTTP_AGENT } : m.payload;
  return { ...m, type, payload, from: who, to: m.to.map((p) => ({ ...p, agent_id: HTTP_AGENT })) } as ClutchMessage;
}

/**
 * POST the batch as HTTP_AGENT. A request whose kept-alive socket the server closed just as it
 * was reused (ECONNRESET before any response: the server's 5 s keep-alive timeout racing an idle
 * socket of the pool) is sent once more; the events' ids make a repeat harmless.
 */
function httpAppender(port: number, agent: http.Agent, key: string): Append {
  const post = (body: Buffer, retry: boolean): Promise<void> =>
    new Promise<void>((resolve, reject) => {
      let answered = false;
      const req = http.request(
        { host: "127.0.0.1", port, path: "/api/events", method: "POST", agent, headers: { "content-type": "application/json", "content-length": body.length, authorization: `Bearer ${key}` } },
        (res) => {
          answered = true;
          const chunks: Buffer[] = [];
          res.on("data", (c: Buffer) => chunks.push(c));
          res.on("end", () => {
            if (res.statusCode === 201) resolve();
            else reject(new Error(`POST /api/events → ${res.statusCode}: ${Buffer.concat(chunks).toString().slice(0, 500)}`));
          });
          res.on("error", reject);
        },
      );
      req.on("error", (err: NodeJS.ErrnoException) => {
        if (retry && !answered && err.code === "ECONNRESET") post(body, false).then(resolve, reject);
        else reject(err);
      });
      req.end(body);
    });
  return (batch) => {
    const mine = batch.map(asHttpAgent);
    return post(Buffer.from(JSON.stringify(mine.length === 1 ? mine[0] : mine)), true);
  };
}

// ---------------------------------------------------------------------------------------------

function printRow(r: ConfigResult) {
  if (r.probe === "paced") {
    console.log(`${(r.nodes ? `${r.mode}×${r.nodes}` : r.mode).padEnd(7)} single events at ${PACED}/s: append p50 ${r.append_ms.p50} ms p95 ${r.append_ms.p95} ms p99 ${r.append_ms.p99} ms max ${r.append_ms.max} ms (${r.events} events, log ${r.log_size_before})`);
    return;
  }
  const p = r.profile;
  const prof = p
    ? `  | lock held p50 ${p.lock_held.p50} ms, serialized ${Math.round(p.serialized_fraction * 100)}% of wall, lock wait p50 ${p.lock_wait.p50} ms`
    : "";
  console.log(
    `${(r.nodes ? `${r.mode}×${r.nodes}` : r.mode).padEnd(7)} batch ${String(r.batch).padStart(4)} × ${String(r.writers).padStart(2)} writers: ` +
      `${String(r.events_per_s).padStart(7)} events/s  (${r.events} events in ${r.seconds.toFixed(1)} s, ${r.stopped_by === "cap" ? "capped" : "done"}; ` +
      `append p50 ${r.append_ms.p50} ms p99 ${r.append_ms.p99} ms; log ${r.log_size_before})` +
      `${r.ratio_to_insert !== undefined ? `  ${r.ratio_to_insert.toFixed(2)} × raw INSERT` : r.ratio_to_copy !== undefined ? `  ${r.ratio_to_copy.toFixed(2)} × raw COPY` : ""}${r.probe ? "  [log-size probe]" : ""}${prof}`,
  );
}

async function main() {
  const started = new Date().toISOString();
  const calibration = await calibrate();
  console.log(calibrationLine(calibration));
  const m0 = machine();
  const git = gitState();
  console.log(`ingest: ${m0.cpus} cpus, node ${m0.node}, postgres ${m0.postgres}, load ${m0.loadavg.join(" ")}`);
  console.log(`        ${EVENTS} events per configuration, cap ${CAP_S} s; batches ${BATCHES.join(",")}; writers ${WRITERS.join(",")}`);
  const results: ConfigResult[] = [];
  let httpKind: string | null = null;
  let anchor: CopyAnchor | null = null;
  let insertAnchor: InsertAnchor | null = null;
  const file = () =>
    writeResults(NAME, {
      bench: "ingest",
      started_at: started,
      finished_at: new Date().toISOString(),
      calibration,
      machine: { ...m0, loadavg_start: m0.loadavg, loadavg_end: load() },
      git,
      options: { events: EVENTS, cap_s: CAP_S, batches: BATCHES, writers: WRITERS, modes: MODES, threads: THREADS, profile: PROFILE, probe: PROBE, paced: PACED, anchor_s: ANCHOR_S, insert_anchor_s: INSERT_ANCHOR_S, insert_connections: INSERT_CONNECTIONS, nodes: NODES },
      http_target: httpKind,
      raw_copy: anchor,
      raw_insert: insertAnchor,
      results,
    });
  const record = (r: ConfigResult) => {
    if (r.mode === "http" && NODES > 1) r.nodes = NODES;
    if (anchor && r.probe !== "paced") r.ratio_to_copy = Math.round((r.events_per_s / anchor.rows_per_s) * 100) / 100;
    if (insertAnchor && r.probe !== "paced" && r.batch === 1) r.ratio_to_insert = Math.round((r.events_per_s / insertAnchor.rows_per_s) * 100) / 100;
    printRow(r);
    results.push(r);
    file();
  };

  // Each mode gets its own fresh database, so both start from the same log size.
  for (const mode of MODES) {
    if (mode !== "inproc" && mode !== "http") throw new Error(`unknown mode ${mode}: use inproc or http`);
    const db = await benchDatabase();
    console.log(`${mode}: database ${safeUrl(db.url)}${db.created ? " (fresh, dropped after this mode)" : ""}`);
    let rt: Clutch | undefined;
    const targets: HttpTarget[] = [];
    let agent: http.Agent | undefined;
    try {
      rt = await createClutch({ databaseUrl: db.url, dataDir: "", workspaceDir: null });
      const threads = await createThreads(rt.store, THREADS, "ingest");
      if (!anchor && ANCHOR_S > 0) {
        anchor = await measureRawCopy(db.url, threads, { seconds: ANCHOR_S, group: 1000 });
        console.log(`raw COPY anchor: ${anchor.rows_per_s} rows/s (${anchor.rows} rows in groups of ${anchor.group}, same columns and indexes as events)`);
      }
      if (!insertAnchor && INSERT_ANCHOR_S > 0) {
        insertAnchor = await measureRawInsert(db.url, threads, { seconds: INSERT_ANCHOR_S, connections: INSERT_CONNECTIONS });
        console.log(`raw INSERT anchor: ${insertAnchor.rows_per_s} rows/s (one row per statement, autocommit, ${insertAnchor.connections} connections; INSERT p50 ${insertAnchor.insert_ms.p50} ms p99 ${insertAnchor.insert_ms.p99} ms)`);
      }
      let appends: Append[];
      let profiler: ReturnType<typeof profileTransactions> | undefined;
      if (mode === "inproc") {
        const store = rt.store;
        appends = [async (b) => void (await store.append(b))];
        profiler = PROFILE ? profileTransactions(appendsOf(rt.store)) : undefined;
      } else {
        // This process does not append in this mode; stop its tail so it does not read the server's events.
        rt.tail.stop();
        // The nodes one after the other: each runs the deployment's start (migrations checked, the leader lock tried).
        for (let i = 0; i < NODES; i++) targets.push(await startHttpTarget(db.url, i));
        const target = targets[0]!;
        httpKind = target.kind;
        const ports = targets.map((t) => t.port).join(", ");
        console.log(`      measuring ${target.kind === "next-server" ? "the real server (server.ts, production build)" : "the route handler app/api/events/route.ts POST on a minimal node:http server (bench/_http-server.ts; no `next build` found)"}, ${NODES > 1 ? `${NODES} nodes on ports ${ports}, each its own process` : `port ${ports}, its own process`}`);
        // Enough sockets for the paced single events too, which do not wait for each other.
        agent = new http.Agent({ keepAlive: true, maxSockets: Math.max(...WRITERS, 64) });
        const { key } = await rt.identity.keys.create(HTTP_AGENT, "ingest bench", "system");
        appends = targets.map((t) => httpAppender(t.port, agent!, key));
      }
      await warmUp(appends, threads);
      let seed = 1;
      for (const batch of BATCHES) {
        for (const writers of WRITERS) record(await runConfig(rt, mode, appends, threads, batch, writers, seed++, profiler));
      }
      // The same small configuration again on the grown log: shows what log size costs.
      if (PROBE) record({ ...(await runConfig(rt, mode, appends, threads, 1, 1, seed++, profiler, 5)), probe: "log-size" });
      if (PACED > 0) record(await runPaced(rt, mode, appends, threads, PACED, 10, mode === "http"));
      profiler?.stop();
    } finally {
      agent?.destroy();
      await Promise.all(targets.map((t) => t.stop()));
      await rt?.stop();
      await db.drop();
    }
  }
  console.log(`results: ${path.relative(process.cwd(), file())}  (load ${load().join(" ")}; ${calibrationLine(calibration)})`);
}

/**
 * A short warm-up (JIT, connection pool, server) whose figures are not kept: 4 writers of batches
 * of 10 per node, each writer with runs of its own, so a run's events go in order (see --writers).
 */
async function warmUp(appends: Append[], threads: string[]) {
  await Promise.all(
    appends.flatMap((append, k) =>
      Array.from({ length: 4 }, async (_, w) => {
        const wl = new Workload(threads, { seed: 999 + 4 * k + w });
        for (let i = 0; i < 20; i++) await append(wl.batch(10));
      }),
    ),
  );
}

await main();
