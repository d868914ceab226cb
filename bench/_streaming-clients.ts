/**
 * The outside world of bench/streaming.ts: the people watching (socket.io-client sockets
 * subscribed to channels, folding `stream.open` / `stream.delta` / `stream.end` into each
 * stream's text length as a browser folds them with applyStream) and the model the agent calls
 * (bench/_streaming-model.ts). By default they run in a worker thread of the bench, so they do
 * not share the event loop of the Clutch under test (`startOutside(true)`); `false` runs them in
 * the main thread.
 *
 * A `Receipt` is one stream message a watcher got: which watcher, which stream, open/delta/end,
 * the length of the stream's text the watcher holds after it, and the wall time of receipt
 * (performance.timeOrigin + performance.now(), ms, comparable across threads).
 */
import path from "node:path";
import { pathToFileURL } from "node:url";
import { isMainThread, parentPort, Worker, workerData } from "node:worker_threads";
import { io as connect, type Socket } from "socket.io-client";
import type { Ack, ClientEvents, ServerEvents } from "@/lib/realtime/contract";
import type { StreamDelta, StreamEnd, StreamInfo } from "@/lib/realtime/streams";
import { startStreamingModel, type ModelTiming, type StreamingModel } from "./_streaming-model";
import { ROOT, sleep, wallMs } from "./_lib";

type ClientSocket = Socket<ServerEvents, ClientEvents>;

export const OPEN = 0;
export const DELTA = 1;
export const END = 2;

export interface Receipt {
  /** Watcher index. */
  c: number;
  /** stream_id. */
  s: string;
  kind: typeof OPEN | typeof DELTA | typeof END;
  /** Length of the stream's text the watcher holds after it. */
  len: number;
  /** Wall ms of receipt. */
  t: number;
}

/** `n` sockets, each subscribed to every thread of `threads`. */
class Watchers {
  private readonly sockets: ClientSocket[] = [];
  /** `base`: the index of the first watcher of this group. */
  constructor(private readonly base: number) {}

  receipts: Receipt[] = [];
  /** Stored events received (all watchers). */
  events = 0;

  async start(url: string, token: string, threads: string[], n: number): Promise<void> {
    for (let i = 0; i < n; i++) {
      const c = this.base + i;
      const socket: ClientSocket = connect(url, { transports: ["websocket"], reconnection: false, forceNew: true, timeout: 20_000, auth: { token, frames: true } });
      this.sockets.push(socket);
      const held = new Map<string, number>();
      socket.on("stream.open", (open: StreamInfo) => {
        const t = wallMs();
        // A snapshot never shortens what the watcher holds (lib/realtime/streams.ts applyStream).
        const len = Math.max(held.get(open.stream_id) ?? 0, open.text.length);
        held.set(open.stream_id, len);
        this.receipts.push({ c, s: open.stream_id, kind: OPEN, len, t });
      });
      socket.on("stream.delta", (d: StreamDelta) => {
        const t = wallMs();
        const had = held.get(d.stream_id);
        if (had === undefined || d.offset > had) return;
        const len = d.offset + d.text.length;
        held.set(d.stream_id, len);
        this.receipts.push({ c, s: d.stream_id, kind: DELTA, len, t });
      });
      socket.on("stream.end", (e: StreamEnd) => {
        const t = wallMs();
        this.receipts.push({ c, s: e.stream_id, kind: END, len: held.get(e.stream_id) ?? 0, t });
        held.delete(e.stream_id);
      });
      socket.on("events", (evs) => void (this.events += evs.length));
      await new Promise<void>((resolve, reject) => {
        socket.once("connect_error", reject);
        socket.once("connect", () => resolve());
      });
      for (const thread_id of threads) {
        const ack = await new Promise<Ack>((resolve) => socket.emit("subscribe", { thread_id }, resolve));
        if (!ack.ok) throw new Error(`subscribe ${thread_id}: ${ack.error.message}`);
      }
    }
    await sleep(100); // the subscriptions' replays go live
  }

  take(): Receipt[] {
    const out = this.receipts;
    this.receipts = [];
    return out;
  }

  close(): void {
    for (const s of this.sockets) s.disconnect();
    this.sockets.length = 0;
  }
}

/** The model and the watchers, wherever they run. */
export interface Outside {
  /** Start the model server; its base URL. */
  startModel(): Promise<string>;
  /** The model's timings so far (and forget them). */
  modelTimings(): Promise<ModelTiming[]>;
  /** Start `n` more watchers subscribed to `threads`; resolves once subscribed. Returns their index range. */
  watch(url: string, token: string, threads: string[], n: number): Promise<{ from: number; to: number }>;
  /** Every receipt so far (and forget them). */
  receipts(): Promise<Receipt[]>;
  /** Disconnect the watchers started so far. */
  unwatch(): Promise<void>;
  close(): Promise<void>;
}

/** What the outside does, in the thread it runs in. */
class Host {
  private model: StreamingModel | null = null;
  private groups: Watchers[] = [];
  private watchers = 0;

  async handle(cmd: string, a: Record<string, unknown>): Promise<unknown> {
    switch (cmd) {
      case "startModel":
        this.model ??= await startStreamingModel();
        return this.model.baseURL;
      case "modelTimings":
        return this.model ? this.model.timings.splice(0) : [];
      case "watch": {
        const n = a.n as number;
        const from = this.watchers;
        const g = new Watchers(from);
        this.watchers += n;
        this.groups.push(g);
        await g.start(a.url as string, a.token as string, a.threads as string[], n);
        return { from, to: this.watchers };
      }
      case "receipts":
        return this.groups.flatMap((g) => g.take()).sort((x, y) => x.t - y.t);
      case "unwatch":
        for (const g of this.groups) g.close();
        this.groups = [];
        return null;
      case "close":
        for (const g of this.groups) g.close();
        this.model?.close();
        return null;
    }
    throw new Error(`unknown command ${cmd}`);
  }
}

/** The outside in a worker thread (`inWorker`) or in this thread. */
export async function startOutside(inWorker: boolean): Promise<Outside> {
  let call: (cmd: string, a?: Record<string, unknown>) => Promise<unknown>;
  let stop: () => Promise<void>;
  if (!inWorker) {
    const host = new Host();
    call = (cmd, a = {}) => host.handle(cmd, a);
    stop = async () => void (await host.handle("close", {}));
  } else {
    // A worker cannot start from a .ts file directly: register tsx's loader, then import this file.
    const tsxApi = pathToFileURL(path.join(ROOT, "node_modules/tsx/dist/esm/api/index.mjs")).href;
    const entry = pathToFileURL(path.join(ROOT, "bench/_streaming-clients.ts")).href;
    const boot = `import(${JSON.stringify(tsxApi)}).then((m) => { m.register(); return import(${JSON.stringify(entry)}); });`;
    const worker = new Worker(boot, { eval: true, workerData: { role: "streaming-outside" } });
    let next = 0;
    const waiting = new Map<number, { resolve(v: unknown): void; reject(e: Error): void }>();
    const ready = new Promise<void>((resolve, reject) => {
      worker.on("message", (m: { id?: number; ready?: true; value?: unknown; error?: string }) => {
        if (m.ready) return resolve();
        const w = waiting.get(m.id!);
        if (!w) return;
        waiting.delete(m.id!);
        if (m.error !== undefined) w.reject(new Error(m.error));
        else w.resolve(m.value);
      });
      worker.on("error", (err) => {
        reject(err);
        for (const w of waiting.values()) w.reject(err);
      });
    });
    await ready;
    call = (cmd, a = {}) =>
      new Promise((resolve, reject) => {
        const id = ++next;
        waiting.set(id, { resolve, reject });
        worker.postMessage({ id, cmd, a });
      });
    stop = async () => {
      await call("close");
      await worker.terminate();
    };
  }
  return {
    startModel: () => call("startModel") as Promise<string>,
    modelTimings: () => call("modelTimings") as Promise<ModelTiming[]>,
    watch: (url, token, threads, n) => call("watch", { url, token, threads, n }) as Promise<{ from: number; to: number }>,
    receipts: () => call("receipts") as Promise<Receipt[]>,
    unwatch: async () => void (await call("unwatch")),
    close: stop,
  };
}

// Worker entry: run a Host by messages from the bench.
if (!isMainThread && (workerData as { role?: string } | undefined)?.role === "streaming-outside") {
  const host = new Host();
  parentPort!.on("message", (m: { id: number; cmd: string; a: Record<string, unknown> }) => {
    host.handle(m.cmd, m.a).then(
      (value) => parentPort!.postMessage({ id: m.id, value }),
      (err: Error) => parentPort!.postMessage({ id: m.id, error: err.message }),
    );
  });
  parentPort!.postMessage({ ready: true });
}
