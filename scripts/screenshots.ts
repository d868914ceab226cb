/**
 * `npm run screenshots` (after `npm run build`): retakes every README screenshot in
 * docs/screenshots/ on a clean workspace.
 *
 * It starts the real server (`node --import tsx server.ts`, production mode, on `PORT`, default
 * 3300) on a fresh database: with `DATABASE_URL` set, a throwaway `clutch_shots_<time>` database
 * on that PostgreSQL server; else a fresh embedded one in a temporary `CLUTCH_DATA_DIR`. Then it
 * drives Debian's Chromium (/usr/bin/chromium) through the sales example (README.md, "Ask the
 * agents") as a person named Dana Whitfield would: ask #sales for last quarter's trends, answer
 * pm-1's question, approve what the policy holds, read the report, open the run and re-run it,
 * mention a capability, open the agent directory, ask again and cancel that run. Every picture is
 * 1280×800.
 *
 * Prints each file it writes; on a failed step it says which step and why and exits 1. Whatever
 * happens, it stops the server it started and drops the database (or the data folder).
 */
import { spawn, type ChildProcess } from "node:child_process";
import fs from "node:fs";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import { stripVTControlCharacters } from "node:util";
import { chromium, expect, type APIRequestContext, type Browser, type Locator, type Page } from "@playwright/test";
import pg from "pg";
import { messageLog } from "../e2e/helpers";
import { scriptAdminEnv, signIn } from "./session";
import type { ApprovalSummary, ThreadSummary } from "../lib/api/types";
import type { StoredEvent } from "../lib/protocol";
import { CHROMIUM_ARGS } from "../playwright.config";

const ROOT = path.resolve(import.meta.dirname, "..");
const OUT = path.join(ROOT, "docs", "screenshots");
const PORT = Number(process.env.PORT ?? 3300);
const BASE_URL = `http://localhost:${PORT}`;
const ASK = "Analyze last quarter's sales trends";
const ANSWER = "Regional breakdown by major market";
/** The example agents' card names: the run view labels task nodes with them. */
const CARD_NAME: Record<string, string> = { "pm-1": "Project Manager", "analyst-1": "Analyst Agent", "qa-1": "QA Agent" };
const SEGMENTS = "Now break it down by customer segment";
const ROUTED = "Which region had the highest sales?";
const FOLLOW_UP = "Yes, compare with last year";
/** The agents' work on the built-in model is quick; a loaded machine may still take a while. */
const SLOW = { timeout: 120_000 };

/** Runs one step of the script; a failure names the step. */
async function step<T>(name: string, run: () => Promise<T>): Promise<T> {
  console.log(`· ${name}`);
  try {
    return await run();
  } catch (err) {
    throw new Error(`${name}: ${stripVTControlCharacters(err instanceof Error ? err.message : String(err))}`);
  }
}

// ── The workspace: a fresh database and the real server ──────────────────────────────────────

/** Something to undo at the end, newest first. */
const cleanups: { what: string; run: () => Promise<void> }[] = [];

/** A fresh database for the server: its environment variables. */
async function freshDatabase(): Promise<Record<string, string>> {
  const base = process.env.DATABASE_URL;
  if (!base) {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "clutch-shots-"));
    cleanups.unshift({ what: `remove ${dir}`, run: async () => fs.rmSync(dir, { recursive: true, force: true }) });
    return { DATABASE_URL: "", CLUTCH_DATA_DIR: dir };
  }
  const name = `clutch_shots_${Date.now()}`;
  const admin = async (sql: string) => {
    const client = new pg.Client({ connectionString: base });
    await client.connect();
    try {
      await client.query(sql);
    } finally {
      await client.end();
    }
  };
  await admin(`CREATE DATABASE "${name}"`);
  cleanups.unshift({ what: `drop database ${name}`, run: () => admin(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`) });
  const url = new URL(base);
  url.pathname = `/${name}`;
  return { DATABASE_URL: url.toString() };
}

/** True when something answers /api/health on the port. */
async function healthy(): Promise<boolean> {
  try {
    return (await fetch(`${BASE_URL}/api/health`)).ok;
  } catch {
    return false;
  }
}

/** True when nothing listens on the port yet. */
function portFree(): Promise<boolean> {
  return new Promise((resolve) => {
    const probe = net.createServer();
    probe.once("error", () => resolve(false));
    probe.listen(PORT, () => probe.close(() => resolve(true)));
  });
}

/** Starts the production server on the database and waits until /api/health answers. */
async function startServer(env: Record<string, string>): Promise<void> {
  if (!Number.isInteger(PORT) || PORT < 1 || PORT > 65535) throw new Error(`PORT must be a port number, not ${process.env.PORT}`);
  if (!fs.existsSync(path.join(ROOT, ".next", "BUILD_ID"))) throw new Error("no production build: run `npm run build` first");
  if (!(await portFree())) throw new Error(`port ${PORT} is taken: stop what listens there or set PORT`);
  const server: ChildProcess = spawn(process.execPath, ["--import", "tsx", "server.ts"], {
    cwd: ROOT,
    env: { ...process.env, ...env, ...scriptAdminEnv, NODE_ENV: "production", PORT: String(PORT), LOG_LEVEL: "warn" },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let output = "";
  const keep = (chunk: Buffer) => (output = (output + chunk.toString()).slice(-4000));
  server.stdout!.on("data", keep);
  server.stderr!.on("data", keep);
  const exited = new Promise<void>((resolve) => server.once("exit", () => resolve()));
  cleanups.unshift({
    what: "stop the server",
    run: async () => {
      if (server.exitCode !== null || server.signalCode !== null) return;
      server.kill("SIGTERM");
      const killer = setTimeout(() => server.kill("SIGKILL"), 15_000);
      await exited;
      clearTimeout(killer);
    },
  });
  const deadline = Date.now() + 180_000;
  while (!(await healthy())) {
    if (server.exitCode !== null) throw new Error(`the server exited with code ${server.exitCode}:\n${output}`);
    if (Date.now() > deadline) throw new Error(`the server did not answer /api/health within 3 min:\n${output}`);
    await new Promise((r) => setTimeout(r, 500));
  }
}

// ── Pictures ─────────────────────────────────────────────────────────────────────────────────

/** Takes docs/screenshots/<file> of the page as it is, without hover effects. */
async function shoot(page: Page, file: string): Promise<void> {
  await page.mouse.move(640, 790);
  await page.evaluate(() => document.fonts.ready);
  await page.waitForTimeout(300);
  await page.screenshot({ path: path.join(OUT, file) });
  console.log(`  wrote ${path.relative(ROOT, path.join(OUT, file))}`);
}

/** Scrolls the message pane so that `target` is at its top (or as near as the pane allows). */
async function scrollToTop(page: Page, target: Locator): Promise<void> {
  await target.evaluate((el) => {
    let box = el.parentElement;
    while (box && getComputedStyle(box).overflowY !== "auto") box = box.parentElement;
    if (box) box.scrollTop += el.getBoundingClientRect().top - box.getBoundingClientRect().top - 8;
  });
  await page.waitForTimeout(200);
}

/** Scrolls the message pane to its end. */
async function scrollToBottom(page: Page, inside: Locator): Promise<void> {
  await inside.evaluate((el) => {
    let box = el.parentElement;
    while (box && getComputedStyle(box).overflowY !== "auto") box = box.parentElement;
    if (box) box.scrollTop = box.scrollHeight;
  });
  await page.waitForTimeout(200);
}

// ── The person's path through the sales example ──────────────────────────────────────────────

/** What every step works with: the page, its API client, and #sales with its log and composer. */
interface Session {
  page: Page;
  request: APIRequestContext;
  sales: ThreadSummary;
  log: Locator;
  box: Locator;
}

async function salesThread(request: APIRequestContext): Promise<ThreadSummary> {
  const threads = (await (await request.get("/api/threads")).json()).threads as ThreadSummary[];
  const sales = threads.find((t) => t.name === "sales");
  if (!sales) throw new Error("the server made no #sales channel (is CLUTCH_WORKSPACE set to another workspace?)");
  return sales;
}

async function pendingApprovals(request: APIRequestContext, runId: string): Promise<ApprovalSummary[]> {
  const list = (await (await request.get("/api/approvals?state=pending")).json()).approvals as ApprovalSummary[];
  return list.filter((a) => a.run_id === runId);
}

async function runState(request: APIRequestContext, runId: string): Promise<string> {
  return ((await (await request.get(`/api/runs/${encodeURIComponent(runId)}`)).json()).run as { state: string }).state;
}

/** In the inbox, presses j until the approval is the selected item. */
async function selectInInbox(page: Page, approvalId: string): Promise<void> {
  const item = page.locator(`[data-approval-item="${approvalId}"]`);
  await expect(item).toBeVisible();
  for (let i = 0; i < 20 && (await item.getAttribute("data-selected")) === null; i++) await page.keyboard.press("j");
  await expect(item).toHaveAttribute("data-selected", "true");
}

/** Asks #sales for the trends, answers pm-1's question, approves what the policy holds. Answers the run's id. */
async function salesRun(s: Session): Promise<string> {
  const { page, request, log, box } = s;
  await step(`ask #sales: "${ASK}"`, async () => {
    await page.goto(`/c/${s.sales.id}`);
    await expect(log).toBeVisible();
    await box.fill(ASK);
    await box.press("Enter");
    await expect(box).toHaveValue("");
  });

  const run = log.getByRole("article", { name: `Run: ${ASK}` });
  const question = log.getByRole("article", { name: "Question from Project Manager" });
  await step("pm-1 asks its question: sales-question.png", async () => {
    await expect(question.getByText("Waiting for your answer", { exact: true }).first()).toBeVisible(SLOW);
    await expect(page.getByRole("list", { name: "Agents" }).getByRole("button", { name: /^pm-1, .*waiting for an answer/ })).toBeVisible(SLOW);
    await scrollToBottom(page, question);
    await shoot(page, "sales-question.png");
  });
  await step("the question in For you: for-you.png", async () => {
    await page.goto("/inbox");
    await expect(page.getByRole("heading", { level: 1, name: "For you" })).toBeVisible();
    await expect(page.getByText("customer segments, or overall", { exact: false }).first()).toBeVisible(SLOW);
    await shoot(page, "for-you.png");
    await page.goto(`/c/${s.sales.id}`);
    await expect(question).toBeVisible(SLOW);
  });
  const runId = (await run.getAttribute("data-run-id"))!;

  await step(`answer pm-1: "${ANSWER}"`, async () => {
    await question.getByRole("button", { name: "Answer" }).click();
    await expect(box).toBeFocused();
    await box.fill(ANSWER);
    await box.press("Enter");
    await expect(question.getByText("Answered", { exact: true }).first()).toBeVisible();
  });

  await step("approve each step the policy holds, until the run ends", async () => {
    for (;;) {
      let held: ApprovalSummary | undefined;
      await expect
        .poll(async () => {
          held = (await pendingApprovals(request, runId))[0];
          return held ? "held" : await runState(request, runId);
        }, SLOW)
        .not.toBe("running");
      if (!held) break;
      const card = page.locator(`[data-approval-id="${held.approval_id}"]`);
      await expect(card.getByText("Approval: waiting for a decision", { exact: true }).first()).toBeVisible(SLOW);
      if (held.rule === "approve-final-report") await shootHeldReport(s, card, held);
      await card.getByRole("button", { name: "Approve", exact: true }).click();
      await expect(card).toHaveAttribute("data-approval-state", "granted");
    }
    const state = await runState(request, runId);
    if (state !== "succeeded") throw new Error(`the run ended ${state}`);
  });

  await step("the run card with its result, and the report: sales-report.png", async () => {
    await expect(run.getByText("Run state: Succeeded")).toBeVisible(SLOW);
    await expect(page.getByRole("list", { name: "Agents" }).getByRole("button", { name: /^pm-1, Project Manager: online$/ })).toBeVisible(SLOW);
    await expect(run).toContainText("Result · Project Manager");
    await scrollToTop(page, run);
    await shoot(page, "sales-report.png");
  });

  await step("the conversation with the run's thread beside it: channel-light.png, channel-dark.png", async () => {
    // The channel: the request, the question and its answer, the run card; the pane: every step
    // of the run (tasks, tool calls and results, routing and policy, agents talking, qa-1's review).
    await run.getByRole("button", { name: /^Open the thread of / }).click();
    const pane = page.getByRole("complementary", { name: `Thread of run ${ASK}` });
    const result = pane.getByRole("article", { name: "Result: Q4 2017 sales analysis by region" });
    await expect(result.getByText("Approved by QA Agent", { exact: true }).first()).toBeVisible(SLOW);
    await scrollToTop(page, question);
    await result.scrollIntoViewIfNeeded();
    await shoot(page, "channel-light.png");
    await page.emulateMedia({ colorScheme: "dark" });
    await shoot(page, "channel-dark.png");
    await page.emulateMedia({ colorScheme: "light" });
    await pane.getByRole("button", { name: "Close thread" }).click();
  });
  return runId;
}

/** While pm-1's report is held: its card in #sales (approvals.png) and the inbox (approvals-inbox.png). */
async function shootHeldReport({ page }: Session, card: Locator, held: ApprovalSummary): Promise<void> {
  // The card from its title to its buttons; when it is taller than the pane, down to its buttons.
  await scrollToTop(page, card);
  const approve = card.getByRole("button", { name: "Approve", exact: true });
  await approve.evaluate((el) => {
    let box = el.parentElement;
    while (box && getComputedStyle(box).overflowY !== "auto") box = box.parentElement;
    const below = el.getBoundingClientRect().bottom + 12 - (box?.getBoundingClientRect().bottom ?? window.innerHeight);
    if (box && below > 0) box.scrollTop += below;
  });
  await page.waitForTimeout(200);
  await expect(approve).toBeInViewport({ ratio: 1 });
  await shoot(page, "approvals.png");
  const channel = page.url();
  await page.goto("/approvals");
  await selectInInbox(page, held.approval_id);
  await shoot(page, "approvals-inbox.png");
  await page.goto(channel);
  await expect(card).toBeVisible();
}

/** The run page: re-runs the run from the analyst's hand-off, approves the fork's report, then shows the source run. */
async function runPage(s: Session, runId: string): Promise<void> {
  const { page, request } = s;
  const node = (agent: string, state: string) => page.getByRole("button", { name: new RegExp(`^${CARD_NAME[agent] ?? agent}: .* — ${state}`) });
  await step("open the run and re-run it from the analyst's hand-off", async () => {
    await s.log.getByRole("article", { name: `Run: ${ASK}` }).getByRole("link", { name: /^Open run / }).click();
    await expect(page.getByRole("heading", { level: 1, name: ASK })).toBeVisible();
    await expect(node("qa-1", "Succeeded")).toBeVisible(SLOW);
    const events = (await (await request.get(`/api/runs/${encodeURIComponent(runId)}/events?after=0&limit=1000`)).json()).events as StoredEvent[];
    const handoff = events.find((e) => e.type === "task.request" && e.to.some((t) => t.agent_id === "agent:analyst-1"));
    if (!handoff) throw new Error("the run has no task for analyst-1");
    await page.goto(`/runs/${encodeURIComponent(runId)}?at=${handoff.seq}`);
    await expect(node("analyst-1", "Pending")).toBeVisible();
    await page.getByRole("button", { name: `Re-run from event #${handoff.seq}` }).click();
    const dialog = page.getByRole("dialog", { name: `Re-run from event #${handoff.seq}?` });
    await expect(dialog.getByRole("list", { name: "Done again" })).toBeVisible();
    await shoot(page, "fork-dialog.png");
    await dialog.getByRole("button", { name: "Re-run from here" }).click();
    await expect(page.getByLabel("Forked from")).toBeVisible();
  });
  const fork = decodeURIComponent(new URL(page.url()).pathname.split("/").pop()!);

  await step("approve the re-run's report from the inbox", async () => {
    let held: ApprovalSummary | undefined;
    await expect.poll(async () => (held = (await pendingApprovals(request, fork))[0])?.rule, SLOW).toBe("approve-final-report");
    await page.goto("/approvals");
    await selectInInbox(page, held!.approval_id);
    await page.keyboard.press("a");
    await expect(page.locator(`[data-approval-item="${held!.approval_id}"]`)).toHaveCount(0);
    await expect.poll(() => runState(request, fork), SLOW).toBe("succeeded");
  });

  await step("the finished run with its fork: run-dag.png", async () => {
    // Read #sales first, so that the sidebar has no unread count.
    await page.goto(`/c/${s.sales.id}`);
    await expect(s.log.getByRole("article", { name: `Run: ${ASK}` }).last().getByText("Run state: Succeeded")).toBeVisible(SLOW);
    await page.goto(`/runs/${encodeURIComponent(runId)}`);
    await expect(page.getByLabel("Forks of this run")).toBeVisible();
    await expect(node("qa-1", "Succeeded")).toBeVisible(SLOW);
    await shoot(page, "run-dag.png");
  });

  await step("what the run cost, per agent: run-usage.png", async () => {
    const bar = page.getByRole("region", { name: "Run usage" });
    await bar.getByRole("button", { name: "Breakdown" }).click();
    await expect(bar.getByRole("table", { name: "Model usage and time per agent" })).toBeVisible();
    await shoot(page, "run-usage.png");
    await bar.getByRole("button", { name: "Hide breakdown" }).click();
  });

  await step("the fork beside the original: fork-compare.png", async () => {
    await page.goto(`/runs/${encodeURIComponent(fork)}/compare`);
    await expect(page.getByRole("status").filter({ hasText: /^No figure differs/ })).toBeVisible(SLOW);
    await shoot(page, "fork-compare.png");
  });
}

/** A follow-up in the run's thread, answered by segment for the period agreed: follow-up.png. */
async function followUp(s: Session, runId: string): Promise<void> {
  const { page, log } = s;
  await step(`follow up in the run's thread: "${SEGMENTS}"`, async () => {
    // The original run's thread (its card is far up the channel by now): the link its card opens.
    await page.goto(`/c/${s.sales.id}?run=${encodeURIComponent(runId)}`);
    const pane = page.getByRole("complementary", { name: `Thread of run ${ASK}` });
    const reply = pane.getByRole("combobox", { name: /^Follow-up for / });
    await reply.fill(SEGMENTS);
    await reply.press("Enter");
    await expect(reply).toHaveValue("");
    const segments = log.getByRole("article").filter({ hasText: "Q4 2017 by customer segment" }).last();
    await expect(segments).toBeVisible(SLOW);
    await expect(pane.getByText("Run state: Succeeded").first()).toBeVisible(SLOW);
    await scrollToTop(page, segments);
    await shoot(page, "follow-up.png");
    await pane.getByRole("button", { name: "Close thread" }).click();
  });
}

/** Mentions in #sales: the completion list, then a request routed by capability, answered to its end. */
async function mentions(s: Session): Promise<void> {
  const { page, log, box } = s;
  await step("type @ in #sales: mention-completion.png", async () => {
    await page.goto(`/c/${s.sales.id}`);
    await expect(log).toBeVisible();
    await box.click();
    await box.pressSequentially("@");
    await expect(page.getByRole("listbox", { name: "Mention an agent, a person or a capability" })).toBeVisible();
    await shoot(page, "mention-completion.png");
    await box.press("Escape");
    await box.fill("");
  });

  const run = log.getByRole("article", { name: `Run: ${ROUTED}` });
  await step(`ask "@skill:data-analysis ${ROUTED}" and answer analyst-1`, async () => {
    await box.pressSequentially("@skill:data");
    await expect(page.getByRole("option", { name: /^@skill:data-analysis, / })).toBeVisible();
    await box.press("Enter");
    await box.pressSequentially(ROUTED);
    await box.press("Enter");
    await expect(box).toHaveValue("");
    const question = log.getByRole("article", { name: "Question from Analyst Agent" }).last();
    await expect(question.getByText("Waiting for your answer", { exact: true }).first()).toBeVisible(SLOW);
    await question.getByRole("button", { name: "Answer" }).click();
    await box.fill(FOLLOW_UP);
    await box.press("Enter");
    await expect(run.getByText("Run state: Succeeded")).toBeVisible(SLOW);
  });

  await step("the routing decision in the run's thread: routing-decision.png", async () => {
    await run.getByRole("button", { name: /^Open the thread of / }).click();
    const pane = page.getByRole("complementary", { name: `Thread of run ${ROUTED}` });
    // The thread folds how work was routed behind "Details": open the first.
    await pane.getByRole("button", { name: /Clutch routed it to Analyst Agent/ }).first().click();
    const decision = pane.getByRole("article", { name: "Routing decision: Analyst Agent" }).last();
    await expect(decision).toContainText("by capability");
    await scrollToTop(page, decision);
    await shoot(page, "routing-decision.png");
    await pane.getByRole("button", { name: "Close thread" }).click();
  });
}

/** The agent directory with analyst-1's card open. */
async function directory({ page }: Session): Promise<void> {
  await step("the agent directory: agents-directory.png", async () => {
    await page.goto("/agents");
    await expect(page.getByRole("heading", { level: 1, name: "Agents" })).toBeVisible();
    await page.getByRole("list", { name: "Registered agents" }).getByText("agent:analyst-1", { exact: true }).click();
    await expect(page.getByRole("list", { name: "Recent tasks" })).toBeVisible();
    await shoot(page, "agents-directory.png");
  });
}

/** The same request again, cancelled from the run view while pm-1 waits for an answer. */
async function cancelled(s: Session): Promise<void> {
  const { page, log, box } = s;
  const runId = await step(`ask "${ASK}" again and open its run`, async () => {
    await page.goto(`/c/${s.sales.id}`);
    await expect(log).toBeVisible();
    await box.fill(ASK);
    await box.press("Enter");
    const run = log.getByRole("article", { name: `Run: ${ASK}` }).last();
    await expect(run.getByRole("button", { name: "Answer" })).toBeVisible(SLOW);
    return (await run.getAttribute("data-run-id"))!;
  });
  await step("cancel it from the run view: run-cancelled.png", async () => {
    await page.goto(`/runs/${runId}`);
    await page.getByRole("button", { name: "Cancel run" }).click();
    const dialog = page.getByRole("dialog", { name: "Cancel this run?" });
    await dialog.getByRole("textbox", { name: /Reason/ }).fill("Asked twice by mistake");
    await dialog.getByRole("button", { name: "Cancel run" }).click();
    const node = page.getByRole("button", { name: /^Project Manager: .* — Cancelled/ });
    await expect(node).toBeVisible(SLOW);
    await node.click();
    await expect(page.getByRole("complementary", { name: `Task: ${ASK}` })).toContainText("Cancelled by Dana Whitfield: Asked twice by mistake");
    await shoot(page, "run-cancelled.png");
  });
}

async function takeScreenshots(browser: Browser): Promise<void> {
  const context = await browser.newContext({ baseURL: BASE_URL, viewport: { width: 1280, height: 800 }, colorScheme: "light", locale: "en-US" });
  await context.addCookies((await signIn(BASE_URL)).cookies);
  const page = await context.newPage();
  const sales = await salesThread(context.request);
  const s: Session = { page, request: context.request, sales, log: messageLog(page, "sales"), box: page.getByRole("combobox", { name: "Message #sales" }) };
  const runId = await salesRun(s);
  await runPage(s, runId);
  await followUp(s, runId);
  await mentions(s);
  await directory(s);
  await cancelled(s);
  await context.close();
}

// ── Main ─────────────────────────────────────────────────────────────────────────────────────

let browser: Browser | undefined;
let failed = false;
let interrupted = false;
let cleaning: Promise<void> | undefined;

/** Closes the browser, stops the server, drops the database; once, however often it is called. */
function cleanUp(): Promise<void> {
  cleaning ??= (async () => {
    await browser?.close().catch(() => {});
    for (const c of cleanups) {
      await c.run().catch((err) => {
        failed = true;
        console.error(`could not ${c.what}: ${err instanceof Error ? err.message : String(err)}`);
      });
    }
  })();
  return cleaning;
}
for (const signal of ["SIGINT", "SIGTERM"] as const) {
  process.once(signal, () => {
    interrupted = failed = true;
    console.error(`${signal}: cleaning up`);
    void cleanUp().finally(() => process.exit(1));
  });
}

try {
  const env = await step(process.env.DATABASE_URL ? "create a throwaway database" : "create an embedded database", freshDatabase);
  await step(`start the server on port ${PORT}`, () => startServer(env));
  // Signals are ours to handle (Playwright's own handlers would exit before the database is dropped).
  const launch = { executablePath: "/usr/bin/chromium", args: CHROMIUM_ARGS, handleSIGINT: false, handleSIGTERM: false };
  browser = await step("launch Chromium", () => chromium.launch(launch));
  fs.mkdirSync(OUT, { recursive: true });
  await takeScreenshots(browser);
} catch (err) {
  failed = true;
  // Playwright appends the browser's own log to its errors: what matters comes before it.
  if (!interrupted) console.error(`screenshots failed: ${(err instanceof Error ? err.message : String(err)).split("\nBrowser logs:")[0]}`);
} finally {
  await cleanUp();
}
process.exit(failed ? 1 : 0);
