/**
 * Long-thread benchmark (docs/benchmarks.md, docs/channels.md "Threads"): a channel whose one run
 * has --events events (20,000 by default, the thread pane's RUN_CAP) opens fast, and so does the
 * run's thread in the side pane. Target for both: < 1 s on this 2-core box.
 *
 *   node --import tsx bench/thread-open.ts [--events=20000] [--visits=3] [--port=3480]
 *     [--name=thread-open] [--keep] [--url=http://localhost:3000 (a running server; seeds through
 *     its database, BENCH_DATABASE_URL, which must then be given)]
 *
 * 1. A fresh database (bench/_lib.ts `benchDatabase`) and one channel: the person's request and
 *    one run appended through the real append path (`store.appendAll`): tasks with a routing
 *    decision, request, accept, progress, tool calls and their results, an agent's note to
 *    people now and then, and a result, --events in all.
 * 2. The production server (server.ts, NODE_ENV=production; needs `npx next build`, or
 *    NEXT_DIST_DIR) on that database, or the one given by --url.
 * 3. Chromium (playwright-core, /usr/bin/chromium) signed in, 1280×800. One warm-up visit, then
 *    --visits visits, each in a fresh page, measuring inside the page:
 *      - channel open: navigation start → the channel's list shows its newest events and the
 *        composer is hydrated, then the next animation frame and a task (the main thread is
 *        free again: the list is painted and answers input);
 *      - thread open: following the run's thread link (`?run=`, as the run card's "Thread · N
 *        events" does) → the pane's list holds the run's events (its loading line gone), then
 *        the next frame and a task; and until every page of the run is in (the pane draws the
 *        first pages while the rest load), with the longest frame meanwhile;
 *      - rows in the DOM once open (channel list, pane), and a scroll of the pane up from its
 *        end, 60 screens one at a time: the longest and the median frame; then to its top.
 *    Medians over the visits.
 * First line: the machine's calibration (bench/_lib.ts `calibrate`: node summing 3×10⁸ integers)
 * and load. Beside the figures: a second calibration (the same fixed CPU work in Node and in the
 * page, median of 5) so figures from a slower or busier box can be compared; and the load average.
 * Writes bench/results/<--name>.json.
 */
import fs from "node:fs";
import path from "node:path";
import { chromium, type Page } from "playwright-core";
import { makeMessage, newId, type ClutchMessage, type MessageType, type PayloadOf } from "@/lib/protocol";
import { createClutch } from "@/server/clutch";
import { CHROMIUM_ARGS } from "../playwright.config";
import { arg, benchDatabase, calibrate, calibrationLine, flag, gitState, machine, numArg, ROOT, safeUrl, summarize, writeResults } from "./_lib";
import { signIn } from "../scripts/session";
import { startAppServer, type AppServer } from "./_app-server";

const EVENTS = numArg("events", 20_000);
const VISITS = numArg("visits", 3);
const PORT = numArg("port", 3480);
const NAME = arg("name", "thread-open");
const URL_GIVEN = arg("url", "");
const KEEP = flag("keep");

const person = { agent_id: "user:bench", role: "human", display_name: "Bench Person" } as const;
const pm = { agent_id: "agent:pm-1", role: "worker", display_name: "pm-1" } as const;
const analysts = ["agent:analyst-1", "agent:analyst-2", "agent:researcher-1"].map((agent_id) => ({ agent_id, role: "worker" as const }));
const orchestrator = { agent_id: "agent:orchestrator", role: "orchestrator" } as const;
const WORDS = "revenue churn cohort quarter forecast pipeline region segment retention margin backlog customer pricing invoice anomaly dashboard".split(" ");

/** The person's request and one run of about `total` events, in append order. */
function longRun(thread_id: string, total: number): { run_id: string; messages: ClutchMessage[] } {
  let seed = 7;
  const rand = () => ((seed = (seed * 1103515245 + 12345) >>> 0) / 2 ** 32);
  const pick = <T>(xs: readonly T[]) => xs[Math.floor(rand() * xs.length)]!;
  const words = (n: number) => Array.from({ length: n }, () => pick(WORDS)).join(" ");
  const run_id = newId("run");
  const root = newId("task");
  let clock = Date.now() - 2 * 3_600_000;
  const m = <T extends MessageType>(type: T, payload: PayloadOf<T>, ctx: Partial<ClutchMessage> & { from: ClutchMessage["from"] }) => {
    clock += 20 + Math.floor(rand() * 200);
    return makeMessage({ type, payload, to: [], thread_id, run_id, task_id: root, parent_task_id: null, ts: new Date(clock).toISOString(), ...ctx } as Parameters<typeof makeMessage>[0]);
  };
  const conversation = { run_id: `run_${thread_id.replace(/^thr_/, "")}`, task_id: `task_${thread_id.replace(/^thr_/, "")}` };
  const request = makeMessage({ type: "chat.message", thread_id, ...conversation, from: person, to: [], payload: { text: "Review every region's sales, task by task" }, ts: new Date(clock).toISOString() });
  const out: ClutchMessage[] = [
    request,
    m("routing.decision", { selected: pm.agent_id, candidates: [pm.agent_id], reason: "entry agent", scores: { [pm.agent_id]: 1 }, mode: "fixed", rejected: [] }, { from: orchestrator }),
    m("task.request", { title: "Review every region's sales", instructions: "Task by task", input: { message_id: request.id } }, { from: orchestrator, to: [pm] }),
    m("task.accept", {}, { from: pm }),
  ];
  for (let t = 0; out.length < total - 2; t++) {
    const task_id = newId("task");
    const agent = pick(analysts);
    const sub = { task_id, parent_task_id: root };
    out.push(
      m("routing.decision", { selected: agent.agent_id, candidates: analysts.map((a) => a.agent_id), reason: `capability match (${words(2)})`, scores: { [agent.agent_id]: 0.9 }, mode: "capability", rejected: [] }, { ...sub, from: orchestrator }),
      m("task.request", { title: `Step ${t + 1}: ${words(4)}`, instructions: words(20) }, { ...sub, from: pm, to: [agent] }),
      m("task.accept", {}, { ...sub, from: agent }),
      m("task.progress", { message: `reading ${words(2)}`, percent: 20 }, { ...sub, from: agent }),
    );
    for (let k = 0; k < 6 && out.length < total - 4; k++) {
      const call_id = `c${t}-${k}`;
      out.push(
        m("tool.call", { call_id, server_id: "DataServer", tool: "query_data", arguments: { sql: `SELECT region, sum(sales) FROM orders WHERE segment = '${pick(WORDS)}' GROUP BY region` } }, { ...sub, from: agent }),
        m("tool.result", { call_id, tool: "query_data", result: { rows: [["Central", Math.round(rand() * 1e6) / 100], ["East", Math.round(rand() * 1e6) / 100]] } }, { ...sub, from: agent }),
      );
    }
    if (t % 10 === 0) out.push(m("chat.message", { text: `Step ${t + 1}: ${words(30)}` }, { ...sub, from: agent, to: [{ agent_id: "user", role: "human" }] }));
    out.push(m("task.result", { summary: words(16) }, { ...sub, from: agent, to: [pm] }));
  }
  out.push(m("chat.message", { text: `## Report\n\nEvery region reviewed: ${words(20)}` }, { from: pm, to: [{ agent_id: "user", role: "human" }] }));
  out.push(m("task.result", { summary: "Report sent" }, { from: pm }));
  return { run_id, messages: out };
}

/** Fixed CPU work (sorting 400,000 seeded numbers), ms; the same source runs in Node and in the page. */
const CALIBRATE = `(() => {
  let s = 1; const a = new Float64Array(400000);
  for (let i = 0; i < a.length; i++) { s = (s * 1103515245 + 12345) >>> 0; a[i] = s; }
  const t0 = performance.now(); a.sort(); return performance.now() - t0;
})()`;
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const calibrateNode = () => median(Array.from({ length: 5 }, () => (0, eval)(CALIBRATE) as number));

/**
 * Marks, in the page: `__channelReady` when the channel's list shows its newest events and the
 * composer is hydrated, then the next frame and a task.
 */
const CHANNEL_READY = `(() => {
  const check = () => {
    const box = document.querySelector('textarea[aria-label^="Message #"]');
    const log = document.querySelector('[role="log"][aria-label^="Messages in"]');
    if (box && !box.disabled && Object.keys(box).some((k) => k.startsWith("__reactProps")) && log && log.querySelector("[data-msg-id]")) {
      requestAnimationFrame(() => setTimeout(() => { if (window.__channelReady === undefined) window.__channelReady = performance.now(); }, 0));
      return;
    }
    requestAnimationFrame(check);
  };
  requestAnimationFrame(check);
})()`;

/**
 * In the page: open the run's thread as its link does (the run card's "Thread · N events" and the
 * search put `?run=` in the URL with history.pushState) and resolve with ms until the pane's list
 * is painted and the main thread free (`painted`), until every page of it is in (`all`), and the
 * longest frame between the two (`longest`). (The run's card is 20,000 events up the channel, not
 * loaded when it opens, so the link is followed rather than clicked.)
 */
const OPEN_PANE = (runId: string) => `(async () => {
  const t0 = performance.now();
  const url = new URL(window.location.href);
  url.searchParams.set("run", ${JSON.stringify(runId)});
  window.history.pushState(null, "", url);
  await new Promise((resolve) => {
    const check = () => {
      const pane = document.querySelector('aside[aria-label^="Thread of run"]');
      const log = pane && pane.querySelector('[role="log"]');
      const loading = pane && [...pane.querySelectorAll('[role="status"]')].some((s) => s.textContent.includes("Loading the run"));
      if (log && !loading && log.querySelectorAll("[data-msg-id]").length > 0) requestAnimationFrame(() => setTimeout(resolve, 0));
      else requestAnimationFrame(check);
    };
    check();
  });
  const painted = performance.now() - t0;
  // Then until every page is in (no loading line left), with the longest frame meanwhile.
  let longest = 0;
  await new Promise((resolve) => {
    let last = performance.now();
    const check = () => {
      const now = performance.now();
      longest = Math.max(longest, now - last);
      last = now;
      const pane = document.querySelector('aside[aria-label^="Thread of run"]');
      const loading = [...pane.querySelectorAll('[role="status"]')].some((s) => s.textContent.includes("Loading"));
      if (!loading) setTimeout(resolve, 0);
      else requestAnimationFrame(check);
    };
    check();
  });
  return { painted, all: performance.now() - t0, longest };
})()`;

/**
 * In the page: scroll the pane's list up from its end a screen at a time, 60 screens, timing each
 * step to the second frame after it (the longest and the median, ms), then to its top (the first
 * event's seq drawn there).
 */
const SCROLL_PANE = `(async () => {
  const pane = document.querySelector('aside[aria-label^="Thread of run"]');
  const log = pane.querySelector('[role="log"]');
  let box = log.parentElement;
  while (box && getComputedStyle(box).overflowY !== "auto") box = box.parentElement;
  box.scrollTop = box.scrollHeight;
  await new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r)));
  const frames = [];
  let steps = 0;
  while (box.scrollTop > 0 && steps < 60) {
    const t0 = performance.now();
    box.scrollTop = Math.max(0, box.scrollTop - box.clientHeight * 0.9);
    await new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r)));
    frames.push((performance.now() - t0) / 2);
    steps++;
  }
  box.scrollTop = 0;
  await new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r)));
  const first = log.querySelector("[data-msg-id]");
  return { longest: Math.max(...frames), median: frames.sort((a, b) => a - b)[Math.floor(frames.length / 2)], steps, first_seq: first ? Number(first.getAttribute("data-seq")) : null };
})()`;

async function main() {
  const distDir = process.env.NEXT_DIST_DIR || ".next";
  if (!URL_GIVEN && !fs.existsSync(path.join(ROOT, distDir, "BUILD_ID"))) {
    console.log(`no production build in ${distDir}/ (BUILD_ID missing): run \`npx next build\` first`);
    return;
  }
  if (URL_GIVEN && !process.env.BENCH_DATABASE_URL) throw new Error("--url needs BENCH_DATABASE_URL: the database of that server, to seed the channel");
  const machineCalibration = await calibrate();
  console.log(calibrationLine(machineCalibration));
  const db = await benchDatabase();
  console.log(`database ${safeUrl(db.url)}${db.created ? " (fresh)" : ""}`);
  let server: AppServer | undefined;
  try {
    const rt = await createClutch({ databaseUrl: db.url, dataDir: "", workspaceDir: null });
    const thread = await rt.store.createThread({ name: `long-thread-${Date.now().toString(36)}`, topic: "long thread benchmark" }, { agent_id: "user:bench" });
    const { run_id, messages } = longRun(thread.id, EVENTS);
    const t0 = performance.now();
    await rt.store.appendAll(messages);
    const appendMs = performance.now() - t0;
    await rt.stop();
    const runEvents = messages.filter((x) => x.run_id === run_id).length;
    console.log(`#${thread.name} (${thread.id}): run ${run_id} with ${runEvents} events (+1 request), appended in ${(appendMs / 1000).toFixed(1)} s`);

    server = URL_GIVEN ? { base: URL_GIVEN.replace(/\/$/, ""), stop: async () => {} } : await startAppServer(db.url, PORT);
    const base = server.base;
    const session = await signIn(base);
    const url = `${base}/c/${thread.id}`;
    await fetch(url, { headers: { cookie: session.header } }).then((r) => r.text());

    const browser = await chromium.launch({ executablePath: "/usr/bin/chromium", args: CHROMIUM_ARGS });
    const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
    await context.addCookies(session.cookies);
    await context.addInitScript(CHANNEL_READY);
    const visit = async () => {
      const page: Page = await context.newPage();
      await page.goto(url, { waitUntil: "commit" });
      await page.waitForFunction("window.__channelReady !== undefined", null, { timeout: 120_000 }).catch(async (err: unknown) => {
        const shot = path.join(ROOT, "bench", "results", `${NAME}-timeout.png`);
        await page.screenshot({ path: shot }).catch(() => {});
        throw new Error(`the channel did not open (screenshot: ${shot})`, { cause: err });
      });
      const channel = (await page.evaluate("window.__channelReady")) as number;
      const pane = (await page.evaluate(OPEN_PANE(run_id))) as { painted: number; all: number; longest: number };
      const paneRows = await page.locator('aside[aria-label^="Thread of run"] [role="log"] [data-msg-id]').count();
      // The channel's rows in the page once its first pages are in (they load beside the pane).
      const channelRows = await page.locator('[role="log"][aria-label^="Messages in"] [data-msg-id]').count();
      const scroll = (await page.evaluate(SCROLL_PANE)) as { longest: number; median: number; steps: number; first_seq: number | null };
      const calibration = (await page.evaluate(`[0,1,2,3,4].map(() => ${CALIBRATE}).sort((a, b) => a - b)[2]`)) as number;
      await page.close();
      return { channel, pane, channelRows, paneRows, scroll, calibration };
    };
    await visit();
    const visits = [];
    for (let i = 0; i < VISITS; i++) visits.push(await visit());
    await browser.close();

    const r = (x: number) => Math.round(x * 10) / 10;
    const last = visits[visits.length - 1]!;
    const result = {
      at: new Date().toISOString(),
      calibration: machineCalibration,
      machine: machine(),
      git: gitState(),
      run: { run_id, events: runEvents, append_s: r(appendMs / 1000) },
      calibration_ms: { node_sort_400k: r(calibrateNode()), page_sort_400k: r(median(visits.map((v) => v.calibration))) },
      channel_open_ms: summarize(visits.map((v) => v.channel)),
      thread_open_ms: summarize(visits.map((v) => v.pane.painted)),
      thread_all_events_ms: summarize(visits.map((v) => v.pane.all)),
      thread_longest_frame_while_loading_ms: summarize(visits.map((v) => v.pane.longest)),
      channel_open_median_ms: r(median(visits.map((v) => v.channel))),
      thread_open_median_ms: r(median(visits.map((v) => v.pane.painted))),
      rows_in_dom: { channel: last.channelRows, pane: last.paneRows },
      pane_scroll: { longest_frame_ms: r(median(visits.map((v) => v.scroll.longest))), median_frame_ms: r(median(visits.map((v) => v.scroll.median))), steps: last.scroll.steps, top_seq: last.scroll.first_seq },
      targets: { channel_open_ms: 1000, thread_open_ms: 1000 },
    };
    console.log(`${calibrationLine(machineCalibration)}; sort of 400,000 numbers: ${result.calibration_ms.node_sort_400k} ms in Node, ${result.calibration_ms.page_sort_400k} ms in the page; load now ${machine().loadavg.join(" ")}`);
    console.log(`channel open (navigation → list painted, composer usable): median ${result.channel_open_median_ms} ms of ${VISITS} (${visits.map((v) => r(v.channel)).join(", ")}) (target < 1000)`);
    console.log(`thread open (link → the thread of ${runEvents} events painted): median ${result.thread_open_median_ms} ms of ${VISITS} (${visits.map((v) => r(v.pane.painted)).join(", ")}) (target < 1000)`);
    console.log(`  every page of the run in: median ${r(median(visits.map((v) => v.pane.all)))} ms; longest frame meanwhile: median ${r(median(visits.map((v) => v.pane.longest)))} ms`);
    console.log(`rows in the DOM: channel ${last.channelRows}, pane ${last.paneRows}; pane scroll up from the end (${last.scroll.steps} screens): longest frame ${result.pane_scroll.longest_frame_ms} ms, median ${result.pane_scroll.median_frame_ms} ms; top row seq ${last.scroll.first_seq}`);
    console.log(`results: ${path.relative(process.cwd(), writeResults(NAME, result))}`);
  } finally {
    await server?.stop();
    if (KEEP) console.log(`kept the database ${safeUrl(db.url)}`);
    else await db.drop();
  }
}

await main();
