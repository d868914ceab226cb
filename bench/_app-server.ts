/**
 * The production server (server.ts, NODE_ENV=production) on a bench database, for the browser
 * benchmarks (bench/replay.ts, bench/composer.ts): without agents, or with `{ team: true }` the
 * default workspace (examples/sales-analysis) on the built-in model writing at once. It needs a build (`npx next build`,
 * or NEXT_DIST_DIR passed on). `startAppServer` resolves once `/api/health` answers 200 and
 * throws with the server's output when it exits or does not answer within 60 s; `stop()` sends
 * SIGTERM, then SIGKILL after 10 s.
 */
import { spawn } from "node:child_process";
import http from "node:http";
import { scriptAdminEnv } from "../scripts/session";
import { ROOT, sleep } from "./_lib";

export interface AppServer {
  /** `http://localhost:<port>` */
  base: string;
  stop(): Promise<void>;
}

function httpOk(port: number): Promise<boolean> {
  return new Promise((r) => http.get({ host: "127.0.0.1", port, path: "/api/health" }, (res) => (res.resume(), r(res.statusCode === 200))).on("error", () => r(false)));
}

/**
 * Starts server.ts on `databaseUrl` and `port` with the scripts' admin (scripts/session.ts);
 * `team`: with the default workspace's agents (their replies written at once), else none.
 */
export async function startAppServer(databaseUrl: string, port: number, opts: { team?: boolean } = {}): Promise<AppServer> {
  const agents = opts.team ? { CLUTCH_BUILTIN_PACE_MS: "0" } : { CLUTCH_WORKSPACE: "none" };
  const server = spawn(process.execPath, ["--import", "tsx", "server.ts"], {
    cwd: ROOT,
    env: { ...process.env, ...scriptAdminEnv, DATABASE_URL: databaseUrl, PORT: String(port), HOST: "127.0.0.1", NODE_ENV: "production", LOG_LEVEL: "warn", ...agents },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let output = "";
  server.stdout!.on("data", (d: Buffer) => (output += d.toString()));
  server.stderr!.on("data", (d: Buffer) => (output += d.toString()));
  const stop = async () => {
    if (server.exitCode !== null) return;
    server.kill("SIGTERM");
    await Promise.race([new Promise((r) => server.once("exit", r)), sleep(10_000)]);
    if (server.exitCode === null) server.kill("SIGKILL");
  };
  for (let i = 0; !(await httpOk(port)); i++) {
    if (i > 600 || server.exitCode !== null) {
      await stop();
      throw new Error(`server.ts did not start:\n${output}`);
    }
    await sleep(100);
  }
  return { base: `http://localhost:${port}`, stop };
}
