/**
 * Streaming benchmark: replies written where people watch them (docs/architecture.md
 * "Streaming"; server/streams/hub.ts, server/agents/step-streams.ts, the RealtimeGateway), each
 * figure printed beside its target and the machine's calibration (docs/benchmarks.md
 * "Streaming").
 *
 *   npx tsx bench/streaming.ts [options]          (or node --import tsx bench/streaming.ts)
 *
 * One Clutch (createClutch, a one-agent workspace whose agent `bench-1` answers every message of
 * its channel) serves a real RealtimeGateway with the Clutch's `streams` hub on a real HTTP
 * server, as test/streaming.test.ts sets it up. The agent's model is OpenAI-compatible
 * (resolveModel `{ provider: "openai-compatible", baseURL }`): a scripted server that streams
 * SSE chunks at a set token rate (bench/_streaming-model.ts). The people watching are
 * socket.io-client sockets (websocket transport, an API key). Model and sockets run in a worker
 * thread (bench/_streaming-clients.ts), off the Clutch's event loop. Times are wall ms
 * (performance.timeOrigin + performance.now()), comparable across threads.
 *
 * 1. fanout: `--streams` (50) streams written at once through the hub's writers, each appending
 *    a token every 1000/`--write-rate` ms (50 tokens/s) for `--warmup` (1 s, not counted) +
 *    `--seconds` (10 s), spread over `--channels` (5) channels, watched by `--watchers` (10)
 *    sockets each subscribed to every channel. Latency of every token, writer append → a watcher
 *    holds it (ms, p50/p99; target p99 < 100 ms; it includes the hub's coalescing wait of up to
 *    50 ms), and of every delta, hub publish → receipt (the transport alone); deltas a second per
 *    stream as watched (target ≤ 20); each watcher must end with every stream's whole text. On
 *    PostgreSQL also the latency from publish to another hub on the bus (NOTIFY clutch_streams),
 *    which is what a realtime process of its own or another node would see.
 * 2. first-delta: `--runs` (20, after one warm-up run) requests per mode to the agent, one at a
 *    time; the model streams `--tokens` (30) tokens at `--rate` (50) tokens/s. Time from the
 *    model writing the reply's first token to the watching socket receiving the first
 *    `stream.open`/`stream.delta` with text (ms, p50/p99; target ≤ 100 ms), split at the hub
 *    (model → hub publish, publish → socket). Modes (`--modes=text,reply`): `text`, the model's
 *    plain text (a final answer); `reply`, a `reply` tool call whose `text` argument streams as
 *    partial JSON.
 * 3. rows: the events stored for one run streamed at `--rate`, the same run answered in one
 *    chunk, and the same run with the runner's hub taken away (nothing streams): the counts
 *    (and types) must be equal.
 * 4. memory: `--memory-rounds` (2) rounds of `--memory-streams` (1,000) streams opened, appended
 *    (10 × 100 characters) and ended through the hub, 50 at a time, with one socket watching
 *    through the gateway; heap used after a full garbage collection (v8.setFlagsFromString
 *    ("--expose-gc") + vm, as server/realtime/child.ts memoryHeld) before, just after each round,
 *    and once the hub has forgotten its streams (it keeps an ended stream 30 s, hard-coded in
 *    hub.ts; `--retention-wait` (40 s, 0: skip) bounds the wait). Target: the heap once the last
 *    round is forgotten within `--memory-slack` (5) MB of once the first was (the first round
 *    also lets whatever the sections before left be forgotten), and none of the streams held.
 * Options (or env BENCH_<NAME>): --sections=fanout,first-delta,rows,memory --db=postgres|embedded
 * (postgres: a fresh `clutch_bench_<ts>` on the local server, or BENCH_DATABASE_URL, as the
 * other benches; embedded: PGlite in a temporary folder, the default of `npm start`)
 * --client-threads=1 (0: sockets and model in the main thread) --name=streaming (results in
 * bench/results/<name>.json). The first line is the calibration (bench/_lib.ts `calibrate`).
 * About 2 min 10 s with the defaults on a quiet box, two retention waits of ~31 s included.
 */
import fs from "node:fs";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import os from "node:os";
import path from "node:path";
import { performance as nodePerformance } from "node:perf_hooks";
import v8 from "node:v8";
import { runInNewContext } from "node:vm";
import { personId } from "@/lib/people";
import type { StoredEvent } from "@/lib/protocol";
import { resolveModel } from "@/server/agents/models";
import { createClutch, type Clutch } from "@/server/clutch";
import { personMessage } from "@/server/events/chat";
import { log } from "@/server/log";
import { RealtimeGateway } from "@/server/realtime/gateway";
import { PgBus, streamsChannel } from "@/server/streams/bus";
import { pgTransactor, type Transactor } from "@/server/events/sql";
import { StreamHub, type StreamWriter } from "@/server/streams/hub";
import { DELTA, END, startOutside, type Outside, type Receipt } from "./_streaming-clients";
import { arg, benchDatabase, calibrate, calibrationLine, createThreads, gitState, listArg, load, machine, numArg, safeUrl, sleep, summarize, wallMs, writeResults, type BenchDatabase, type Dist } from "./_lib";

const SECTIONS = listArg("sections", "fanout,first-delta,rows,memory");
const DB = arg("db", "postgres");
const CLIENT_THREADS = numArg("client-threads", 1);
const NAME = arg("name", "streaming");
// fanout
const STREAMS = numArg("streams", 50);
const WATCHERS = numArg("watchers", 10);
const CHANNELS = numArg("channels", 5);
const WRITE_RATE = numArg("write-rate", 50);
const SECONDS = numArg("seconds", 10);
const WARMUP = numArg("warmup", 1);
// first-delta and rows
const RUNS = numArg("runs", 20);
const RATE = numArg("rate", 50);
const TOKENS = numArg("tokens", 30);
const MODES = listArg("modes", "text,reply");
// memory
const MEMORY_STREAMS = numArg("memory-streams", 1000);
const RETENTION_WAIT = numArg("retention-wait", 40);
const MEMORY_SLACK_MB = numArg("memory-slack", 5);
const MEMORY_ROUNDS = numArg("memory-rounds", 2);

const TARGET = { first_delta_ms: 100, token_p99_ms: 100, deltas_per_s: 20, memory_mb: MEMORY_SLACK_MB };

const MB = 2 ** 20;
const mb = (bytes: number) => Math.round((bytes / MB) * 10) / 10;
const fmt = (d: Dist) => `p50 ${d.p50} ms, p99 ${d.p99} ms, max ${d.max} ms (n=${d.n})`;
const met = (ok: boolean) => (ok ? "met" : "MISSED");

/** Heap in use after a full garbage collection (as server/realtime/child.ts memoryHeld). */
function heldMemory(): NodeJS.MemoryUsage {
  v8.setFlagsFromString("--expose-gc");
  const gc = runInNewContext("gc") as () => void;
  gc();
  gc();
  return process.memoryUsage();
}

/** A workspace with one model agent, `bench-1`, answering every message of its channel. */
function benchWorkspace(): { dir: string; channel: string } {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "clutch-bench-ws-"));
  const channel = `streaming-${Date.now().toString(36)}`;
  fs.mkdirSync(path.join(dir, "agents"));
  fs.writeFileSync(
    path.join(dir, "agents", "bench-1.json"),
    JSON.stringify({ id: "bench-1", system_prompt: "You are BenchAgent. Answer the person.", allowed_agents: [], delegate_rules: {}, overseer: null, mcp_bindings: [] }),
  );
  fs.writeFileSync(path.join(dir, "mcp.json"), JSON.stringify({ mcpServers: {} }));
  fs.writeFileSync(path.join(dir, "workspace.json"), JSON.stringify({ channels: [{ name: channel, entry_agent: "bench-1", answers: "every_message" }] }));
  return { dir, channel };
}

/** What the hub published, seen by a listener registered before the gateway's (so its time is taken first). */
class HubLog {
  recording = true;
  /** `${stream_id}:${text length after it}` → wall ms of the delta's publish. */
  readonly published = new Map<string, number>();
  /** stream_id → wall ms of the first publish that carried text. */
  readonly firstText = new Map<string, number>();
  /** stream_id → its run (from its open). */
  readonly runOf = new Map<string, string | null>();
  /** stream_id → publish times of its deltas. */
  readonly deltaTimes = new Map<string, number[]>();

  constructor(hub: StreamHub) {
    hub.listen((e) => {
      if (!this.recording) return;
      const t = wallMs();
      if ("open" in e) {
        this.runOf.set(e.open.stream_id, e.open.run_id);
        if (e.open.text && !this.firstText.has(e.open.stream_id)) this.firstText.set(e.open.stream_id, t);
      } else if ("delta" in e) {
        const id = e.delta.stream_id;
        this.published.set(`${id}:${e.delta.offset + e.delta.text.length}`, t);
        if (e.delta.text && !this.firstText.has(id)) this.firstText.set(id, t);
        let times = this.deltaTimes.get(id);
        if (!times) this.deltaTimes.set(id, (times = []));
        times.push(t);
      }
    });
  }

  clear(): void {
    this.published.clear();
    this.firstText.clear();
    this.runOf.clear();
    this.deltaTimes.clear();
  }
}

/**
 * A person's request starts a run of its own (the orchestrator's root task.request names the
 * message in `input.message_id`); `wait(message_id)` resolves with that run's id and the event
 * that ended its root task (task.result or task.error), from the tail.
 */
class RunEnds {
  private readonly runOfMessage = new Map<string, string>();
  private readonly waiting = new Map<string, { message_id: string; done: (ev: StoredEvent) => void }>();
  private readonly byMessage = new Map<string, (ev: StoredEvent) => void>();
  constructor(rt: Clutch) {
    rt.tail.subscribe((ev) => {
      if (ev.type === "task.request" && !ev.parent_task_id) {
        const message_id = (ev.payload as { input?: { message_id?: unknown } }).input?.message_id;
        const done = typeof message_id === "string" ? this.byMessage.get(message_id) : undefined;
        if (done && ev.run_id) this.waiting.set(ev.run_id, { message_id: message_id as string, done });
      } else if ((ev.type === "task.result" || ev.type === "task.error") && ev.run_id && !ev.parent_task_id) this.waiting.get(ev.run_id)?.done(ev);
    });
  }
  wait(message_id: string, ms = 30_000): Promise<{ run_id: string | null; ended: StoredEvent }> {
    return new Promise((resolve, reject) => {
      const forget = () => {
        this.byMessage.delete(message_id);
        for (const [run_id, w] of this.waiting) if (w.message_id === message_id) this.waiting.delete(run_id);
      };
      const timer = setTimeout(() => {
        const run_id = [...this.waiting].find(([, w]) => w.message_id === message_id)?.[0] ?? null;
        forget();
        reject(Object.assign(new Error(`the run of message ${message_id} did not end within ${ms} ms`), { run_id }));
      }, ms);
      this.byMessage.set(message_id, (ev) => {
        clearTimeout(timer);
        forget();
        resolve({ run_id: ev.run_id, ended: ev });
      });
    });
  }
}

interface Ctx {
  rt: Clutch;
  url: string;
  token: string;
  outside: Outside;
  hubLog: HubLog;
  runEnds: RunEnds;
  databaseUrl: string | null;
  /** Every stream id the sections before wrote (for the memory section's "held before"). */
  earlierStreams: Set<string>;
  /** One line per target, printed together at the end. */
  summary: { figure: string; measured: string; target: string; met: boolean }[];
}

// ---------------------------------------------------------------------------------------------
// 1. 50 concurrent streams × 10 watchers

async function fanout(ctx: Ctx) {
  const { rt, outside, hubLog } = ctx;
  const threads = await createThreads(rt.store, CHANNELS, "streams");
  await outside.watch(ctx.url, ctx.token, threads, WATCHERS);
  await outside.receipts();
  // Another hub on the bus, as a realtime process of its own or another node holds one.
  const remoteAt = new Map<string, number>();
  let remote: StreamHub | null = null;
  let remoteSql: Transactor | null = null;
  if (ctx.databaseUrl) {
    // The bench's Clutch is deployment "clutch" (createClutch's default): its channel.
    remote = new StreamHub({ bus: await PgBus.connect(ctx.databaseUrl, (remoteSql = pgTransactor(ctx.databaseUrl)), streamsChannel("clutch")) });
    remote.listen((e) => {
      if ("delta" in e) remoteAt.set(`${e.delta.stream_id}:${e.delta.offset + e.delta.text.length}`, wallMs());
    });
  }
  const every = 1000 / WRITE_RATE;
  const writers: StreamWriter[] = Array.from({ length: STREAMS }, (_, i) =>
    rt.streams.open({ thread_id: threads[i % threads.length]!, run_id: null, task_id: null, author: `agent:bench-writer-${i}`, to: ["user"], kind: "message" }),
  );
  for (const w of writers) ctx.earlierStreams.add(w.stream_id);
  const appends = writers.map(() => ({ len: [] as number[], t: [] as number[] }));
  const done = new Array<number>(STREAMS).fill(0);
  const t0 = wallMs() + 20;
  const measureFrom = t0 + WARMUP * 1000;
  const until = measureFrom + SECONDS * 1000;
  let late = 0;
  let elu0 = nodePerformance.eventLoopUtilization();
  let cpu0 = process.cpuUsage();
  let measuring = false;
  for (;;) {
    const now = wallMs();
    if (now >= until) break;
    if (!measuring && now >= measureFrom) {
      measuring = true;
      elu0 = nodePerformance.eventLoopUtilization();
      cpu0 = process.cpuUsage();
    }
    for (let i = 0; i < STREAMS; i++) {
      // Stream i's token k is due at t0 + i × every / STREAMS + k × every: the streams are staggered.
      const due = Math.floor((now - t0 - (i * every) / STREAMS) / every) + 1;
      while (done[i]! < due) {
        const w = writers[i]!;
        w.append(`tok${done[i]} `);
        const t = wallMs();
        if (t - (t0 + (i * every) / STREAMS + done[i]! * every) > every) late++;
        appends[i]!.len.push(w.text.length);
        appends[i]!.t.push(t);
        done[i]!++;
      }
    }
    await sleep(1);
  }
  const elu = nodePerformance.eventLoopUtilization(elu0);
  const cpu = process.cpuUsage(cpu0);
  for (const w of writers) w.end("done");
  await sleep(800);
  const receipts = await outside.receipts();
  await outside.unwatch();
  await remote?.close();
  await remoteSql?.close();

  // Every token: append → the watcher holds it (the first receipt whose length covers it).
  const byWatcherStream = new Map<string, Receipt[]>();
  for (const r of receipts) {
    const k = `${r.c}|${r.s}`;
    let a = byWatcherStream.get(k);
    if (!a) byWatcherStream.set(k, (a = []));
    a.push(r);
  }
  const tokenLatency: number[] = [];
  const transport: number[] = [];
  let incomplete = 0;
  for (let c = 0; c < WATCHERS; c++) {
    writers.forEach((w, i) => {
      const rs = byWatcherStream.get(`${c}|${w.stream_id}`) ?? [];
      const ap = appends[i]!;
      let k = 0;
      for (const r of rs) {
        if (r.kind === DELTA) {
          const pub = hubLog.published.get(`${r.s}:${r.len}`);
          if (pub !== undefined && pub >= measureFrom) transport.push(r.t - pub);
        }
        while (k < ap.len.length && ap.len[k]! <= r.len) {
          if (ap.t[k]! >= measureFrom) tokenLatency.push(r.t - ap.t[k]!);
          k++;
        }
      }
      if ((rs.at(-1)?.len ?? 0) !== w.text.length || rs.at(-1)?.kind !== END) incomplete++;
    });
  }
  // Deltas a second per stream, as the first watcher got them, in the measured window.
  const perStream: number[] = [];
  let maxInASecond = 0;
  for (const w of writers) {
    const rs = (byWatcherStream.get(`0|${w.stream_id}`) ?? []).filter((r) => r.kind === DELTA && r.t >= measureFrom && r.t < until);
    perStream.push(rs.length / SECONDS);
    const buckets = new Map<number, number>();
    for (const r of rs) {
      const b = Math.floor((r.t - measureFrom) / 1000);
      buckets.set(b, (buckets.get(b) ?? 0) + 1);
    }
    for (const n of buckets.values()) maxInASecond = Math.max(maxInASecond, n);
  }
  // The hub's own side: the shortest gap between two deltas of one stream.
  let minGap = Infinity;
  for (const w of writers) {
    const ts = hubLog.deltaTimes.get(w.stream_id) ?? [];
    // Within the measured window: an end sends the rest at once, whenever the last delta was.
    for (let i = 1; i < ts.length; i++) if (ts[i - 1]! >= measureFrom && ts[i]! < until) minGap = Math.min(minGap, ts[i]! - ts[i - 1]!);
  }
  const bus: number[] = [];
  for (const [k, t] of remoteAt) {
    const pub = hubLog.published.get(k);
    if (pub !== undefined && pub >= measureFrom) bus.push(t - pub);
  }
  const token = summarize(tokenLatency);
  const out = {
    streams: STREAMS,
    watchers: WATCHERS,
    channels: CHANNELS,
    write_rate_tokens_per_s: WRITE_RATE,
    seconds: SECONDS,
    appends: appends.reduce((n, a) => n + a.len.length, 0),
    late_appends: late,
    token_latency_ms: token,
    transport_latency_ms: summarize(transport),
    bus_latency_ms: remote ? summarize(bus) : null,
    deltas_per_s_per_stream: { mean: Math.round((perStream.reduce((a, b) => a + b, 0) / perStream.length) * 10) / 10, max_in_any_second: maxInASecond },
    min_gap_between_deltas_ms: Math.round(minGap * 10) / 10,
    watcher_streams_incomplete: incomplete,
    main_thread: { event_loop_utilization: Math.round(elu.utilization * 100) / 100, process_cpu_cores: Math.round(((cpu.user + cpu.system) / 1000 / (SECONDS * 1000)) * 100) / 100 },
  };
  ctx.summary.push(
    { figure: `${STREAMS} streams × ${WATCHERS} watchers: token append → watcher`, measured: `p50 ${token.p50} ms, p99 ${token.p99} ms`, target: `p99 < ${TARGET.token_p99_ms} ms`, met: token.p99 < TARGET.token_p99_ms },
    { figure: "deltas a second per stream, as watched", measured: `${out.deltas_per_s_per_stream.mean} (most in one second ${maxInASecond})`, target: `≤ ${TARGET.deltas_per_s}`, met: out.deltas_per_s_per_stream.mean <= TARGET.deltas_per_s },
  );
  console.log(`fanout:   ${STREAMS} streams × ${WATCHERS} watchers (${CHANNELS} channels, every watcher on all), ${WRITE_RATE} tokens/s each for ${SECONDS} s (+${WARMUP} s warm-up); ${out.appends} appends, ${late} more than a token late`);
  console.log(`          token, append → watcher holds it: ${fmt(token)}  target p99 < ${TARGET.token_p99_ms} ms: ${met(token.p99 < TARGET.token_p99_ms)}`);
  console.log(`          delta, hub publish → watcher:    ${fmt(out.transport_latency_ms)}`);
  if (out.bus_latency_ms) console.log(`          delta, publish → another hub over NOTIFY: ${fmt(out.bus_latency_ms)}`);
  console.log(
    `          deltas/s per stream as watched: mean ${out.deltas_per_s_per_stream.mean}  target ≤ ${TARGET.deltas_per_s}: ${met(out.deltas_per_s_per_stream.mean <= TARGET.deltas_per_s)}; most in any one second ${maxInASecond}; shortest gap between two deltas of a stream at the hub ${out.min_gap_between_deltas_ms} ms (coalescing: 50)`,
  );
  console.log(`          watchers ending without a stream's whole text: ${incomplete} of ${WATCHERS * STREAMS}${incomplete ? "  <-- NOT OK" : ""}; main thread: loop utilization ${out.main_thread.event_loop_utilization}, CPU ${out.main_thread.process_cpu_cores} cores`);
  return out;
}

// ---------------------------------------------------------------------------------------------
// 2. First delta latency, and 3. rows per streamed reply

/** A person asks the agent, scripting its model; resolves with the run's id once its task ended. */
async function ask(ctx: Ctx, thread_id: string, script: { mode: string; tokens: number; rate: number; tag: string }): Promise<{ run_id: string; ended: StoredEvent }> {
  const { rt } = ctx;
  const text = `[bench mode=${script.mode} tokens=${script.tokens} rate=${script.rate} tag=${script.tag}] How did the quarter go?`;
  const msg = await personMessage(rt.store.queries, thread_id, { text }, { agent_id: personId("Dana"), display_name: "Dana" }, (id) => rt.registry.has(id));
  const ending = ctx.runEnds.wait(msg.id);
  await rt.store.append(msg);
  const { run_id, ended } = await ending.catch(async (err: Error & { run_id?: string | null }) => {
    const events = err.run_id ? await rt.store.readAll({ run_id: err.run_id }) : [];
    throw new Error(`${err.message}; its events: ${events.map((e) => `${e.type} ${JSON.stringify(e.payload).slice(0, 200)}`).join(" | ") || "none (no run was opened)"}`);
  });
  await rt.runner.idle();
  await rt.orchestrator.settled();
  return { run_id: run_id!, ended };
}

async function firstDelta(ctx: Ctx, thread_id: string) {
  const { outside, hubLog } = ctx;
  await outside.watch(ctx.url, ctx.token, [thread_id], 1);
  const out: Record<string, unknown> = {};
  let failed = 0;
  for (const mode of MODES) {
    await outside.modelTimings();
    await outside.receipts();
    const runs: { run_id: string; tag: string; warm: boolean }[] = [];
    for (let r = 0; r <= RUNS; r++) {
      const tag = `${mode}-${r}`;
      const { run_id, ended } = await ask(ctx, thread_id, { mode, tokens: TOKENS, rate: RATE, tag });
      if (ended.type !== "task.result") {
        failed++;
        console.log(`          run ${tag} ended with ${ended.type}: ${JSON.stringify(ended.payload).slice(0, 200)}`);
      }
      runs.push({ run_id, tag, warm: r === 0 });
    }
    await sleep(200);
    const timings = await outside.modelTimings();
    const receipts = await outside.receipts();
    const firstReceipt = new Map<string, number>();
    for (const r of receipts) if (r.len > 0 && !firstReceipt.has(r.s)) firstReceipt.set(r.s, r.t);
    const total: number[] = [];
    const toHub: number[] = [];
    const hubToSocket: number[] = [];
    for (const run of runs) {
      if (run.warm) continue;
      const model = timings.find((t) => t.tag === run.tag && t.step === 1);
      const streams = [...hubLog.runOf].filter(([, r]) => r === run.run_id).map(([s]) => s);
      for (const s of streams) ctx.earlierStreams.add(s);
      // The run's first stream with text (the reply's, before the step 2 text in `reply` mode).
      const first = streams
        .map((s) => ({ s, hub: hubLog.firstText.get(s), socket: firstReceipt.get(s) }))
        .filter((x) => x.socket !== undefined)
        .sort((a, b) => a.socket! - b.socket!)[0];
      if (!model?.first_token_at || !first) {
        failed++;
        continue;
      }
      total.push(first.socket! - model.first_token_at);
      if (first.hub !== undefined) {
        toHub.push(first.hub - model.first_token_at);
        hubToSocket.push(first.socket! - first.hub);
      }
    }
    const d = summarize(total);
    out[mode] = { runs: RUNS, latency_ms: d, model_to_hub_ms: summarize(toHub), hub_to_socket_ms: summarize(hubToSocket) };
    ctx.summary.push({ figure: `first delta, ${mode === "reply" ? "a reply call's text" : "the model's text"}`, measured: `p50 ${d.p50} ms, p99 ${d.p99} ms (n=${d.n})`, target: `≤ ${TARGET.first_delta_ms} ms`, met: d.n > 0 && d.p99 <= TARGET.first_delta_ms });
    console.log(
      `first delta (${mode}${mode === "reply" ? ": a reply call's text argument" : ": the model's text"}): model's first token → watcher: ${fmt(d)}  target ≤ ${TARGET.first_delta_ms} ms: ${met(d.p99 <= TARGET.first_delta_ms)} (p99)`,
    );
    console.log(`          of which model → hub publish p50 ${summarize(toHub).p50} ms, p99 ${summarize(toHub).p99} ms; hub publish → watcher p50 ${summarize(hubToSocket).p50} ms, p99 ${summarize(hubToSocket).p99} ms`);
  }
  await outside.unwatch();
  return { rate_tokens_per_s: RATE, tokens: TOKENS, failed_runs: failed, ...out };
}

async function rows(ctx: Ctx, thread_id: string) {
  const { rt } = ctx;
  // The runner's hub, taken away for the "hub absent" run (a bench-only reach into a private field).
  const deps = (rt.runner as unknown as { deps: { streams?: StreamHub } }).deps;
  const out: Record<string, unknown> = {};
  let equal = true;
  for (const mode of MODES) {
    const variants: { name: string; rate: number; hub: boolean }[] = [
      { name: "streamed", rate: RATE, hub: true },
      { name: "one chunk", rate: 0, hub: true },
      { name: "hub absent", rate: RATE, hub: false },
    ];
    const counts: Record<string, { rows: number; types: Record<string, number> }> = {};
    for (const v of variants) {
      const saved = deps.streams;
      if (!v.hub) deps.streams = undefined;
      try {
        const { run_id } = await ask(ctx, thread_id, { mode, tokens: TOKENS, rate: v.rate, tag: `rows-${mode}-${v.name.replace(/ /g, "-")}` });
        await sleep(300);
        const events = await rt.store.readAll({ run_id });
        const types: Record<string, number> = {};
        for (const e of events) types[e.type] = (types[e.type] ?? 0) + 1;
        counts[v.name] = { rows: events.length, types };
        for (const [s, r] of ctx.hubLog.runOf) if (r === run_id) ctx.earlierStreams.add(s);
      } finally {
        deps.streams = saved;
      }
    }
    const base = counts.streamed!;
    const same = variants.every((v) => counts[v.name]!.rows === base.rows && JSON.stringify(Object.entries(counts[v.name]!.types).sort()) === JSON.stringify(Object.entries(base.types).sort()));
    equal &&= same;
    out[mode] = counts;
    ctx.summary.push({ figure: `rows per run (${mode}): streamed / one chunk / hub absent`, measured: variants.map((v) => counts[v.name]!.rows).join(" / "), target: "equal", met: same });
    console.log(
      `rows (${mode}): events stored for one run: streamed at ${RATE} tokens/s ${base.rows}, in one chunk ${counts["one chunk"]!.rows}, hub absent ${counts["hub absent"]!.rows}  target equal: ${met(same)}  (${Object.entries(base.types)
        .map(([t, n]) => `${t} ${n}`)
        .join(", ")})`,
    );
  }
  return { equal, ...out };
}

// ---------------------------------------------------------------------------------------------
// 4. Memory after 1,000 streams

/** One round: MEMORY_STREAMS streams opened, appended, ended (50 at a time); then the wait until the hub forgot them. */
async function memoryRound(ctx: Ctx, thread_id: string, round: number) {
  const { rt, outside } = ctx;
  const ids: string[] = [];
  const piece = "x".repeat(99) + " ";
  const started = performance.now();
  for (let wave = 0; wave < MEMORY_STREAMS; wave += 50) {
    const ws = Array.from({ length: Math.min(50, MEMORY_STREAMS - wave) }, (_, i) =>
      rt.streams.open({ thread_id, run_id: null, task_id: null, author: `agent:bench-mem-${round}-${wave + i}`, to: ["user"], kind: "message" }),
    );
    for (const w of ws) ids.push(w.stream_id);
    for (let k = 0; k < 10; k++) {
      for (const w of ws) w.append(piece);
      await sleep(20);
    }
    for (const w of ws) w.end("done");
  }
  const lastEnd = performance.now();
  await sleep(500);
  const receipts = await outside.receipts();
  const ends = new Set(receipts.filter((r) => r.kind === END).map((r) => r.s)).size;
  const whole = receipts.filter((r) => r.kind === END && r.len === piece.length * 10).length;
  receipts.length = 0;
  const heldAfter = ids.filter((id) => rt.streams.get(id)).length;
  const after = heldMemory();
  let heldLater = heldAfter;
  let emptiedAfterS: number | null = null;
  while (RETENTION_WAIT > 0 && (performance.now() - lastEnd) / 1000 < RETENTION_WAIT) {
    await sleep(1000);
    heldLater = ids.filter((id) => rt.streams.get(id)).length;
    if (heldLater === 0) {
      emptiedAfterS = Math.round((performance.now() - lastEnd) / 100) / 10;
      break;
    }
  }
  const later = RETENTION_WAIT > 0 ? heldMemory() : null;
  return { seconds_to_write: Math.round((lastEnd - started) / 100) / 10, ends, whole, heldAfter, after, heldLater, emptiedAfterS, later };
}

async function memory(ctx: Ctx) {
  const { rt, outside, hubLog } = ctx;
  hubLog.recording = false;
  hubLog.clear();
  const [thread_id] = await createThreads(rt.store, 1, "memory");
  await outside.watch(ctx.url, ctx.token, [thread_id!], 1);
  await outside.receipts();
  const earlierHeld = [...ctx.earlierStreams].filter((id) => rt.streams.get(id)).length;
  const before = heldMemory();
  const rounds: Awaited<ReturnType<typeof memoryRound>>[] = [];
  for (let round = 1; round <= MEMORY_ROUNDS; round++) rounds.push(await memoryRound(ctx, thread_id!, round));
  await outside.unwatch();
  // Flat: the heap once the last round is forgotten against once the first was (the first round
  // also settles whatever the sections before left to be forgotten); with one round, against before.
  const last = rounds.at(-1)!;
  const baseline = rounds.length > 1 ? rounds[0]!.later : before;
  const growth = last.later && baseline ? mb(last.later.heapUsed - baseline.heapUsed) : null;
  const ok = rounds.every((r) => r.ends === MEMORY_STREAMS && r.whole === MEMORY_STREAMS) && (RETENTION_WAIT === 0 || rounds.every((r) => r.heldLater === 0));
  const out = {
    streams_per_round: MEMORY_STREAMS,
    rounds: rounds.map((r) => ({
      seconds_to_write: r.seconds_to_write,
      watcher_got_ends: r.ends,
      watcher_got_whole_text: r.whole,
      heap_used_mb_after_streams: mb(r.after.heapUsed),
      held_after_streams: r.heldAfter,
      heap_used_mb_after_retention: r.later ? mb(r.later.heapUsed) : null,
      held_after_retention: RETENTION_WAIT > 0 ? r.heldLater : null,
      emptied_after_s: r.emptiedAfterS,
      rss_mb: { after_streams: mb(r.after.rss), after_retention: r.later ? mb(r.later.rss) : null },
    })),
    earlier_streams_held_before: earlierHeld,
    heap_used_mb_before: mb(before.heapUsed),
    rss_mb_before: mb(before.rss),
    growth_mb: growth,
    ok,
  };
  console.log(`memory:   ${MEMORY_ROUNDS} × ${MEMORY_STREAMS} streams opened, 10 × 100 characters appended, ended (50 at a time), one socket watching; heap used after a full GC, before: ${out.heap_used_mb_before} MB`);
  rounds.forEach((r, i) => {
    const held = `+${mb(r.after.heapUsed - (i ? rounds[i - 1]!.later?.heapUsed ?? before.heapUsed : before.heapUsed))} MB`;
    console.log(
      `          round ${i + 1}: written in ${r.seconds_to_write} s, the watcher got ${r.ends} ends (${r.whole} with the whole text); just after ${mb(r.after.heapUsed)} MB (${held}, ${r.heldAfter} held)` +
        (r.later ? `; once forgotten ${mb(r.later.heapUsed)} MB, ${r.heldLater} held ${r.emptiedAfterS !== null ? `(emptied ${r.emptiedAfterS} s after the last end)` : `after ${RETENTION_WAIT} s  <-- NOT EMPTIED`}` : ""),
    );
  });
  if (growth !== null) {
    ctx.summary.push({ figure: `heap after ${MEMORY_ROUNDS} × ${MEMORY_STREAMS} streams, once forgotten`, measured: `${growth >= 0 ? "+" : ""}${growth} MB, ${last.heldLater} held`, target: `within ${TARGET.memory_mb} MB, 0 held`, met: Math.abs(growth) <= TARGET.memory_mb && last.heldLater === 0 });
    console.log(
      `          heap once forgotten, ${rounds.length > 1 ? `round ${rounds.length} against round 1` : "against before"}: ${growth >= 0 ? "+" : ""}${growth} MB  target flat within ${TARGET.memory_mb} MB: ${met(Math.abs(growth) <= TARGET.memory_mb)}; the hub keeps an ended stream 30 s (hub.ts), then forgets it: ${met(rounds.every((r) => r.heldLater === 0))}`,
    );
  } else console.log(`          (no retention wait: the hub keeps an ended stream 30 s; --retention-wait=40 to see it forgotten)`);
  console.log(`          RSS ${out.rss_mb_before} MB before, ${rounds.map((r) => r.later ? mb(r.later.rss) : mb(r.after.rss)).join(" → ")} MB after each round; ${earlierHeld} streams of the sections before still held at the start${ok ? "" : "  <-- NOT OK"}`);
  hubLog.recording = true;
  return out;
}

// ---------------------------------------------------------------------------------------------

async function main() {
  log.level = process.env.LOG_LEVEL ?? "warn";
  const started = new Date().toISOString();
  const calibration = await calibrate();
  console.log(calibrationLine(calibration));
  const m0 = machine();
  const git = gitState();
  console.log(`streaming: ${m0.cpus} cpus, node ${m0.node}, postgres ${m0.postgres}, load ${m0.loadavg.join(" ")}`);
  let db: BenchDatabase | null = null;
  let dataDir = "";
  if (DB === "embedded") {
    dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "clutch-bench-data-"));
    console.log(`          database: embedded (PGlite in ${dataDir}, removed at the end)`);
  } else if (DB === "postgres") {
    db = await benchDatabase();
    console.log(`          database ${safeUrl(db.url)}${db.created ? " (fresh, dropped at the end)" : ""}`);
  } else throw new Error(`--db=${DB}: use postgres or embedded`);
  const outside = await startOutside(CLIENT_THREADS > 0);
  const baseURL = await outside.startModel();
  console.log(`          model: scripted OpenAI-compatible SSE at ${baseURL}; sockets and model in ${CLIENT_THREADS > 0 ? "a worker thread" : "the main thread"}`);
  const ws = benchWorkspace();
  let rt: Clutch | undefined;
  let gateway: RealtimeGateway | undefined;
  const httpServer = createServer();
  const results: Record<string, unknown> = {};
  let ok = true;
  try {
    rt = await createClutch({
      ...(db ? { databaseUrl: db.url, migrate: false } : {}),
      dataDir,
      workspaceDir: ws.dir,
      modelFor: () => resolveModel({ provider: "openai-compatible", baseURL, apiKey: "bench", model: "bench-stream-1" }),
    });
    const hubLog = new HubLog(rt.streams); // before the gateway's listener
    gateway = new RealtimeGateway(httpServer, rt.store, rt.tail, rt.identity, rt.streams);
    await new Promise<void>((r) => httpServer.listen(0, "127.0.0.1", r));
    const url = `http://127.0.0.1:${(httpServer.address() as AddressInfo).port}`;
    const { key: token } = await rt.identity.keys.create("agent:bench-reader", "streaming bench", "system");
    const ctx: Ctx = { rt, url, token, outside, hubLog, runEnds: new RunEnds(rt), databaseUrl: db?.url ?? null, earlierStreams: new Set(), summary: [] };
    const thread_id = rt.channels.find((c) => c.name === ws.channel)!.thread_id;
    await sleep(300);

    if (SECTIONS.includes("fanout")) {
      const r = await fanout(ctx);
      results.fanout = r;
      ok &&= r.watcher_streams_incomplete === 0;
    }
    if (SECTIONS.includes("first-delta")) {
      const r = await firstDelta(ctx, thread_id);
      results.first_delta = r;
      ok &&= r.failed_runs === 0;
    }
    if (SECTIONS.includes("rows")) results.rows = await rows(ctx, thread_id);
    if (SECTIONS.includes("memory")) {
      const r = await memory(ctx);
      results.memory = r;
      ok &&= r.ok;
    }

    const result = {
      bench: "streaming",
      started_at: started,
      finished_at: new Date().toISOString(),
      calibration,
      machine: { ...m0, loadavg_start: m0.loadavg, loadavg_end: load() },
      git,
      options: { db: DB, client_threads: CLIENT_THREADS, streams: STREAMS, watchers: WATCHERS, channels: CHANNELS, write_rate: WRITE_RATE, seconds: SECONDS, runs: RUNS, rate: RATE, tokens: TOKENS, modes: MODES, memory_streams: MEMORY_STREAMS, memory_rounds: MEMORY_ROUNDS, retention_wait_s: RETENTION_WAIT },
      targets: TARGET,
      summary: ctx.summary,
      ...results,
    };
    console.log(`summary:  calibration ${calibration.seconds.toFixed(1)} s; load ${m0.loadavg.join(" ")} at the start, ${load().join(" ")} at the end`);
    const w = Math.max(...ctx.summary.map((r) => r.figure.length));
    const wm = Math.max(...ctx.summary.map((r) => r.measured.length));
    for (const r of ctx.summary) console.log(`          ${r.figure.padEnd(w)}  ${r.measured.padEnd(wm)}  target ${r.target}: ${met(r.met)}`);
    console.log(`results: ${path.relative(process.cwd(), writeResults(NAME, result))}`);
    if (!ok) process.exitCode = 1;
  } finally {
    await gateway?.close();
    httpServer.close();
    await outside.close();
    await rt?.stop();
    await db?.drop();
    fs.rmSync(ws.dir, { recursive: true, force: true });
    if (dataDir) fs.rmSync(dataDir, { recursive: true, force: true });
  }
}

await main();
