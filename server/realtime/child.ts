/**
 * The realtime process (server/realtime/process.ts; docs/architecture.md "Fan-out"): a Clutch
 * node without agents (its own tail, woken by PostgreSQL's notifications) that serves Socket.IO:
 * the RealtimeGateway and the agents feed, on a private HTTP port on 127.0.0.1 for long-polling,
 * and on the WebSocket connections the main process hands over with their upgrade request.
 * Configured by the same environment as the server (server/config.ts). Tells its parent
 * `{ type: "ready", port }` once it serves, answers `{ type: "memory" }` with the memory it holds
 * (after a full garbage collection), and
 * stops on SIGTERM or SIGINT.
 */
import http from "node:http";
import v8 from "node:v8";
import { runInNewContext } from "node:vm";
import type { Socket } from "node:net";
import nextEnv from "@next/env";
import { createClutch } from "../clutch";
import { loadConfig } from "../config";
import { createClutchHttpServer } from "../http/timeouts";
import { log } from "../log";
import { startAgentsFeed } from "./agents-feed";
import { RealtimeGateway } from "./gateway";
import type { MemoryMessage, ReadyMessage, UpgradeMessage } from "./process";

nextEnv.loadEnvConfig(process.cwd());
const config = loadConfig();
const clutch = await createClutch({
  databaseUrl: config.databaseUrl,
  dataDir: config.dataDir,
  workspaceDir: null,
  // The server applied the migrations before it started this process.
  migrate: false,
  // The server's own process exports the runs' traces (server/telemetry).
  traces: false,
  registry: config.registry,
  publicUrl: config.publicUrl,
});
const httpServer = createClutchHttpServer(config.timeouts);
const gateway = new RealtimeGateway(httpServer, clutch.store, clutch.tail, clutch.identity, clutch.streams, clutch.bus);
const stopAgentsFeed = startAgentsFeed(gateway, { queries: clutch.store.queries, registry: clutch.registry, tail: clutch.tail });

// A WebSocket upgrade the main process accepted: the request as it read it, and the connection.
process.on("message", (m: UpgradeMessage | MemoryMessage, socket?: Socket) => {
  if (m?.type === "memory") return void process.send?.({ type: "memory", usage: memoryHeld() } satisfies MemoryMessage);
  if (m?.type !== "upgrade" || !socket) return;
  const req = new http.IncomingMessage(socket);
  req.method = m.method;
  req.url = m.url;
  req.headers = m.headers;
  httpServer.emit("upgrade", req, socket, Buffer.from(m.head, "base64"));
});

/** The memory held now: after a full garbage collection, so what is reported is what is in use. */
function memoryHeld(): NodeJS.MemoryUsage {
  v8.setFlagsFromString("--expose-gc");
  (runInNewContext("gc") as () => void)();
  return process.memoryUsage();
}

httpServer.listen(0, "127.0.0.1", () => {
  const ready: ReadyMessage = { type: "ready", port: (httpServer.address() as { port: number }).port };
  process.send?.(ready);
});

let stopping = false;
async function stop() {
  if (stopping) return;
  stopping = true;
  stopAgentsFeed();
  await gateway.close().catch(() => undefined);
  httpServer.close();
  await clutch.stop().catch((err) => log.error({ err }, "stopping the realtime process failed"));
  process.exit(0);
}
process.on("SIGTERM", () => void stop());
process.on("SIGINT", () => void stop());
// The server went away without stopping this process: nothing to serve for.
process.on("disconnect", () => void stop());
