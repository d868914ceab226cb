/**
 * Idle sockets benchmark: the memory one node's Socket.IO needs per connected, subscribed and
 * idle client (a browser tab left open). It connects `--clients` socket.io-client clients
 * (websocket transport, an API key each handshake), each subscribed to one of `--threads`
 * channels, and reads the memory of the process that serves Socket.IO before and after: the
 * realtime process (`--realtime=process`, the server's arrangement on PostgreSQL) or this one
 * (`--realtime=inline`).
 *
 *   node --import tsx bench/idle-sockets.ts [--clients=10000] [--threads=20] [--realtime=process] [--name=idle-sockets]
 *
 * Database: BENCH_DATABASE_URL, or a fresh `clutch_bench_<ts>`, migrated and dropped at the end.
 */
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import path from "node:path";
import { io as connect, type Socket } from "socket.io-client";
import type { Ack, ClientEvents, ServerEvents } from "@/lib/realtime/contract";
import { createClutch, type Clutch } from "@/server/clutch";
import { serveSockets, type BenchSockets } from "./_sockets";
import { arg, benchDatabase, createThreads, gitState, load, machine, numArg, safeUrl, sleep, writeResults } from "./_lib";

const CLIENTS = numArg("clients", 10_000);
const THREADS = numArg("threads", 20);
const REALTIME = arg("realtime", "process");
const NAME = arg("name", "idle-sockets");
/** Clients connecting at once. */
const CONCURRENCY = 200;

const mb = (bytes: number) => Math.round((bytes / 1024 / 1024) * 10) / 10;

async function main() {
  const m0 = machine();
  console.log(`idle-sockets: ${CLIENTS} clients over ${THREADS} channels, Socket.IO ${REALTIME === "process" ? "in a process of its own" : "in this process"}; load ${m0.loadavg.join(" ")}`);
  const db = await benchDatabase();
  console.log(`        database ${safeUrl(db.url)}`);
  let rt: Clutch | undefined;
  let served: BenchSockets | undefined;
  const sockets: Socket<ServerEvents, ClientEvents>[] = [];
  const httpServer = createServer();
  try {
    rt = await createClutch({ databaseUrl: db.url, dataDir: "", workspaceDir: null });
    const threads = await createThreads(rt.store, THREADS, "idle");
    served = await serveSockets(REALTIME, rt, db.url, httpServer);
    const realtime = served.realtime;
    const { key: token } = await rt.identity.keys.create("agent:bench-reader", "idle sockets bench", "system");
    await new Promise<void>((r) => httpServer.listen(0, "127.0.0.1", r));
    const url = `http://127.0.0.1:${(httpServer.address() as AddressInfo).port}`;
    const memory = async () => {
      if (realtime) return realtime.memory();
      global.gc?.();
      return process.memoryUsage();
    };
    await sleep(500);
    const before = await memory();

    const t0 = performance.now();
    let next = 0;
    let failed = 0;
    const connectOne = async (i: number) => {
      const socket: Socket<ServerEvents, ClientEvents> = connect(url, { transports: ["websocket"], reconnection: false, forceNew: true, auth: { token } });
      sockets.push(socket);
      await new Promise<void>((resolve) => {
        socket.once("connect", () => socket.emit("subscribe", { thread_id: threads[i % threads.length]!, after: 0 }, (ack: Ack) => (ack.ok ? resolve() : (failed++, resolve()))));
        socket.once("connect_error", () => (failed++, resolve()));
      });
    };
    await Promise.all(
      Array.from({ length: CONCURRENCY }, async () => {
        while (next < CLIENTS) await connectOne(next++);
      }),
    );
    const connectS = (performance.now() - t0) / 1000;
    await sleep(2000);
    const after = await memory();
    const perClientKb = Math.round(((after.heapUsed - before.heapUsed) / CLIENTS / 1024) * 10) / 10;
    console.log(`connected ${CLIENTS - failed} of ${CLIENTS} in ${connectS.toFixed(1)} s`);
    console.log(`memory of the Socket.IO process: heap used ${mb(before.heapUsed)} → ${mb(after.heapUsed)} MB, RSS ${mb(before.rss)} → ${mb(after.rss)} MB (${perClientKb} KB of heap per client)`);
    const file = writeResults(NAME, {
      bench: "idle-sockets",
      machine: { ...m0, loadavg_end: load() },
      git: gitState(),
      options: { clients: CLIENTS, threads: THREADS, realtime: REALTIME },
      connected: CLIENTS - failed,
      connect_s: Math.round(connectS * 10) / 10,
      heap_used_mb: { before: mb(before.heapUsed), after: mb(after.heapUsed) },
      rss_mb: { before: mb(before.rss), after: mb(after.rss) },
      heap_kb_per_client: perClientKb,
    });
    console.log(`results: ${path.relative(process.cwd(), file)}`);
  } finally {
    for (const s of sockets) s.disconnect();
    await served?.close();
    httpServer.close();
    await rt?.stop();
    await db.drop();
  }
}

await main();
