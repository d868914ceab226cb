/**
 * Fan-out benchmark: append-to-receipt latency through the real path (store.append → commit →
 * EventTail → RealtimeGateway → Socket.IO websocket → socket.io-client), with many
 * subscribers, at a fixed append rate.
 *
 *   node --import tsx bench/fanout.ts [options]
 *
 * Options (or env BENCH_<NAME>):
 *   --rate=2000          events/s appended (fixed schedule, 1 ms ticks)
 *   --seconds=15         measured duration, after --warmup seconds (default 2) at the same rate
 *   --threads=20         channels; --per-thread=10 clients each (200 clients)
 *   --batch=1            events per append call: 1 = every event is its own append, as agents
 *                        emitting one event at a time would (concurrent calls); N = events due
 *                        in a tick are grouped into appends of up to N
 *   --max-inflight=2000  append calls in flight at most (the schedule waits beyond; reported)
 *   --client-threads=0   0: clients in the main thread with the server (one event loop);
 *                        N: clients in N worker threads of this process
 *   --realtime=process   where Socket.IO runs: process (a process of its own behind this one's
 *                        port, as the server runs it on PostgreSQL: server/realtime/process.ts)
 *                        or inline (in this process, sharing the append path's event loop)
 *   --profile            time the append transactions during measurement (bench/_txprofile.ts)
 *   --name=fanout        results go to bench/results/<name>.json
 *
 * Each event carries `payload.sent_at` (wall ms just before its append is called, from
 * performance.timeOrigin + performance.now()); a client's receipt time is taken the same way
 * when the `events` frame that carries it arrives; the bench also prints the time from the append
 * call's resolving to the receipt (the fan-out's own share, whatever the append path costs). Every client must receive every committed event of its thread
 * exactly once and in seq order: missing / duplicate / out-of-order counts are printed and
 * must be 0. The first line is the machine's calibration (bench/_lib.ts `calibrate`) and load;
 * both are in the results JSON.
 */
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import os from "node:os";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { monitorEventLoopDelay, performance as nodePerformance } from "node:perf_hooks";
import { Worker } from "node:worker_threads";
import type { ClutchMessage } from "@/lib/protocol";
import { serveSockets, type BenchSockets } from "./_sockets";
import { createClutch, type Clutch } from "@/server/clutch";
import { appendsOf } from "@/server/events/testing";
import { ClientGroup, type DeliveryReport } from "./_clients";
import { profileTransactions } from "./_txprofile";
import { arg, benchDatabase, calibrate, calibrationLine, createThreads, flag, gitState, load, machine, numArg, ROOT, safeUrl, sleep, summarize, wallMs, Workload, writeResults } from "./_lib";

const RATE = numArg("rate", 2000);
const SECONDS = numArg("seconds", 15);
const WARMUP = numArg("warmup", 2);
const THREADS = numArg("threads", 20);
const PER_THREAD = numArg("per-thread", 10);
const BATCH = numArg("batch", 1);
const MAX_INFLIGHT = numArg("max-inflight", 2000);
const CLIENT_THREADS = numArg("client-threads", 0);
const NAME = arg("name", "fanout");
const REALTIME = arg("realtime", "process");
const PROFILE = flag("profile");

/** The measured deliveries' event ids and receipt times (wall ms), in the order of the latencies. */
interface Receipts {
  ids: string[];
  at: Float64Array;
}

/** The clients, in this thread or in workers, behind one interface. */
interface Clients {
  deliveries(): Promise<number>;
  finish(expected: Record<string, string[]>): Promise<{ report: DeliveryReport; latencies: Float64Array; receipts: Receipts[] }>;
  close(): Promise<void>;
}

async function localClients(url: string, threads: string[], after: number, token: string): Promise<Clients> {
  const g = new ClientGroup();
  await g.start(url, threads, PER_THREAD, after, token);
  return {
    deliveries: async () => g.deliveries(),
    finish: async (expected) => ({ report: g.verify(expected), latencies: g.latencies.slice(0, g.latencyCount), receipts: [{ ids: g.receiptIds, at: g.receiptAt.slice(0, g.latencyCount) }] }),
    close: async () => g.close(),
  };
}

async function workerClients(url: string, threads: string[], after: number, token: string): Promise<Clients> {
  const workers = Array.from({ length: CLIENT_THREADS }, (_, w) => {
    const mine = threads.filter((_, i) => i % CLIENT_THREADS === w);
    // A worker cannot start from a .ts file directly: register tsx's loader, then import it.
    const tsxApi = pathToFileURL(path.join(ROOT, "node_modules/tsx/dist/esm/api/index.mjs")).href;
    const entry = pathToFileURL(path.join(ROOT, "bench/_clients.ts")).href;
    const boot = `import(${JSON.stringify(tsxApi)}).then((m) => { m.register(); return import(${JSON.stringify(entry)}); });`;
    return new Worker(boot, { eval: true, workerData: { role: "fanout-clients", url, threads: mine, perThread: PER_THREAD, after, token } });
  });
  const ask = <T>(w: Worker, cmd: string, extra: object = {}) =>
    new Promise<T>((resolve, reject) => {
      const done = () => {
        w.off("message", on);
        w.off("error", fail);
      };
      const fail = (err: Error) => (done(), reject(err));
      const on = (m: { cmd: string; message?: string }) => {
        if (m.cmd === cmd) {
          done();
          resolve(m as T);
        } else if (m.cmd === "error") fail(new Error(m.message));
      };
      w.on("message", on);
      w.on("error", fail);
      if (cmd !== "started") w.postMessage({ cmd, ...extra });
    });
  await Promise.all(workers.map((w) => ask(w, "started")));
  return {
    deliveries: async () => (await Promise.all(workers.map((w) => ask<{ deliveries: number }>(w, "progress")))).reduce((a, r) => a + r.deliveries, 0),
    finish: async (expected) => {
      const parts = await Promise.all(workers.map((w) => ask<{ report: DeliveryReport; latencies: Float64Array; receipts: Receipts }>(w, "verify", { expected })));
      const report = parts.map((p) => p.report).reduce((a, b) => {
        const out = { ...a };
        for (const k of Object.keys(b) as (keyof DeliveryReport)[]) out[k] = a[k] + b[k];
        return out;
      });
      const latencies = new Float64Array(parts.reduce((n, p) => n + p.latencies.length, 0));
      let o = 0;
      for (const p of parts) latencies.set(p.latencies, (o += p.latencies.length) - p.latencies.length);
      return { report, latencies, receipts: parts.map((p) => p.receipts) };
    },
    close: async () => {
      for (const w of workers) w.postMessage({ cmd: "close" });
      await Promise.all(workers.map((w) => new Promise((r) => w.once("exit", r))));
    },
  };
}

async function main() {
  const started = new Date().toISOString();
  const calibration = await calibrate();
  console.log(calibrationLine(calibration));
  const m0 = machine();
  const git = gitState();
  console.log(`fanout: ${m0.cpus} cpus, node ${m0.node}, postgres ${m0.postgres}, load ${m0.loadavg.join(" ")}`);
  console.log(`        ${THREADS} threads × ${PER_THREAD} clients, ${RATE} events/s for ${SECONDS} s (+${WARMUP} s warm-up), batch ${BATCH}, Socket.IO ${REALTIME === "process" ? "in a process of its own" : "in this process"}, clients in ${CLIENT_THREADS ? `${CLIENT_THREADS} worker thread(s)` : "the main thread"}`);
  const db = await benchDatabase();
  console.log(`        database ${safeUrl(db.url)}${db.created ? " (fresh, dropped at the end)" : ""}`);
  let rt: Clutch | undefined;
  let sockets: BenchSockets | undefined;
  let clients: Clients | undefined;
  const httpServer = createServer();
  try {
    rt = await createClutch({ databaseUrl: db.url, dataDir: "", workspaceDir: null });
    const threads = await createThreads(rt.store, THREADS, "fanout");
    sockets = await serveSockets(REALTIME, rt, db.url, httpServer);
    // The clients read as an external agent: every bench channel is public (docs/identity.md).
    const { key: token } = await rt.identity.keys.create("agent:bench-reader", "fanout bench", "system");
    await new Promise<void>((r) => httpServer.listen(0, "127.0.0.1", r));
    const url = `http://127.0.0.1:${(httpServer.address() as AddressInfo).port}`;
    await sleep(200); // let the tail publish the thread announcements
    const after = rt.tail.head;
    const tc = performance.now();
    clients = CLIENT_THREADS > 0 ? await workerClients(url, threads, after, token) : await localClients(url, threads, after, token);
    console.log(`        ${THREADS * PER_THREAD} clients connected and subscribed in ${Math.round(performance.now() - tc)} ms`);

    // The load: a fixed schedule of RATE events/s, each append called when its events are due.
    const store = rt.store;
    const wl = new Workload(threads, { seed: 7, openRuns: THREADS * 2 });
    const expected: Record<string, string[]> = Object.fromEntries(threads.map((t) => [t, []]));
    /** When each measured event's append resolved (wall ms), by id: commit → receipt is the gateway's share. */
    const committedAt = new Map<string, number>();
    let inflight = 0;
    let issued = 0;
    let committed = 0;
    let throttledTicks = 0;
    const errors: string[] = [];
    const lag: number[] = [];
    const appendMs: number[] = [];
    const elDelay = monitorEventLoopDelay({ resolution: 1 });
    const profiler = PROFILE ? profileTransactions(appendsOf(rt.store)) : undefined;
    const total = WARMUP + SECONDS;
    const t0 = wallMs();
    const measureFrom = t0 + WARMUP * 1000;
    let elu0 = nodePerformance.eventLoopUtilization();
    let measuredCommitted = 0;
    let lastMeasuredCommit = 0;
    let measuring = false;
    let cpu0 = process.cpuUsage();
    for (;;) {
      const t = wallMs();
      if (!measuring && t >= measureFrom) {
        measuring = true;
        elu0 = nodePerformance.eventLoopUtilization();
        cpu0 = process.cpuUsage();
        elDelay.enable();
        profiler?.reset();
      }
      if (t - t0 >= total * 1000) break;
      let due = Math.floor((RATE * (t - t0)) / 1000) - issued;
      if (due > 0 && inflight >= MAX_INFLIGHT) throttledTicks++;
      while (due > 0 && inflight < MAX_INFLIGHT) {
        const n = Math.min(BATCH, due);
        const batch: ClutchMessage[] = wl.batch(n);
        const sent = wallMs();
        const phase = measuring ? "measure" : "warmup";
        for (const m of batch) Object.assign(m.payload, { sent_at: sent, bench_phase: phase });
        if (measuring) lag.push(sent - (t0 + ((issued + 1) * 1000) / RATE)); // how late the schedule is
        issued += n;
        due -= n;
        inflight++;
        store.append(batch).then(
          (r) => {
            r.events.forEach((ev, i) => {
              if (r.created[i]) expected[ev.thread_id]!.push(ev.id);
            });
            const fresh = r.created.filter(Boolean).length;
            committed += fresh;
            if (phase === "measure") {
              const done = wallMs();
              for (const ev of r.events) committedAt.set(ev.id, done);
              appendMs.push(done - sent);
              measuredCommitted += fresh;
              lastMeasuredCommit = Math.max(lastMeasuredCommit, done);
            }
          },
          (err: Error) => void errors.push(err.message),
        ).finally(() => inflight--);
      }
      await sleep(1);
    }
    const measuredWall = wallMs() - measureFrom;
    const elu = nodePerformance.eventLoopUtilization(elu0);
    const cpu = process.cpuUsage(cpu0);
    elDelay.disable();
    const profile = profiler?.report(measuredWall);
    profiler?.stop();
    while (inflight > 0) await sleep(5);

    // Wait until every client has every event of its thread (or 20 s).
    const want = Object.values(expected).reduce((n, ids) => n + ids.length, 0) * PER_THREAD;
    const waitEnd = Date.now() + 20_000;
    let got = await clients.deliveries();
    while (got < want && Date.now() < waitEnd) {
      await sleep(50);
      got = await clients.deliveries();
    }
    await sleep(300); // anything extra (duplicates) would arrive now
    const { report, latencies, receipts } = await clients.finish(expected);
    const latency = summarize(latencies);
    const afterCommit: number[] = [];
    for (const r of receipts) {
      r.ids.forEach((id, i) => {
        const done = committedAt.get(id);
        if (done !== undefined) afterCommit.push(r.at[i]! - done);
      });
    }
    const commitToReceipt = summarize(afterCommit);
    // Measured events committed over the time from the start of measurement to the last commit.
    const span = Math.max(measuredWall, lastMeasuredCommit - measureFrom);
    const achieved = Math.round((measuredCommitted / span) * 1000);
    const result = {
      bench: "fanout",
      started_at: started,
      finished_at: new Date().toISOString(),
      calibration,
      machine: { ...m0, loadavg_start: m0.loadavg, loadavg_end: load() },
      git,
      options: { rate: RATE, seconds: SECONDS, warmup_s: WARMUP, threads: THREADS, per_thread: PER_THREAD, batch: BATCH, max_inflight: MAX_INFLIGHT, client_threads: CLIENT_THREADS },
      achieved_events_per_s: achieved,
      events_committed: committed,
      deliveries_per_s: Math.round((latencies.length / span) * 1000),
      latency_ms: latency,
      commit_to_receipt_ms: commitToReceipt,
      append_ms: summarize(appendMs),
      schedule_lag_ms: summarize(lag),
      throttled_ticks: throttledTicks,
      append_errors: errors.length,
      first_errors: errors.slice(0, 3),
      delivery: report,
      main_thread: {
        event_loop_utilization: Math.round(elu.utilization * 100) / 100,
        event_loop_delay_ms: { p50: elDelay.percentile(50) / 1e6, p99: elDelay.percentile(99) / 1e6, max: elDelay.max / 1e6 },
        process_cpu_cores: Math.round(((cpu.user + cpu.system) / 1000 / measuredWall) * 100) / 100,
      },
      ...(profile ? { profile } : {}),
    };
    const ok = report.missing === 0 && report.duplicates === 0 && report.out_of_order === 0 && report.unexpected === 0 && errors.length === 0;
    console.log(`rate:     target ${RATE} events/s, achieved ${achieved} events/s committed (${committed} events in all), ${result.deliveries_per_s} deliveries/s`);
    console.log(`latency:  append→receipt p50 ${latency.p50} ms, p95 ${latency.p95} ms, p99 ${latency.p99} ms, max ${latency.max} ms (${latency.n} deliveries)`);
    console.log(`          append call p50 ${result.append_ms.p50} ms p99 ${result.append_ms.p99} ms; schedule lag p99 ${result.schedule_lag_ms.p99} ms; throttled ticks ${throttledTicks}`);
    console.log(`          append resolved → receipt (the tail, the gateway, Socket.IO, the client) p50 ${commitToReceipt.p50} ms, p95 ${commitToReceipt.p95} ms, p99 ${commitToReceipt.p99} ms`);
    console.log(`delivery: ${report.deliveries} of ${report.expected_deliveries} expected; missing ${report.missing}, duplicates ${report.duplicates}, out of order ${report.out_of_order}, unexpected ${report.unexpected}; append errors ${errors.length}${ok ? "" : "  <-- NOT OK"}`);
    console.log(`          ${report.frames} events frames, ${(report.deliveries / Math.max(1, report.frames)).toFixed(2)} events a frame; thread.activity messages received by clients: ${report.activity_messages}`);
    console.log(`process:  main-thread event-loop utilization ${result.main_thread.event_loop_utilization}, loop delay p99 ${result.main_thread.event_loop_delay_ms.p99.toFixed(1)} ms, CPU ${result.main_thread.process_cpu_cores} cores; load ${os.loadavg().map((x) => x.toFixed(2)).join(" ")}`);
    if (profile) {
      console.log(`profile:  ${profile.transactions} append transactions, lock held p50 ${profile.lock_held.p50} ms p99 ${profile.lock_held.p99} ms, serialized ${Math.round(profile.serialized_fraction * 100)}% of wall`);
      for (const st of profile.statements.slice(0, 6)) console.log(`          ${(st.share_of_held * 100).toFixed(0).padStart(3)}%  ${st.label} (${st.count}×, mean ${st.mean_ms} ms)`);
    }
    console.log(`results: ${path.relative(process.cwd(), writeResults(NAME, result))}`);
    if (!ok) process.exitCode = 1;
  } finally {
    await clients?.close();
    await sockets?.close();
    httpServer.close();
    await rt?.stop();
    await db.drop();
  }
}

await main();
