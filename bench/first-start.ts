/**
 * First start benchmark (docs/benchmarks.md "Targets"): what a newcomer waits for after
 * `git clone`, as the README tells them to start Clutch: `npm install && npm start`.
 *
 *   node --import tsx bench/first-start.ts [--source=<repo>] [--rev=HEAD] [--keep] [--name=first-start]
 *
 * 1. `git clone` of --source (default: this checkout) into a fresh temp folder, then a checkout
 *    of --rev as that repository resolves it (default HEAD: the commit this checkout is on).
 * 2. `npm install --no-audit --no-fund`, timed on its own; its output lines that mention a
 *    warning or a deprecation are kept (target: none a newcomer must interpret). npm's cache of
 *    this machine is warm, so this is the install of a second clone, not of a first download.
 * 3. `npm start` with the embedded default (no DATABASE_URL: PGlite under the clone's `.clutch/`,
 *    the default workspace and its agents), PORT a free port: from spawn until the console line
 *    "Clutch is ready: http://localhost:<port>", with the build inside it (scripts/start.mjs
 *    builds when no build exists). Target ≤ 60 s including the build. Also whether the setup
 *    link follows (it should on a first start).
 * 4. SIGTERM to its process group, timed until it exits; then `npm start` again (the restart:
 *    the build is there, the database migrated) until the same line; stopped the same way.
 * Every process it started is stopped (SIGTERM to its group, SIGKILL to what is left after 20 s) and the temp
 * folder removed, also on failure, unless --keep.
 *
 * First line: the machine's calibration (bench/_lib.ts `calibrate`) and load; both are in
 * bench/results/<--name>.json with the figures (seconds).
 */
import { spawn, type ChildProcess } from "node:child_process";
import fs from "node:fs";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import { arg, calibrate, calibrationLine, flag, gitState, load, machine, ROOT, sleep, writeResults } from "./_lib";

const SOURCE = arg("source", ROOT);
const REV = arg("rev", "HEAD");
const NAME = arg("name", "first-start");
const KEEP = flag("keep");
/** How long one step may take before the bench gives up on it (s). */
const STEP_TIMEOUT_S = Number(arg("timeout", "1200"));

const READY = /Clutch is ready: (http:\/\/localhost:\d+)/;
const SETUP = /Set up your workspace .*\/setup/;

/** The environment of a newcomer's shell: this one without what would point Clutch elsewhere. */
function newcomerEnv(port: number): NodeJS.ProcessEnv {
  const env: Record<string, string | undefined> = {};
  for (const [k, v] of Object.entries(process.env)) {
    if (k === "DATABASE_URL" || k === "NODE_ENV" || k === "PORT" || k === "HOST" || k === "NEXT_DIST_DIR") continue;
    if (k.startsWith("BENCH_") || k.startsWith("CLUTCH_") || k.startsWith("npm_")) continue;
    env[k] = v;
  }
  // No NODE_ENV, as in a newcomer's shell (scripts/start.mjs sets it for the server).
  return { ...env, PORT: String(port) } as unknown as NodeJS.ProcessEnv;
}

async function freePort(): Promise<number> {
  const srv = net.createServer();
  await new Promise<void>((r) => srv.listen(0, "127.0.0.1", r));
  const port = (srv.address() as net.AddressInfo).port;
  await new Promise((r) => srv.close(r));
  return port;
}

interface Proc {
  child: ChildProcess;
  /** Every output line with its time since spawn (s). */
  lines: { t: number; line: string }[];
  exited: Promise<number | null>;
  /** SIGTERM to the process group, SIGKILL to what is left of it after 20 s; resolves with the seconds until it was gone. */
  stop(): Promise<number>;
}

/** Spawns `cmd` in a process group of its own (so all of it can be stopped), collecting its lines. */
function run(cmd: string, args: string[], cwd: string, env: NodeJS.ProcessEnv, echo: string): Proc {
  const t0 = performance.now();
  const child = spawn(cmd, args, { cwd, env, detached: true, stdio: ["ignore", "pipe", "pipe"] });
  const lines: Proc["lines"] = [];
  for (const stream of [child.stdout!, child.stderr!]) {
    let rest = "";
    stream.on("data", (d: Buffer) => {
      const parts = (rest + d.toString()).split("\n");
      rest = parts.pop()!;
      for (const line of parts) {
        lines.push({ t: (performance.now() - t0) / 1000, line });
        if (echo && !line.startsWith("{")) console.log(`  ${echo} | ${line}`);
      }
    });
  }
  const exited = new Promise<number | null>((r) => child.once("exit", (code) => r(code)));
  const signal = (sig: NodeJS.Signals) => {
    try {
      process.kill(-child.pid!, sig);
    } catch {
      /* the group is gone */
    }
  };
  const groupAlive = () => {
    try {
      process.kill(-child.pid!, 0);
      return true;
    } catch {
      return false;
    }
  };
  const stop = async () => {
    const s = performance.now();
    if (child.exitCode === null && child.signalCode === null) {
      signal("SIGTERM");
      // npm may exit before the server has closed its database: wait for the whole group.
      const end = performance.now() + 20_000;
      while (groupAlive() && performance.now() < end) await sleep(100);
    }
    // Whatever of the group outlived that.
    signal("SIGKILL");
    live.delete(stop);
    return Math.round(performance.now() - s) / 1000;
  };
  live.add(stop);
  return { child, lines, exited, stop };
}

/** The stops of every process group still running, for a failure or Ctrl-C. */
const live = new Set<() => Promise<number>>();

/** Resolves with the seconds until `p` exits 0; rejects on another code or after the timeout. */
async function finished(p: Proc, what: string): Promise<number> {
  const t0 = performance.now();
  let timer: NodeJS.Timeout | undefined;
  const code = await Promise.race([p.exited, new Promise<"timeout">((r) => (timer = setTimeout(() => r("timeout"), STEP_TIMEOUT_S * 1000)))]);
  clearTimeout(timer); // a pending timer would keep the bench running after its figures
  if (code !== 0) throw new Error(`${what} ${code === "timeout" ? `took over ${STEP_TIMEOUT_S} s` : `exited with ${code}`}:\n${p.lines.slice(-30).map((l) => l.line).join("\n")}`);
  await p.stop(); // only what it left behind in its group
  return Math.round(performance.now() - t0) / 1000;
}

/** `npm start` until its "Clutch is ready" line: the seconds, the URL, the setup line and the phases. */
async function startUntilReady(dir: string, port: number, label: string) {
  const p = run("npm", ["start"], dir, newcomerEnv(port), label);
  const t0 = performance.now();
  const deadline = t0 + STEP_TIMEOUT_S * 1000;
  let ready: { t: number; line: string } | undefined;
  while (!(ready = p.lines.find((l) => READY.test(l.line)))) {
    if (p.child.exitCode !== null) throw new Error(`npm start exited (${p.child.exitCode}) before it was ready:\n${p.lines.slice(-30).map((l) => l.line).join("\n")}`);
    if (performance.now() > deadline) throw new Error(`npm start was not ready in ${STEP_TIMEOUT_S} s:\n${p.lines.slice(-30).map((l) => l.line).join("\n")}`);
    await sleep(50);
  }
  await sleep(500); // the setup line follows the ready line
  const at = (re: RegExp) => p.lines.find((l) => re.test(l.line))?.t ?? null;
  const r = (x: number | null) => (x === null ? null : Math.round(x * 10) / 10);
  const buildStarted = at(/building the web app|Sources changed since the last build/);
  // server.ts's first line (a JSON log line) comes right after the build, before its migrations.
  const serverStarted = p.lines.find((l) => l.t >= (buildStarted ?? 0) && l.line.startsWith("{"))?.t ?? null;
  return {
    proc: p,
    figures: {
      ready_s: r(ready.t),
      url: READY.exec(ready.line)![1]!,
      setup_line: p.lines.some((l) => SETUP.test(l.line)),
      built: buildStarted !== null,
      /** Seconds from spawn: the build started, server.ts's first log line (the build done). */
      phases_s: { build_started: r(buildStarted), server_started: r(serverStarted) },
      build_s: buildStarted !== null && serverStarted !== null ? r(serverStarted - buildStarted) : null,
      last_lines: p.lines.filter((l) => !l.line.startsWith("{")).slice(-4).map((l) => l.line),
    },
  };
}

async function main() {
  const calibration = await calibrate();
  console.log(calibrationLine(calibration));
  const started = new Date().toISOString();
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "clutch-first-start-"));
  const cleanup = async () => {
    for (const stop of live) await stop();
    live.clear();
    if (KEEP) console.log(`kept ${dir}`);
    else fs.rmSync(dir, { recursive: true, force: true });
  };
  for (const sig of ["SIGINT", "SIGTERM"] as const) process.once(sig, () => void cleanup().finally(() => process.exit(130)));
  try {
    const env = newcomerEnv(0);
    const rev = await new Promise<string>((resolve, reject) => {
      const p = spawn("git", ["rev-parse", REV], { cwd: SOURCE, stdio: ["ignore", "pipe", "inherit"] });
      let out = "";
      p.stdout.on("data", (d: Buffer) => (out += d.toString()));
      p.once("exit", (code) => (code === 0 ? resolve(out.trim()) : reject(new Error(`git rev-parse ${REV} in ${SOURCE} failed`))));
    });
    console.log(`first start of ${rev.slice(0, 9)} from ${SOURCE}, in ${dir}`);
    const clone = run("git", ["clone", "--quiet", "--no-checkout", SOURCE, dir], os.tmpdir(), env, "");
    const cloneS = await finished(clone, "git clone");
    const checkout = run("git", ["checkout", "--quiet", rev], dir, env, "");
    const checkoutS = await finished(checkout, "git checkout");
    console.log(`git clone ${cloneS} s, checkout ${checkoutS} s`);

    const install = run("npm", ["install", "--no-audit", "--no-fund"], dir, env, "npm install");
    const installS = await finished(install, "npm install");
    const warnings = install.lines.map((l) => l.line).filter((l) => /warn|deprecat/i.test(l));
    console.log(`npm install: ${installS} s; ${warnings.length} warning line(s)${warnings.length ? `: ${warnings.slice(0, 5).join(" | ")}` : ""}`);

    const port = await freePort();
    const first = await startUntilReady(dir, port, "first start");
    const firstStopS = await first.proc.stop();
    console.log(`first npm start → "Clutch is ready": ${first.figures.ready_s} s (build ${first.figures.build_s ?? "?"} s); setup link ${first.figures.setup_line ? "shown" : "NOT shown"}; stopped in ${firstStopS} s; load ${load().join(" ")}`);

    const again = await startUntilReady(dir, port, "restart");
    const againStopS = await again.proc.stop();
    console.log(`restart npm start → "Clutch is ready": ${again.figures.ready_s} s${again.figures.built ? " (it built again!)" : ""}; stopped in ${againStopS} s; load ${load().join(" ")}`);

    const result = {
      bench: "first-start",
      started_at: started,
      finished_at: new Date().toISOString(),
      calibration,
      machine: { ...machine(), loadavg_end: load() },
      git: { ...gitState(), source: SOURCE, rev },
      clone_s: cloneS,
      checkout_s: checkoutS,
      npm_install: { seconds: installS, warning_lines: warnings },
      first_start: { ...first.figures, stop_s: firstStopS },
      restart: { ...again.figures, stop_s: againStopS },
      targets: { first_start_s: 60 },
    };
    console.log(`first start ${result.first_start.ready_s} s (target ≤ 60 s including the build), restart ${result.restart.ready_s} s, npm install ${installS} s; ${calibrationLine(calibration)}`);
    console.log(`results: ${path.relative(process.cwd(), writeResults(NAME, result))}`);
  } finally {
    await cleanup();
  }
}

await main();
