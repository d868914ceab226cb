/**
 * Socket.IO for the benches, arranged as the server arranges it (server.ts): in a process of its
 * own behind `httpServer` (`process`, the default on PostgreSQL: server/realtime/process.ts) or
 * in this process (`inline`). Resolves with the stop function.
 */
import fs from "node:fs";
import type { Server } from "node:http";
import os from "node:os";
import path from "node:path";
import type { Clutch } from "@/server/clutch";
import { RealtimeGateway } from "@/server/realtime/gateway";
import { startRealtimeProcess, type RealtimeProcess } from "@/server/realtime/process";

export interface BenchSockets {
  /** The realtime process, with `process`. */
  realtime: RealtimeProcess | null;
  close(): Promise<void>;
}

export async function serveSockets(mode: string, rt: Clutch, databaseUrl: string, httpServer: Server): Promise<BenchSockets> {
  if (mode === "inline") {
    const gateway = new RealtimeGateway(httpServer, rt.store, rt.tail, rt.identity);
    return { realtime: null, close: () => gateway.close() };
  }
  if (mode !== "process") throw new Error(`--realtime=${mode}: use process or inline`);
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "clutch-bench-"));
  const realtime = await startRealtimeProcess({ env: { ...process.env, DATABASE_URL: databaseUrl, LOG_LEVEL: "warn", CLUTCH_DATA_DIR: dataDir } });
  httpServer.on("request", (req, res) => (realtime.isSocketPath(req.url) ? realtime.proxy(req, res) : res.writeHead(404).end()));
  realtime.acceptUpgrades(httpServer);
  return { realtime, close: () => realtime.close() };
}
