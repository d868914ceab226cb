/**
 * Socket.IO in a process of its own (docs/architecture.md "Fan-out"): on PostgreSQL the server
 * forks `server/realtime/child.ts`, which tails the log itself (LISTEN/NOTIFY, like any node) and
 * runs the RealtimeGateway and the agents feed, so writing every event to hundreds of sockets
 * does not share an event loop with the append path, the API and the agents.
 *
 * The main process keeps the one public port. A WebSocket upgrade on `/socket.io/` is handed to
 * the child with its TCP connection (`child.send(message, socket)`): from then on the child owns
 * the connection and the main process carries none of its traffic. Socket.IO's HTTP long-polling
 * requests (its first requests, and clients that cannot upgrade) are proxied to the child's
 * private port on 127.0.0.1.
 *
 *   const realtime = await startRealtimeProcess({ env });
 *   realtime.acceptUpgrades(httpServer);
 *   httpServer.on("request", (req, res) => realtime.isSocketPath(req.url) ? realtime.proxy(req, res) : …);
 *   await realtime.close();
 *
 * A child that exits unexpectedly is started again (after 1 s, doubling to 30 s); clients
 * reconnect by themselves (components/live/socket.ts). Rejects when the first child does not
 * start within 60 s.
 */
import { fork, type ChildProcess } from "node:child_process";
import http, { type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { Duplex } from "node:stream";
import type { Socket } from "node:net";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { log } from "../log";

/** What the main process sends the child with an upgrade's connection. */
export interface UpgradeMessage {
  type: "upgrade";
  method: string;
  url: string;
  headers: IncomingMessage["headers"];
  /** The first bytes after the upgrade request, base64. */
  head: string;
}

/** What the child sends back: its private port once it serves. */
export interface ReadyMessage {
  type: "ready";
  port: number;
}

/** Asked of the child, and its answer: its memory (`process.memoryUsage()`, bytes). */
export interface MemoryMessage {
  type: "memory";
  usage?: NodeJS.MemoryUsage;
}

const isSocketPath = (url: string | undefined) => (url ?? "").startsWith("/socket.io/");

const CHILD = path.join(path.dirname(fileURLToPath(import.meta.url)), "child.ts");
/** The child is TypeScript, run as the server is: through tsx. */
const EXEC_ARGV = process.execArgv.some((a) => a.includes("tsx")) ? process.execArgv : [...process.execArgv, "--import", "tsx"];
const START_TIMEOUT_MS = 60_000;
const STOP_TIMEOUT_MS = 5_000;

export interface RealtimeProcess {
  /** Whether `url` is Socket.IO's (`/socket.io/…`). */
  isSocketPath(url: string | undefined): boolean;
  /** Hand the WebSocket upgrades `server` gets on `/socket.io/` to the child, with their connections. */
  acceptUpgrades(server: Server): void;
  /** Proxy a long-polling request to the child; 503 while it is not serving. */
  proxy(req: IncomingMessage, res: ServerResponse): void;
  /** Stop the child (its gateway closes every connection). */
  close(): Promise<void>;
  /** The child's process id while it runs (operators, tests). */
  readonly pid: number | undefined;
  /** The child's memory now (`process.memoryUsage()`, bytes); rejects when it is not running. */
  memory(): Promise<NodeJS.MemoryUsage>;
}

/** Fork the realtime child with `env` and resolve once it serves (see the module doc). */
export async function startRealtimeProcess(opts: { env: NodeJS.ProcessEnv }): Promise<RealtimeProcess> {
  let child: ChildProcess | null = null;
  let port = 0;
  let stopping = false;
  let served = false;
  let backoff = 1000;

  const spawnChild = () =>
    new Promise<void>((resolve, reject) => {
      const c = fork(CHILD, [], { execArgv: EXEC_ARGV, env: opts.env, stdio: "inherit" });
      child = c;
      const timer = setTimeout(() => reject(new Error("the realtime process did not start within 60 s")), START_TIMEOUT_MS);
      c.on("message", (m: ReadyMessage) => {
        if (m?.type !== "ready") return;
        clearTimeout(timer);
        port = m.port;
        served = true;
        backoff = 1000;
        resolve();
      });
      c.on("exit", (code, signal) => {
        clearTimeout(timer);
        if (child === c) {
          child = null;
          port = 0;
        }
        reject(new Error(`the realtime process exited (${signal ?? code}) before it served`));
        if (stopping || !served) return; // a first start that fails is the caller's to report
        log.error({ code, signal, retryInMs: backoff }, "the realtime process exited; starting it again");
        setTimeout(() => void spawnChild().catch((err) => log.error({ err }, "the realtime process did not start")), backoff).unref();
        backoff = Math.min(backoff * 2, 30_000);
      });
    });

  await spawnChild();

  return {
    get pid() {
      return (child as ChildProcess | null)?.pid;
    },
    memory() {
      const c = child as ChildProcess | null;
      if (!c?.connected) return Promise.reject(new Error("the realtime process is not running"));
      return new Promise((resolve) => {
        const onMessage = (m: MemoryMessage) => {
          if (m?.type !== "memory" || !m.usage) return;
          c.off("message", onMessage);
          resolve(m.usage);
        };
        c.on("message", onMessage);
        c.send({ type: "memory" } satisfies MemoryMessage);
      });
    },
    isSocketPath,
    acceptUpgrades(server) {
      server.on("upgrade", (req: IncomingMessage, socket: Duplex, head: Buffer) => {
        if (!isSocketPath(req.url)) return;
        if (!child?.connected) return void socket.destroy();
        const message: UpgradeMessage = { type: "upgrade", method: req.method ?? "GET", url: req.url ?? "/", headers: req.headers, head: head.toString("base64") };
        child.send(message, socket as Socket, (err) => err && socket.destroy());
      });
    },
    proxy(req, res) {
      if (!port) {
        res.writeHead(503, { "content-type": "application/json", "retry-after": "1" });
        return void res.end(JSON.stringify({ error: { code: "realtime_unavailable", message: "live updates are restarting; try again in a second" } }));
      }
      const upstream = http.request({ host: "127.0.0.1", port, method: req.method, path: req.url, headers: req.headers }, (r) => {
        res.writeHead(r.statusCode ?? 502, r.headers);
        r.pipe(res);
      });
      upstream.on("error", () => {
        if (!res.headersSent) res.writeHead(502, { "content-type": "application/json" });
        res.end();
      });
      req.pipe(upstream);
    },
    async close() {
      stopping = true;
      const c = child as ChildProcess | null;
      if (!c || c.exitCode !== null) return;
      const exited = new Promise((r) => c.once("exit", r));
      c.kill("SIGTERM");
      const timer = setTimeout(() => c.kill("SIGKILL"), STOP_TIMEOUT_MS);
      await exited;
      clearTimeout(timer);
    },
  };
}
