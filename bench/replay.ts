/**
 * Replay benchmark (docs/benchmarks.md): large runs stay fast. It generates a run of 5,000 tasks
 * and 50,000 events, opens it in Chromium and prints time to first paint and scrub latency.
 * Targets: first paint < 1 s and all events < 2 s on a box whose calibration (bench/_lib.ts
 * `calibrate`, printed on the first line and stored in the results) is 1.8 s; scrub < 100 ms.
 *
 *   node --import tsx bench/replay.ts [options]
 *
 * 1. A fresh database (bench/_lib.ts `benchDatabase`), and one run appended through the real
 *    append path (`store.append`, batches of --batch): a root task, --fanout subtasks, and the
 *    rest of --tasks tasks under those; every task has a routing.decision, request, accept, two
 *    progress events, two tool.call/tool.result pairs and a result (about 3 % fail instead),
 *    --events in all; tasks run interleaved, --concurrency at a time.
 * 2. The production server (server.ts, NODE_ENV=production, no agents) on that database.
 *    It needs a build: `npx next build` (or NEXT_DIST_DIR=<dir> for a build elsewhere, passed
 *    on to the server). Without one the bench stops after step 1 and says so.
 * 3. Chromium (playwright-core, /usr/bin/chromium, the args of playwright.config.ts) opens
 *    `/runs/:id` at 1280×800 and measures, inside the page:
 *      - first paint: navigation start → the first task node of the graph visible (the next
 *        animation frame after it is in the DOM and not hidden);
 *      - all events loaded: navigation start → the timeline holds every event;
 *      - scrub latency, --jumps times: a jump of the timeline slider to a random event (the
 *        input event a drag fires) → the graph showing the state at that event (the run node
 *        of the React Flow canvas reports that event count) and the next animation frame.
 *        p50/p95/max; also one-event steps with the → key.
 * Prints the figures and writes bench/results/<--name>.json.
 *
 * Options (or env BENCH_<NAME>): --tasks=5000 --events=50000 --fanout=50 --concurrency=24
 *   --batch=1000 --jumps=30 --port=3460 --name=replay --keep (keep the database)
 *   --no-browser (only append the run; with BENCH_DATABASE_URL, e.g. into a dev database)
 */
import fs from "node:fs";
import path from "node:path";
import { chromium } from "playwright-core";
import { makeMessage, newId, type ClutchMessage, type MessageType, type PayloadOf } from "@/lib/protocol";
import { createClutch } from "@/server/clutch";
import { databaseOf } from "@/server/events/testing";
import { CHROMIUM_ARGS } from "../playwright.config";
import { arg, atReference, benchDatabase, calibrate, calibrationLine, flag, gitState, machine, REFERENCE_CALIBRATION_S, numArg, ROOT, safeUrl, summarize, writeResults } from "./_lib";
import { signIn } from "../scripts/session";
import { startAppServer, type AppServer } from "./_app-server";

const TASKS = numArg("tasks", 5000);
const EVENTS = numArg("events", 50_000);
const FANOUT = numArg("fanout", 50);
const CONCURRENCY = numArg("concurrency", 24);
const BATCH = numArg("batch", 1000);
const JUMPS = numArg("jumps", 30);
const PORT = numArg("port", 3460);
const NAME = arg("name", "replay");
const KEEP = flag("keep");
const BROWSER = !flag("no-browser");

/** mulberry32, so runs repeat. */
function rng(seed: number) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const AGENTS = ["agent:analyst-1", "agent:analyst-2", "agent:researcher-1", "agent:coder-1", "agent:qa-1"];
const WORDS = "revenue churn cohort quarter forecast pipeline region segment retention margin backlog customer pricing invoice anomaly dashboard query schema".split(" ");

/** The run's messages in the order the agents would append them. */
function generateRun(thread_id: string): { run_id: string; messages: ClutchMessage[] } {
  const rand = rng(7);
  const pick = <T>(xs: readonly T[]) => xs[Math.floor(rand() * xs.length)]!;
  const words = (n: number) => Array.from({ length: n }, () => pick(WORDS)).join(" ");
  const run_id = newId("run");
  const t0 = Date.now() - 3_600_000;
  let clock = t0;
  const tasks: { id: string; parent: string | null; agent: string; title: string }[] = [];
  const root = { id: newId("task"), parent: null, agent: "agent:pm-1", title: `Quarterly review of ${words(3)}` };
  tasks.push(root);
  const level1: string[] = [];
  for (let i = 0; i < Math.min(FANOUT, TASKS - 1); i++) {
    const t = { id: newId("task"), parent: root.id, agent: pick(AGENTS), title: `Part ${i + 1}: ${words(4)}` };
    tasks.push(t);
    level1.push(t.id);
  }
  for (let i = tasks.length; i < TASKS; i++) {
    tasks.push({ id: newId("task"), parent: level1[i % level1.length]!, agent: pick(AGENTS), title: `Step ${i}: ${words(5)}` });
  }
  const perTask = Math.max(4, Math.floor(EVENTS / TASKS));

  const msg = <T extends MessageType>(type: T, payload: PayloadOf<T>, t: (typeof tasks)[number], from: string, extra: Partial<ClutchMessage> = {}): ClutchMessage => {
    clock += 5 + Math.floor(rand() * 40);
    return makeMessage({
      thread_id,
      run_id,
      task_id: t.id,
      parent_task_id: t.parent,
      type,
      payload,
      from: { agent_id: from, role: from === "agent:orchestrator" ? "orchestrator" : "worker" },
      to: [],
      ts: new Date(clock).toISOString(),
      ...extra,
    });
  };
  /** One task's events as a queue of thunks; the last one (its outcome) waits for its children. */
  const script = (t: (typeof tasks)[number]): (() => ClutchMessage)[] => {
    const s: (() => ClutchMessage)[] = [
      () => msg("routing.decision", { selected: t.agent, candidates: [t.agent, "agent:analyst-2"], reason: `capability match; lowest load (${words(2)})`, scores: { [t.agent]: 0.9, "agent:analyst-2": 0.6 } }, t, "agent:orchestrator"),
      () => msg("task.request", { title: t.title, instructions: words(24) }, t, t.parent ? "agent:pm-1" : "user:bench", { to: [{ agent_id: t.agent }] }),
      () => msg("task.accept", { agent_id: t.agent }, t, t.agent),
      () => msg("task.progress", { message: `reading ${words(2)}`, percent: 20 }, t, t.agent),
    ];
    const calls = Math.max(0, Math.floor((perTask - 6) / 2));
    for (let c = 0; c < calls; c++) {
      const call_id = newId("call");
      s.push(
        () => msg("tool.call", { call_id, tool: "query_data", server_id: "mcp:DataServer", arguments: { sql: `SELECT region, sum(sales) FROM orders WHERE segment = '${pick(WORDS)}' GROUP BY region` } }, t, t.agent),
        () =>
          msg("tool.result", { call_id, tool: "query_data", server_id: "mcp:DataServer", result: { rows: Array.from({ length: 6 }, (_, r) => ({ region: pick(["East", "West", "Central", "South"]), sales: Math.round(rand() * 1e6) / 100, rank: r + 1 })) }, duration_ms: Math.round(rand() * 300) }, t, t.agent),
      );
    }
    s.push(() => msg("task.progress", { message: "aggregating", percent: 80 }, t, t.agent));
    s.push(() =>
      rand() < 0.03
        ? msg("task.error", { code: "DATA_MISSING", message: `no rows for ${words(2)}`, retryable: false }, t, t.agent)
        : msg("task.result", { summary: words(20) }, t, t.agent),
    );
    return s;
  };

  // Interleave: up to CONCURRENCY tasks at once; a task starts once its parent was accepted, and
  // ends only after its children ended.
  const children = new Map<string, string[]>();
  for (const t of tasks) if (t.parent) children.set(t.parent, [...(children.get(t.parent) ?? []), t.id]);
  const byId = new Map(tasks.map((t) => [t.id, t]));
  const open = new Map<string, number>(); // task → children not ended
  const out: ClutchMessage[] = [];
  const ready: string[] = [root.id];
  const active: { id: string; steps: (() => ClutchMessage)[] }[] = [];
  const waiting = new Map<string, () => ClutchMessage>(); // outcome held until children end
  const finish = (id: string) => {
    const p = byId.get(id)!.parent;
    if (!p) return;
    const left = (open.get(p) ?? 1) - 1;
    open.set(p, left);
    if (left === 0 && waiting.has(p)) {
      out.push(waiting.get(p)!());
      waiting.delete(p);
      finish(p);
    }
  };
  while (ready.length || active.length) {
    while (active.length < CONCURRENCY && ready.length) {
      const id = ready.shift()!;
      active.push({ id, steps: script(byId.get(id)!) });
    }
    const k = Math.floor(rand() * active.length);
    const a = active[k]!;
    if (a.steps.length === 1) {
      // The outcome: now, or once the children have ended.
      const kids = children.get(a.id) ?? [];
      active.splice(k, 1);
      if (kids.length && (open.get(a.id) ?? 0) > 0) waiting.set(a.id, a.steps[0]!);
      else {
        out.push(a.steps[0]!());
        finish(a.id);
      }
      continue;
    }
    const ev = a.steps.shift()!();
    out.push(ev);
    if (ev.type === "task.accept") {
      const kids = children.get(a.id) ?? [];
      open.set(a.id, kids.length);
      ready.push(...kids);
    }
  }
  return { run_id, messages: out };
}


async function main() {
  const distDir = process.env.NEXT_DIST_DIR || ".next";
  const built = fs.existsSync(path.join(ROOT, distDir, "BUILD_ID"));
  const calibration = await calibrate();
  console.log(calibrationLine(calibration));
  const db = await benchDatabase();
  console.log(`database ${safeUrl(db.url)}${db.created ? " (fresh)" : ""}`);
  let server: AppServer | undefined;
  try {
    // 1. The run, through the real append path.
    const rt = await createClutch({ databaseUrl: db.url, dataDir: "", workspaceDir: null });
    const thread = await rt.store.createThread({ name: `replay-${Date.now().toString(36)}`, topic: "replay benchmark" }, { agent_id: "user:bench" });
    const gen0 = performance.now();
    const { run_id, messages } = generateRun(thread.id);
    const genMs = performance.now() - gen0;
    const app0 = performance.now();
    for (let i = 0; i < messages.length; i += BATCH) await rt.store.append(messages.slice(i, i + BATCH));
    const appendMs = performance.now() - app0;
    const counts = await databaseOf(rt.store).$queryRawUnsafe<{ events: bigint; tasks: bigint }[]>(
      `SELECT (SELECT count(*) FROM events WHERE run_id = $1) AS events, (SELECT count(*) FROM tasks WHERE run_id = $1) AS tasks`,
      run_id,
    );
    await rt.stop();
    const stored = { events: Number(counts[0]!.events), tasks: Number(counts[0]!.tasks) };
    console.log(`run ${run_id}: ${stored.tasks} tasks, ${stored.events} events appended in ${(appendMs / 1000).toFixed(1)} s (generated in ${genMs.toFixed(0)} ms)`);

    if (!BROWSER) return;
    if (!built) {
      console.log(`no production build in ${distDir}/ (BUILD_ID missing): run \`npx next build\` first; stopping before the browser part`);
      writeResults(NAME, { at: new Date().toISOString(), calibration, machine: machine(), git: gitState(), run: { run_id, ...stored }, browser: null, note: "no production build" });
      return;
    }

    // 2. The production server.
    server = await startAppServer(db.url, PORT);
    const base = server.base;
    const session = await signIn(base);
    // Warm the server (first requests compile nothing in production, but fill caches and JITs).
    await fetch(`${base}/runs/${run_id}`, { headers: { cookie: session.header } }).then((r) => r.text());
    await fetch(`${base}/api/runs/${run_id}`, { headers: { cookie: session.header } }).then((r) => r.text());

    // 3. Chromium.
    const browser = await chromium.launch({ executablePath: "/usr/bin/chromium", args: CHROMIUM_ARGS });
    const open = async () => {
      const page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
      await page.context().addCookies(session.cookies);
      // Page scripts are strings: tsx's esbuild would wrap named functions in a helper the page lacks.
      await page.addInitScript(`(() => {
        const check = () => {
          const el = document.querySelector(".react-flow__node-task");
          if (el && window.__firstGraphPaint === undefined && getComputedStyle(el).visibility === "visible") {
            requestAnimationFrame(() => { if (window.__firstGraphPaint === undefined) window.__firstGraphPaint = performance.now(); });
          }
          const status = document.querySelector('[aria-label="Replay"] [role="status"]');
          const total = document.querySelector('input[aria-label="Replay position"]');
          if (window.__firstGraphPaint !== undefined && !status && total && Number(total.max) > 0 && window.__eventsLoaded === undefined) window.__eventsLoaded = performance.now();
          if (window.__eventsLoaded === undefined) requestAnimationFrame(check);
        };
        requestAnimationFrame(check);
      })()`);
      await page.goto(`${base}/runs/${run_id}`, { waitUntil: "commit" });
      await page.waitForFunction("window.__eventsLoaded !== undefined", null, { timeout: 120_000 });
      return page;
    };
    // A first visit warms the browser's caches of the JS bundles; the second is measured.
    const warm = await open();
    await warm.close();
    const page = await open();
    const times = (await page.evaluate(`(() => {
      const nav = performance.getEntriesByType("navigation")[0];
      const res = performance.getEntriesByType("resource");
      const detail = res.find((e) => e.name.includes("/api/runs/") && !e.name.includes("/events"));
      const scripts = res.filter((e) => e.name.endsWith(".js"));
      return {
        firstPaint: window.__firstGraphPaint,
        eventsLoaded: window.__eventsLoaded,
        html: nav.responseEnd,
        scripts: Math.max(0, ...scripts.map((e) => e.responseEnd)),
        detailStart: detail ? detail.startTime : null,
        detailEnd: detail ? detail.responseEnd : null,
      };
    })()`)) as { firstPaint: number; eventsLoaded: number; html: number; scripts: number; detailStart: number | null; detailEnd: number | null };
    const total = Number(await page.locator('input[aria-label="Replay position"]').getAttribute("max"));
    const nodesShown = await page.locator(".react-flow__node").count();

    // Scrub: jumps of the slider to random events.
    const rand = rng(11);
    const targets = Array.from({ length: JUMPS }, () => 1 + Math.floor(rand() * (total - 1)));
    const jumps: number[] = [];
    for (const n of targets) {
      const ms = (await page.evaluate(`(async (target) => {
        const input = document.querySelector('input[aria-label="Replay position"]');
        const setter = Object.getOwnPropertyDescriptor(HTMLInputElement.prototype, "value").set;
        const t0 = performance.now();
        setter.call(input, String(target));
        input.dispatchEvent(new Event("input", { bubbles: true }));
        await new Promise((resolve) => {
          const check = () => {
            const run = document.querySelector("[data-run-node]");
            if (run && run.getAttribute("data-count") === String(target)) requestAnimationFrame(() => resolve());
            else requestAnimationFrame(check);
          };
          check();
        });
        return performance.now() - t0;
      })(${n})`)) as number;
      jumps.push(ms);
    }
    // One-event steps with the keyboard.
    await page.locator("body").click({ position: { x: 5, y: 5 } }).catch(() => {});
    const steps: number[] = [];
    for (let i = 0; i < 20; i++) {
      const ms = (await page.evaluate(`(async () => {
        const before = Number(document.querySelector("[data-run-node]").getAttribute("data-count"));
        const t0 = performance.now();
        window.dispatchEvent(new KeyboardEvent("keydown", { key: "ArrowRight", bubbles: true }));
        await new Promise((resolve) => {
          const check = () => {
            if (Number(document.querySelector("[data-run-node]").getAttribute("data-count")) === before + 1) requestAnimationFrame(() => resolve());
            else requestAnimationFrame(check);
          };
          check();
        });
        return performance.now() - t0;
      })()`)) as number;
      steps.push(ms);
    }
    const heap = (await page.evaluate("performance.memory ? performance.memory.usedJSHeapSize : null")) as number | null;
    await browser.close();

    const r = (x: number) => Math.round(x * 10) / 10;
    const result = {
      at: new Date().toISOString(),
      calibration,
      machine: machine(),
      git: gitState(),
      run: { run_id, ...stored, append_s: r(appendMs / 1000) },
      browser: {
        viewport: "1280x800",
        first_paint_ms: r(times.firstPaint),
        /** Where the first paint's time goes (ms from navigation start). */
        first_paint_parts: {
          html_received: r(times.html),
          scripts_received: r(times.scripts),
          run_summary_requested: times.detailStart === null ? null : r(times.detailStart),
          run_summary_received: times.detailEnd === null ? null : r(times.detailEnd),
          drawn_after_summary: times.detailEnd === null ? null : r(times.firstPaint - times.detailEnd),
        },
        all_events_loaded_ms: r(times.eventsLoaded),
        /** The two figures scaled to a box with the reference calibration (an estimate: CPU-bound). */
        at_reference_calibration: { calibration_s: REFERENCE_CALIBRATION_S, first_paint_ms: atReference(times.firstPaint, calibration), all_events_loaded_ms: atReference(times.eventsLoaded, calibration) },
        nodes_on_canvas: nodesShown,
        scrub_ms: summarize(jumps),
        step_ms: summarize(steps),
        js_heap_mb: heap ? Math.round(heap / 2 ** 20) : null,
      },
      targets: { first_paint_ms: 1000, all_events_loaded_ms: 2000, at_calibration_s: REFERENCE_CALIBRATION_S, scrub_ms: 100 },
    };
    const fp = result.browser.first_paint_parts;
    const ref = result.browser.at_reference_calibration;
    console.log(`first paint of the graph: ${result.browser.first_paint_ms} ms; all ${total} events loaded: ${result.browser.all_events_loaded_ms} ms`);
    console.log(`  at the ${REFERENCE_CALIBRATION_S} s calibration (× ${REFERENCE_CALIBRATION_S} / ${calibration.seconds.toFixed(1)}): first paint ≈ ${ref.first_paint_ms} ms (target < 1000), all events ≈ ${ref.all_events_loaded_ms} ms (target < 2000)`);
    console.log(`  HTML at ${fp.html_received} ms, scripts at ${fp.scripts_received} ms, run summary ${fp.run_summary_requested}–${fp.run_summary_received} ms, drawn ${fp.drawn_after_summary} ms after it; load ${machine().loadavg.join(" ")}`);
    console.log(`scrub (slider jump → graph at that event, ${JUMPS} jumps): p50 ${result.browser.scrub_ms.p50} ms, p95 ${result.browser.scrub_ms.p95} ms, max ${result.browser.scrub_ms.max} ms (target < 100)`);
    console.log(`step (→ key): p50 ${result.browser.step_ms.p50} ms, p95 ${result.browser.step_ms.p95} ms; ${nodesShown} nodes on the canvas; JS heap ${result.browser.js_heap_mb} MB`);
    console.log(`results: ${path.relative(process.cwd(), writeResults(NAME, result))}`);
  } finally {
    await server?.stop();
    if (KEEP) console.log(`kept the database ${safeUrl(db.url)}`);
    else await db.drop();
  }
}

await main();
