/**
 * Socket.IO in a process of its own (server/realtime/process.ts): behind the server's one port,
 * a WebSocket client (its connection handed to the child), a long-polling client (proxied) and a
 * default client (polling, then upgraded) each receive every event of a channel appended by
 * another process, once and in order; when the realtime process dies, it is started again and
 * clients connect anew. Needs PostgreSQL (the child is a node of its own); skipped on the
 * embedded database.
 */
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { io as connect, type Socket } from "socket.io-client";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { newId, type StoredEvent } from "@/lib/protocol";
import type { Ack, ClientEvents, ServerEvents } from "@/lib/realtime/contract";
import type { Clutch } from "@/server/clutch";
import { startRealtimeProcess, type RealtimeProcess } from "@/server/realtime/process";
import { chat, newThread, testAgent, testClutch } from "./helpers";

type Client = Socket<ServerEvents, ClientEvents>;

const until = async (check: () => boolean, what: string, ms = 15_000) => {
  const end = Date.now() + ms;
  while (!check()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
};

describe.skipIf(inject("embeddedDatabase"))("realtime process", () => {
  let rt: Clutch;
  let server: Server;
  let realtime: RealtimeProcess;
  let url: string;
  let token: string;
  const clients: Client[] = [];

  beforeAll(async () => {
    rt = await testClutch();
    token = (await testAgent(rt, "agent:realtime-reader")).key;
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "clutch-realtime-"));
    realtime = await startRealtimeProcess({ env: { ...process.env, DATABASE_URL: inject("databaseUrl"), CLUTCH_DATA_DIR: dataDir, LOG_LEVEL: "warn" } });
    server = createServer((req, res) => (realtime.isSocketPath(req.url) ? realtime.proxy(req, res) : res.writeHead(404).end()));
    realtime.acceptUpgrades(server);
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  }, 90_000);
  afterAll(async () => {
    for (const c of clients) c.disconnect();
    await realtime?.close();
    server?.close();
    await rt?.stop();
  });

  /** A client on `transports`, subscribed to `thread_id` from now; collects what it receives. */
  async function subscribed(thread_id: string, transports: ("websocket" | "polling")[], after: number) {
    const socket: Client = connect(url, { transports, reconnection: false, forceNew: true, auth: { token, frames: true } });
    clients.push(socket);
    const received: StoredEvent[] = [];
    socket.on("events", (evs) => received.push(...evs));
    await new Promise<void>((resolve, reject) => {
      socket.once("connect", resolve);
      socket.once("connect_error", reject);
    });
    const ack = await new Promise<Ack>((resolve) => socket.emit("subscribe", { thread_id, after }, resolve));
    expect(ack).toEqual({ ok: true });
    return { socket, received };
  }

  it("delivers every event to WebSocket, long-polling and upgraded clients, once and in order", async () => {
    const thread_id = await newThread(rt, "realtime");
    const head = (await rt.store.append(chat("before", { thread_id, run_id: newId("run") }))).events[0]!.seq;
    const ws = await subscribed(thread_id, ["websocket"], head);
    const polling = await subscribed(thread_id, ["polling"], head);
    const upgraded = await subscribed(thread_id, ["polling", "websocket"], head);
    const run_id = newId("run");
    const texts = Array.from({ length: 30 }, (_, i) => `m${i}`);
    await Promise.all([0, 1, 2].map((w) => rt.store.append(texts.slice(w * 10, w * 10 + 10).map((t) => chat(t, { thread_id, run_id })))));
    for (const [name, c] of Object.entries({ ws, polling, upgraded })) {
      await until(() => c.received.length >= 30, `${name}: 30 events`);
      const seqs = c.received.map((e) => e.seq);
      expect(seqs, name).toEqual([...seqs].sort((a, b) => a - b));
      expect(new Set(seqs).size, name).toBe(30);
    }
    await until(() => upgraded.socket.io.engine.transport.name === "websocket", "the upgrade");
  });

  it("starts the realtime process again when it dies, and clients connect anew", async () => {
    const before = realtime.pid!;
    process.kill(before, "SIGKILL");
    await until(() => realtime.pid !== undefined && realtime.pid !== before, "a new realtime process");
    const thread_id = await newThread(rt, "realtime");
    let client: Awaited<ReturnType<typeof subscribed>> | undefined;
    for (let i = 0; !client && i < 150; i++) {
      client = await subscribed(thread_id, ["websocket"], 0).catch(async () => {
        await new Promise((r) => setTimeout(r, 200));
        return undefined;
      });
    }
    expect(client).toBeDefined();
    await rt.store.append(chat("after the restart", { thread_id, run_id: newId("run") }));
    await until(() => client!.received.some((e) => e.payload.text === "after the restart"), "the event after the restart");
  });
});
