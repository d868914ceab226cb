/**
 * Channel load benchmark (docs/benchmarks.md "bench/composer.ts"): how soon a person can read and
 * type in a channel, on the channels a person meets. The production server runs the default
 * workspace's team (examples/sales-analysis, the built-in model writing at once); the bench asks
 * #sales the seed's request over the API, answers the team's questions, approves what waits,
 * then asks a follow-up in the run's thread and sees it through too (about 300 events, as a person
 * would have them after a first session), and makes an empty channel. Then, in Chromium at
 * 1280×800 (one warm-up visit to each, then --visits measured), from navigation start:
 *   - first message shown: a message row is drawn in the channel's list;
 *   - composer usable: the message box is in the page, enabled and hydrated (React handles what
 *     is typed: its props are attached), and the next animation frame has run.
 * Then, in one page, as a person moves between channels:
 *   - sidebar switch: from a click on the channel in the sidebar until its composer is usable and
 *     holds the keyboard focus (and, for #sales, its first message is drawn); first visit (cold)
 *     and the visits after (warm);
 *   - thread panel: from a click on the run card's "Thread · N events" until the pane's rows are
 *     drawn, then one frame.
 * Targets (#sales): first message < 1 s, composer < 0.5 s, switch < 300 ms, thread panel < 300 ms.
 *
 *   node --import tsx bench/composer.ts [--visits=7] [--switches=8] [--panes=5] [--port=3470]
 *     [--name=composer] [--keep]
 *
 * Needs a production build (`npx next build`, or NEXT_DIST_DIR); without one it says so and stops.
 * The first line is the machine's calibration (bench/_lib.ts `calibrate`) and load; both are in
 * bench/results/<--name>.json with the figures.
 */
import fs from "node:fs";
import path from "node:path";
import { chromium, type Page } from "playwright-core";
import type { RunSummary, ThreadSummary } from "@/lib/api/types";
import { indexQuestions } from "@/lib/fold/questions";
import { isEvent, type StoredEvent } from "@/lib/protocol";
import { CHROMIUM_ARGS } from "../playwright.config";
import { arg, benchDatabase, calibrate, calibrationLine, flag, gitState, machine, numArg, ROOT, safeUrl, sleep, summarize, writeResults } from "./_lib";
import { signIn, type Session } from "../scripts/session";
import { startAppServer, type AppServer } from "./_app-server";

const VISITS = numArg("visits", 7);
const SWITCHES = numArg("switches", 8);
const PANES = numArg("panes", 5);
const PORT = numArg("port", 3470);
const NAME = arg("name", "composer");
const KEEP = flag("keep");

const SEED_REQUEST = "Analyze last quarter's sales trends";
const FOLLOW_UP = "Now break it down by customer segment";

/** JSON over the API as the signed-in admin; throws with the server's answer on an error status. */
async function api<T>(base: string, session: Session, url: string, body?: unknown): Promise<T> {
  const res = await fetch(`${base}${url}`, {
    method: body === undefined ? "GET" : "POST",
    headers: { cookie: session.header, origin: base, ...(body === undefined ? {} : { "content-type": "application/json" }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  if (!res.ok) throw new Error(`${body === undefined ? "GET" : "POST"} ${url}: ${res.status} ${await res.text()}`);
  return (await res.json()) as T;
}

/** pm-1's reports to people (its messages that end a task's work: not questions) after seq `after`. */
const reports = (events: StoredEvent[], after: number) =>
  events.filter((e) => e.seq > after && isEvent(e, "chat.message") && e.from.agent_id === "agent:pm-1" && !e.payload.expects_reply && /\|/.test(e.payload.text));

/**
 * Plays the person's part in #sales until pm-1 has sent a report (a table) after seq `after` and every run in it ended:
 * answers each question the team asks people, approves each approval that waits. Returns the
 * channel's events. Throws after 3 min.
 */
async function seeRunsThrough(base: string, session: Session, thread_id: string, after: number): Promise<StoredEvent[]> {
  const answered = new Set<string>();
  const end = Date.now() + 180_000;
  for (;;) {
    const { events } = await api<{ events: StoredEvent[] }>(base, session, `/api/threads/${thread_id}/events?after=0&limit=5000`);
    for (const q of indexQuestions(events).openToPeople) {
      if (answered.has(q.id)) continue;
      answered.add(q.id);
      await api(base, session, `/api/threads/${thread_id}/messages`, { text: "Regional breakdown by major market", reply_to: q.id });
    }
    const { approvals } = await api<{ approvals: { approval_id: string }[] }>(base, session, `/api/approvals?state=pending&thread_id=${thread_id}`);
    for (const a of approvals) await api(base, session, `/api/approvals/${a.approval_id}/decision`, { decision: "approve" });
    const { runs: summaries } = await api<{ runs: RunSummary[] }>(base, session, `/api/threads/${thread_id}/runs`);
    const ended = summaries.filter((r) => r.status !== "running" && r.status !== "waiting");
    if (reports(events, after).length > 0 && ended.length === summaries.length) return events;
    if (Date.now() > end) throw new Error(`the team did not finish in 3 min: ${JSON.stringify(summaries.map((r) => [r.run_id, r.status]))}`);
    await sleep(250);
  }
}

/** In the page: marks when a message row is drawn in `channel`'s list and when its composer is usable. */
const PAGE_PROBE = `(() => {
  const check = () => {
    const name = window.__channel;
    const box = name && document.querySelector('textarea[aria-label="Message #' + name + '"]');
    if (box && window.__composerReady === undefined && !box.disabled && Object.keys(box).some((k) => k.startsWith("__reactProps"))) {
      requestAnimationFrame(() => { if (window.__composerReady === undefined) window.__composerReady = performance.now(); });
    }
    const row = name && document.querySelector('[role="log"][aria-label="Messages in #' + name + '"] [data-msg-id]');
    if (row && window.__messageShown === undefined) window.__messageShown = performance.now();
    if (window.__composerReady === undefined || (window.__wantMessage && window.__messageShown === undefined)) requestAnimationFrame(check);
  };
  requestAnimationFrame(check);
})()`;

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
    server = await startAppServer(db.url, PORT, { team: true });
    const base = server.base;
    const session = await signIn(base);

    // #sales after the seed's run and a follow-up in its thread, as the team logs them.
    const { threads } = await api<{ threads: ThreadSummary[] }>(base, session, "/api/threads");
    const sales = threads.find((t) => t.name === "sales");
    if (!sales) throw new Error("the default workspace has no #sales");
    await api(base, session, `/api/threads/${sales.id}/messages`, { text: SEED_REQUEST });
    let events = await seeRunsThrough(base, session, sales.id, 0);
    const { event: followUp } = await api<{ event: StoredEvent }>(base, session, `/api/threads/${sales.id}/messages`, { text: FOLLOW_UP, reply_to: reports(events, 0)[0]!.id });
    events = await seeRunsThrough(base, session, sales.id, followUp.seq);
    const empty = await api<{ thread: ThreadSummary }>(base, session, "/api/threads", { name: "bench-empty", topic: "an empty channel" });
    console.log(`#sales: ${events.length} events (the seed's run and a follow-up); #bench-empty: none`);

    const browser = await chromium.launch({ executablePath: "/usr/bin/chromium", args: CHROMIUM_ARGS });
    const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
    await context.addCookies(session.cookies);
    // Page scripts are strings: tsx's esbuild would wrap named functions in a helper the page lacks.
    await context.addInitScript(PAGE_PROBE);

    /** A cold load of `channel` in a new page: ms from navigation start. */
    const visit = async (channel: { id: string; name: string }, withMessages: boolean) => {
      const page = await context.newPage();
      await page.addInitScript(`window.__channel = ${JSON.stringify(channel.name)}; window.__wantMessage = ${withMessages};`);
      await page.goto(`${base}/c/${channel.id}`, { waitUntil: "commit" });
      await page.waitForFunction(`window.__composerReady !== undefined && (!window.__wantMessage || window.__messageShown !== undefined)`, null, { timeout: 60_000 });
      const t = (await page.evaluate(`(() => {
        const scripts = performance.getEntriesByType("resource").filter((e) => e.name.endsWith(".js"));
        return {
          ready: window.__composerReady,
          shown: window.__messageShown ?? null,
          html: performance.getEntriesByType("navigation")[0].responseEnd,
          js_transfer: scripts.reduce((s, e) => s + e.encodedBodySize, 0),
          js_decoded: scripts.reduce((s, e) => s + e.decodedBodySize, 0),
          js_files: scripts.length,
        };
      })()`)) as { ready: number; shown: number | null; html: number; js_transfer: number; js_decoded: number; js_files: number };
      await page.close();
      return t;
    };
    const salesChannel = { id: sales.id, name: "sales" };
    const emptyChannel = { id: empty.thread.id, name: "bench-empty" };
    await visit(salesChannel, true);
    await visit(emptyChannel, false);
    const salesVisits = [];
    const emptyVisits = [];
    for (let i = 0; i < VISITS; i++) {
      salesVisits.push(await visit(salesChannel, true));
      emptyVisits.push(await visit(emptyChannel, false));
    }

    // Sidebar switches in one page, from #general: #sales, #bench-empty, #general, …
    const page = await context.newPage();
    const general = threads.find((t) => t.name === "general");
    const ring = [salesChannel, emptyChannel, ...(general ? [{ id: general.id, name: "general" }] : [])];
    await page.addInitScript(`window.__channel = ${JSON.stringify(ring[ring.length - 1]!.name)};`);
    await page.goto(`${base}/c/${ring[ring.length - 1]!.id}`);
    await page.waitForFunction("window.__composerReady !== undefined", null, { timeout: 60_000 });
    const seen = new Set<string>([ring[ring.length - 1]!.id]);
    const switches: { to: string; cold: boolean; usable: number; focused: number | null }[] = [];
    for (let i = 0; i < SWITCHES + ring.length; i++) {
      const to = ring[i % ring.length]!;
      await page.waitForTimeout(300);
      const start = (await page.evaluate("window.__usableAt = undefined; performance.now()")) as number;
      await page.getByRole("navigation", { name: "Channels" }).getByRole("link", { name: new RegExp(`^${to.name}\\b`) }).click();
      // Usable: enabled, hydrated, the list there (with a message in #sales); focused: and it has
      // the keyboard focus (given up 1 s after it was usable).
      const done = (await (
        await page.waitForFunction(
          `(() => {
            const box = document.querySelector('textarea[aria-label="Message #${to.name}"]');
            const usable = box && !box.disabled && Object.keys(box).some((k) => k.startsWith("__reactProps"));
            const log = document.querySelector('[role="log"][aria-label="Messages in #${to.name}"]');
            if (!usable || !log || (${to.name === "sales"} && !log.querySelector("[data-msg-id]"))) return false;
            window.__usableAt ??= performance.now();
            if (document.activeElement === box) return { usable: window.__usableAt, focused: performance.now() };
            return performance.now() - window.__usableAt > 1000 ? { usable: window.__usableAt, focused: null } : false;
          })()`,
          null,
          { timeout: 30_000, polling: "raf" },
        )
      ).jsonValue()) as { usable: number; focused: number | null };
      switches.push({ to: to.name, cold: !seen.has(to.id), usable: done.usable - start, focused: done.focused === null ? null : done.focused - start });
      seen.add(to.id);
    }
    // A switch that never focused the composer counts as not done (NaN), and is counted apart.
    const sw = (pick: (s: (typeof switches)[number]) => boolean) => summarize(switches.filter(pick).map((s) => s.focused ?? NaN));
    const usable = (pick: (s: (typeof switches)[number]) => boolean) => summarize(switches.filter(pick).map((s) => s.usable));
    const unfocused = switches.filter((s) => s.focused === null).length;

    // The thread panel: the run card's "Thread · N events" → the pane's rows drawn, then a frame.
    await page.getByRole("navigation", { name: "Channels" }).getByRole("link", { name: /^sales\b/ }).click();
    await page.locator('[role="log"][aria-label="Messages in #sales"] [data-run-id]').first().waitFor();
    const panes: number[] = [];
    for (let i = 0; i < PANES; i++) panes.push(await openPane(page));
    await page.close();
    await browser.close();

    const kb = (b: number) => Math.round(b / 1024);
    const result = {
      at: new Date().toISOString(),
      calibration,
      machine: machine(),
      git: gitState(),
      channels: { sales_events: events.length, empty_events: 0 },
      sales: {
        first_message_ms: summarize(salesVisits.map((v) => v.shown ?? NaN)),
        composer_ready_ms: summarize(salesVisits.map((v) => v.ready)),
        html_received_ms: summarize(salesVisits.map((v) => v.html)),
      },
      empty: { composer_ready_ms: summarize(emptyVisits.map((v) => v.ready)), html_received_ms: summarize(emptyVisits.map((v) => v.html)) },
      javascript: { files: salesVisits[0]!.js_files, transfer_kb: kb(salesVisits[0]!.js_transfer), decoded_kb: kb(salesVisits[0]!.js_decoded) },
      switch_to_sales_cold_ms: sw((s) => s.to === "sales" && s.cold),
      switch_to_sales_warm_ms: sw((s) => s.to === "sales" && !s.cold),
      switch_cold_ms: sw((s) => s.cold),
      switch_warm_ms: sw((s) => !s.cold),
      switch_usable_cold_ms: usable((s) => s.cold),
      switch_usable_warm_ms: usable((s) => !s.cold),
      switches_without_focus: unfocused,
      switches: switches.length,
      thread_panel_ms: summarize(panes),
      targets: { first_message_ms: 1000, composer_ready_ms: 500, switch_ms: 300, thread_panel_ms: 300 },
    };
    const d = (x: { p50: number; max: number }) => `p50 ${x.p50} ms (max ${x.max})`;
    console.log(`#sales (${events.length} events), cold load: first message ${d(result.sales.first_message_ms)} (target < 1000); composer usable ${d(result.sales.composer_ready_ms)} (target < 500); HTML p50 ${result.sales.html_received_ms.p50} ms`);
    console.log(`#bench-empty, cold load: composer usable ${d(result.empty.composer_ready_ms)} (target < 500)`);
    console.log(`sidebar switch → composer focused and usable: to #sales first ${result.switch_to_sales_cold_ms.p50} ms, again ${d(result.switch_to_sales_warm_ms)}; any channel first ${d(result.switch_cold_ms)}, again ${d(result.switch_warm_ms)} (target < 300); the focus stayed elsewhere in ${unfocused} of ${switches.length}`);
    console.log(`  usable (focused or not): first ${d(result.switch_usable_cold_ms)}, again ${d(result.switch_usable_warm_ms)}`);
    console.log(`thread panel (run card's thread link → rows drawn): ${d(result.thread_panel_ms)} over ${PANES} opens (target < 300)`);
    console.log(`JavaScript: ${result.javascript.files} files, ${result.javascript.transfer_kb} KB transferred (from cache after the warm-up), ${result.javascript.decoded_kb} KB decoded; load ${machine().loadavg.join(" ")}`);
    console.log(`results: ${path.relative(process.cwd(), writeResults(NAME, result))}`);
  } finally {
    await server?.stop();
    if (KEEP) console.log(`kept the database ${safeUrl(db.url)}`);
    else await db.drop();
  }
}

/** Opens the first run's thread from its card and closes it again: ms from the click to its rows drawn and a frame. */
async function openPane(page: Page): Promise<number> {
  await page.waitForTimeout(300);
  const start = (await page.evaluate("performance.now()")) as number;
  await page.getByRole("button", { name: /^Open the thread of / }).first().click();
  const done = (await (
    await page.waitForFunction(
      `(() => {
        const pane = document.querySelector('aside[aria-label^="Thread of run"]');
        const rows = pane && pane.querySelector('[role="log"] [data-msg-id]');
        const loading = pane && [...pane.querySelectorAll('[role="status"]')].some((s) => s.textContent.includes("Loading"));
        return rows && !loading ? new Promise((r) => requestAnimationFrame(() => r(performance.now()))) : false;
      })()`,
      null,
      { timeout: 30_000, polling: "raf" },
    )
  ).jsonValue()) as number;
  await page.getByRole("button", { name: "Close thread" }).click();
  await page.locator('aside[aria-label^="Thread of run"]').waitFor({ state: "detached" });
  return done - start;
}

await main();
