/**
 * Channel load benchmark (docs/benchmarks.md): how soon a person can type in a channel. It fills a
 * channel with --runs runs (each a request, planning, tool calls, a question and its answer, an
 * approval and a report: about 30 events, the machinery in the runs' threads), opens it in
 * Chromium and prints, from navigation start:
 *   - composer usable: the message box is in the page, enabled and hydrated (React handles what
 *     is typed: its props are attached), and the next animation frame has run. Target < 1.5 s.
 *   - conversation shown: the first run card is visible.
 *   - the JavaScript the page loaded (transfer and decoded size).
 * One warm-up visit fills the browser's cache of the bundles; --visits visits are measured.
 * Then channel switches in one page, as a person moves between channels: from a click on a
 * channel in the sidebar until that channel's composer is usable and its first run card drawn,
 * the first visit to each channel (cold) and the visits after (warm). Target < 300 ms.
 *
 *   node --import tsx bench/composer.ts [--runs=40] [--visits=7] [--port=3470] [--name=composer] [--keep]
 *
 * Needs a production build (`npx next build`, or NEXT_DIST_DIR); without one it says so and stops.
 * The first line is the machine's calibration (bench/_lib.ts `calibrate`) and load; both are in
 * bench/results/<--name>.json with the figures.
 */
import fs from "node:fs";
import path from "node:path";
import { chromium } from "playwright-core";
import { makeMessage, newId, type ClutchMessage, type MessageType, type PayloadOf } from "@/lib/protocol";
import { createClutch } from "@/server/clutch";
import { CHROMIUM_ARGS } from "../playwright.config";
import { arg, benchDatabase, calibrate, calibrationLine, flag, gitState, machine, numArg, ROOT, safeUrl, summarize, writeResults } from "./_lib";
import { signIn } from "../scripts/session";
import { startAppServer, type AppServer } from "./_app-server";

const RUNS = numArg("runs", 40);
const VISITS = numArg("visits", 7);
const PORT = numArg("port", 3470);
const NAME = arg("name", "composer");
const KEEP = flag("keep");
const SWITCHES = numArg("switches", 8);

const person = { agent_id: "user:bench", role: "human", display_name: "Bench Person" } as const;
const pm = { agent_id: "agent:pm-1", role: "worker", display_name: "pm-1" } as const;
const analyst = { agent_id: "agent:analyst-1", role: "worker", display_name: "analyst-1" } as const;
const orchestrator = { agent_id: "agent:orchestrator", role: "orchestrator" } as const;

/** One run as the seed's team would log it, after the person's request in the channel. */
function run(thread_id: string, i: number): ClutchMessage[] {
  const run_id = newId("run");
  const root = newId("task");
  const child = newId("task");
  const at = { thread_id, run_id, task_id: root, parent_task_id: null };
  const sub = { thread_id, run_id, task_id: child, parent_task_id: root };
  const m = <T extends MessageType>(type: T, payload: PayloadOf<T>, ctx: Partial<ClutchMessage> & { from: ClutchMessage["from"] }) =>
    makeMessage({ type, payload, to: [], ...at, ...ctx } as Parameters<typeof makeMessage>[0]);
  const question = m("chat.message", { text: `Run ${i}: regional breakdowns, customer segments, or overall trend?`, expects_reply: true }, { from: pm, to: [{ agent_id: "user", role: "human" }] });
  const out: ClutchMessage[] = [
    m("routing.decision", { selected: pm.agent_id, candidates: [pm.agent_id], reason: "entry agent", scores: { [pm.agent_id]: 1 }, mode: "fixed", rejected: [] }, { from: orchestrator }),
    m("task.request", { title: `Analyze sales, request ${i}`, instructions: "Last quarter" }, { from: orchestrator, to: [pm] }),
    m("task.accept", {}, { from: pm }),
    question,
    m("chat.message", { text: "Regional breakdown by major market", reply_to: question.id }, { from: person, to: [pm] }),
    m("task.request", { title: "Query the sales data", instructions: "By region" }, { ...sub, from: pm, to: [analyst] }),
    m("task.accept", {}, { ...sub, from: analyst }),
  ];
  for (let k = 0; k < 6; k++) {
    out.push(m("tool.call", { call_id: `c${k}`, server_id: "DataServer", tool: "query_data", arguments: { sql: `SELECT region, sum(sales) FROM orders GROUP BY ${k}` } }, { ...sub, from: analyst }));
    out.push(m("tool.result", { call_id: `c${k}`, tool: "query_data", result: { rows: [["Central", 501239.89], ["East", 678781.24]] } }, { ...sub, from: analyst }));
  }
  out.push(m("task.result", { summary: "Central leads", report_markdown: "| Region | Sales |\n|---|---:|\n| Central | 501,239.89 |" }, { ...sub, from: analyst, to: [pm] }));
  out.push(m("chat.message", { text: `## Report ${i}\n\nCentral grew the most.\n\n| Region | Sales |\n|---|---:|\n| Central | 501,239.89 |\n| East | 678,781.24 |` }, { from: pm, to: [{ agent_id: "user", role: "human" }] }));
  out.push(m("task.result", { summary: `Report ${i} sent` }, { from: pm }));
  return out;
}


async function main() {
  const distDir = process.env.NEXT_DIST_DIR || ".next";
  if (!fs.existsSync(path.join(ROOT, distDir, "BUILD_ID"))) {
    console.log(`no production build in ${distDir}/ (BUILD_ID missing): run \`npx next build\` first`);
    return;
  }
  const calibration = await calibrate();
  console.log(calibrationLine(calibration));
  const db = await benchDatabase();
  console.log(`database ${safeUrl(db.url)}${db.created ? " (fresh)" : ""}`);
  let server: AppServer | undefined;
  try {
    const rt = await createClutch({ databaseUrl: db.url, dataDir: "", workspaceDir: null });
    const thread = await rt.store.createThread({ name: "bench-channel", topic: "channel load benchmark" }, { agent_id: "user:bench" });
    let events = 0;
    const fill = async (t: { id: string }, runs: number) => {
      const ids = { run_id: `run_${t.id.replace(/^thr_/, "")}`, task_id: `task_${t.id.replace(/^thr_/, "")}` };
      for (let i = 0; i < runs; i++) {
        const batch = [makeMessage({ type: "chat.message", thread_id: t.id, ...ids, from: person, to: [], payload: { text: `Analyze sales, request ${i}` } }), ...run(t.id, i)];
        events += batch.length;
        await rt.store.append(batch);
      }
    };
    await fill(thread, RUNS);
    // Channels to switch between, each with runs of its own.
    const others = [];
    for (const name of ["bench-east", "bench-west"]) {
      const t = await rt.store.createThread({ name, topic: "channel switch benchmark" }, { agent_id: "user:bench" });
      await fill(t, Math.max(1, Math.round(RUNS / 2)));
      others.push({ id: t.id, name });
    }
    await rt.stop();
    console.log(`#bench-channel: ${RUNS} runs, ${events} events`);

    server = await startAppServer(db.url, PORT);
    const base = server.base;
    const session = await signIn(base);
    const url = `${base}/c/${thread.id}`;
    await fetch(url, { headers: { cookie: session.header } }).then((r) => r.text());

    const browser = await chromium.launch({ executablePath: "/usr/bin/chromium", args: CHROMIUM_ARGS });
    const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
    await context.addCookies(session.cookies);
    // Page scripts are strings: tsx's esbuild would wrap named functions in a helper the page lacks.
    await context.addInitScript(`(() => {
      const check = () => {
        const box = document.querySelector('textarea[aria-label^="Message #"]');
        if (box && window.__composerReady === undefined && !box.disabled && Object.keys(box).some((k) => k.startsWith("__reactProps"))) {
          requestAnimationFrame(() => { if (window.__composerReady === undefined) window.__composerReady = performance.now(); });
        }
        const card = document.querySelector("[data-run-id]");
        if (card && window.__conversationShown === undefined) window.__conversationShown = performance.now();
        if (window.__composerReady === undefined || window.__conversationShown === undefined) requestAnimationFrame(check);
      };
      requestAnimationFrame(check);
    })()`);
    const visit = async () => {
      const page = await context.newPage();
      await page.goto(url, { waitUntil: "commit" });
      await page.waitForFunction("window.__composerReady !== undefined && window.__conversationShown !== undefined", null, { timeout: 60_000 });
      const t = (await page.evaluate(`(() => {
        const scripts = performance.getEntriesByType("resource").filter((e) => e.name.endsWith(".js"));
        return {
          ready: window.__composerReady,
          shown: window.__conversationShown,
          html: performance.getEntriesByType("navigation")[0].responseEnd,
          js_transfer: scripts.reduce((s, e) => s + e.encodedBodySize, 0),
          js_decoded: scripts.reduce((s, e) => s + e.decodedBodySize, 0),
          js_files: scripts.length,
        };
      })()`)) as { ready: number; shown: number; html: number; js_transfer: number; js_decoded: number; js_files: number };
      await page.close();
      return t;
    };
    await visit();
    const visits = [];
    for (let i = 0; i < VISITS; i++) visits.push(await visit());

    // Channel switches in one page: a click on the channel in the sidebar → its composer usable
    // and its first run card drawn (both in the new channel).
    const page = await context.newPage();
    await page.goto(url);
    await page.waitForFunction("window.__composerReady !== undefined && window.__conversationShown !== undefined", null, { timeout: 60_000 });
    const ring = [...others, { id: thread.id, name: "bench-channel" }];
    const seen = new Set<string>([thread.id]);
    const cold: number[] = [];
    const warm: number[] = [];
    for (let i = 0; i < SWITCHES + ring.length; i++) {
      const to = ring[i % ring.length]!;
      await page.waitForTimeout(300);
      const start = (await page.evaluate("performance.now()")) as number;
      await page.getByRole("navigation", { name: "Channels" }).getByRole("link", { name: new RegExp(`^${to.name}\\b`) }).click();
      const done = (await (
        await page.waitForFunction(
          `(() => {
            const box = document.querySelector('textarea[aria-label="Message #${to.name}"]');
            const usable = box && !box.disabled && Object.keys(box).some((k) => k.startsWith("__reactProps"));
            const log = document.querySelector('[role="log"][aria-label="Messages in #${to.name}"]');
            return usable && log && log.querySelector("[data-run-id]") ? performance.now() : false;
          })()`,
          null,
          { timeout: 30_000, polling: "raf" },
        )
      ).jsonValue()) as number;
      (seen.has(to.id) ? warm : cold).push(done - start);
      seen.add(to.id);
    }
    await page.close();
    await browser.close();

    const kb = (b: number) => Math.round(b / 1024);
    const result = {
      at: new Date().toISOString(),
      calibration,
      machine: machine(),
      git: gitState(),
      channel: { runs: RUNS, events },
      composer_ready_ms: summarize(visits.map((v) => v.ready)),
      conversation_shown_ms: summarize(visits.map((v) => v.shown)),
      html_received_ms: summarize(visits.map((v) => v.html)),
      javascript: { files: visits[0]!.js_files, transfer_kb: kb(visits[0]!.js_transfer), decoded_kb: kb(visits[0]!.js_decoded) },
      switch_cold_ms: summarize(cold),
      switch_warm_ms: summarize(warm),
      targets: { composer_ready_ms: 1500, switch_ms: 300 },
    };
    console.log(`composer usable after navigation: p50 ${result.composer_ready_ms.p50} ms, max ${result.composer_ready_ms.max} ms (target < 1500; ${VISITS} visits)`);
    console.log(`first run card shown: p50 ${result.conversation_shown_ms.p50} ms; HTML received p50 ${result.html_received_ms.p50} ms`);
    console.log(`channel switch → composer usable and a run card drawn: first visit p50 ${result.switch_cold_ms.p50} ms (max ${result.switch_cold_ms.max}), again p50 ${result.switch_warm_ms.p50} ms (max ${result.switch_warm_ms.max}) (target < 300)`);
    console.log(`JavaScript: ${result.javascript.files} files, ${result.javascript.transfer_kb} KB transferred (first visit after warm-up: from cache), ${result.javascript.decoded_kb} KB decoded; load ${machine().loadavg.join(" ")}`);
    console.log(`results: ${path.relative(process.cwd(), writeResults(NAME, result))}`);
  } finally {
    await server?.stop();
    if (KEEP) console.log(`kept the database ${safeUrl(db.url)}`);
    else await db.drop();
  }
}

await main();
