/**
 * socket.io-client subscribers for bench/fanout.ts. A `ClientGroup` connects `threads.length ×
 * perThread` clients (websocket transport), subscribes each to its thread after a cursor,
 * records for every event of every `events` frame the receipt latency (`wallMs() -
 * payload.sent_at`, ms, the frame's arrival; only for events whose payload says `bench_phase:
 * "measure"`) and checks order and duplicates as events arrive, across frames and within one.
 * It counts the frames, so the report says how many events a frame carried on average.
 * `verify(expected)` compares what each client got with what was committed.
 *
 * Runs in the main thread, or in a worker thread when this file is the worker's entry
 * (bench/fanout.ts `--client-threads`); messages: {cmd:"start"|"progress"|"verify"|"close"}.
 */
import { isMainThread, parentPort, workerData } from "node:worker_threads";
import { io as connect, type Socket } from "socket.io-client";
import type { StoredEvent } from "@/lib/protocol";
import type { Ack, ClientEvents, ServerEvents } from "@/lib/realtime/contract";
import { sleep, wallMs } from "./_lib";

type ClientSocket = Socket<ServerEvents, ClientEvents>;

interface ClientState {
  socket: ClientSocket;
  thread_id: string;
  lastSeq: number;
  seen: Set<string>;
  received: number;
  duplicates: number;
  outOfOrder: number;
  unexpected: number;
  frames: number;
}

export interface DeliveryReport {
  clients: number;
  connected: number;
  deliveries: number;
  expected_deliveries: number;
  missing: number;
  duplicates: number;
  out_of_order: number;
  unexpected: number;
  activity_messages: number;
  clients_with_problems: number;
  /** `events` frames received, all clients together. */
  frames: number;
}

export class ClientGroup {
  readonly clients: ClientState[] = [];
  latencies = new Float64Array(1 << 16);
  latencyCount = 0;
  /** For each latency, the event's id and its receipt time (wall ms): the bench pairs them with the commit times. */
  receiptIds: string[] = [];
  receiptAt = new Float64Array(1 << 16);
  activity = 0;

  /** Connect with API key `token` and subscribe; resolves when every subscription is acknowledged. */
  async start(url: string, threads: string[], perThread: number, after: number, token: string): Promise<void> {
    const jobs: Promise<void>[] = [];
    for (let k = 0; k < perThread; k++) {
      for (const thread_id of threads) {
        const socket: ClientSocket = connect(url, { transports: ["websocket"], reconnection: false, forceNew: true, timeout: 20_000, auth: { token, frames: true } });
        const c: ClientState = { socket, thread_id, lastSeq: after, seen: new Set(), received: 0, duplicates: 0, outOfOrder: 0, unexpected: 0, frames: 0 };
        this.clients.push(c);
        socket.on("events", (evs) => this.onFrame(c, evs));
        socket.on("thread.activity", () => void this.activity++);
        jobs.push(
          new Promise<void>((resolve, reject) => {
            socket.once("connect_error", reject);
            socket.emit("subscribe", { thread_id, after }, (ack: Ack) => (ack.ok ? resolve() : reject(new Error(`subscribe: ${ack.error.message}`))));
          }),
        );
        if (jobs.length % 20 === 0) await sleep(20); // do not open 200 handshakes at once
      }
    }
    await Promise.all(jobs);
  }

  private onFrame(c: ClientState, events: StoredEvent[]) {
    const t = wallMs();
    c.frames++;
    for (const ev of events) this.onEvent(c, ev, t);
  }

  private onEvent(c: ClientState, ev: StoredEvent, t: number) {
    c.received++;
    if (ev.thread_id !== c.thread_id) c.unexpected++;
    if (c.seen.has(ev.id)) c.duplicates++;
    else {
      c.seen.add(ev.id);
      if (ev.seq <= c.lastSeq) c.outOfOrder++;
    }
    if (ev.seq > c.lastSeq) c.lastSeq = ev.seq;
    const p = ev.payload as { sent_at?: number; bench_phase?: string };
    if (p.bench_phase === "measure" && typeof p.sent_at === "number") {
      if (this.latencyCount === this.latencies.length) {
        const bigger = new Float64Array(this.latencies.length * 2);
        bigger.set(this.latencies);
        this.latencies = bigger;
        const at = new Float64Array(this.receiptAt.length * 2);
        at.set(this.receiptAt);
        this.receiptAt = at;
      }
      this.receiptIds.push(ev.id);
      this.receiptAt[this.latencyCount] = t;
      this.latencies[this.latencyCount++] = t - p.sent_at;
    }
  }

  /** Deliveries so far (for waiting until everything arrived). */
  deliveries(): number {
    let n = 0;
    for (const c of this.clients) n += c.seen.size;
    return n;
  }

  /** Compare with the committed events per thread (ids). */
  verify(expected: Record<string, string[]>): DeliveryReport {
    const r: DeliveryReport = { clients: this.clients.length, connected: 0, deliveries: 0, expected_deliveries: 0, missing: 0, duplicates: 0, out_of_order: 0, unexpected: 0, activity_messages: this.activity, clients_with_problems: 0, frames: 0 };
    for (const c of this.clients) {
      if (c.socket.connected) r.connected++;
      const want = expected[c.thread_id] ?? [];
      let missing = 0;
      for (const id of want) if (!c.seen.has(id)) missing++;
      const wantSet = new Set(want);
      let unexpected = c.unexpected;
      for (const id of c.seen) if (!wantSet.has(id)) unexpected++;
      r.deliveries += c.received;
      r.frames += c.frames;
      r.expected_deliveries += want.length;
      r.missing += missing;
      r.duplicates += c.duplicates;
      r.out_of_order += c.outOfOrder;
      r.unexpected += unexpected;
      if (missing || c.duplicates || c.outOfOrder || unexpected) r.clients_with_problems++;
    }
    return r;
  }

  close(): void {
    for (const c of this.clients) c.socket.disconnect();
  }
}

// Worker entry: drive a ClientGroup by messages from bench/fanout.ts.
if (!isMainThread && (workerData as { role?: string } | undefined)?.role === "fanout-clients") {
  const group = new ClientGroup();
  const { url, threads, perThread, after, token } = workerData as { url: string; threads: string[]; perThread: number; after: number; token: string };
  parentPort!.on("message", (msg: { cmd: string; expected?: Record<string, string[]> }) => {
    if (msg.cmd === "progress") parentPort!.postMessage({ cmd: "progress", deliveries: group.deliveries() });
    else if (msg.cmd === "verify") {
      const report = group.verify(msg.expected!);
      const lat = group.latencies.slice(0, group.latencyCount);
      const at = group.receiptAt.slice(0, group.latencyCount);
      parentPort!.postMessage({ cmd: "verify", report, latencies: lat, receipts: { ids: group.receiptIds, at } }, [lat.buffer, at.buffer]);
    } else if (msg.cmd === "close") {
      group.close();
      parentPort!.close();
    }
  });
  group.start(url, threads, perThread, after, token).then(
    () => parentPort!.postMessage({ cmd: "started" }),
    (err: Error) => parentPort!.postMessage({ cmd: "error", message: err.message }),
  );
}
