/**
 * The run page `/runs/:run_id` with the #sales agents on the built-in model.
 *
 * 1. A person asks #sales for last quarter's trends (through the API); the run page, open while
 *    the run executes, shows pm-1 waiting for input; after the answer (through the API) the
 *    analyst's subtask and qa-1's oversight review appear under it, each edge labelled with its
 *    handoff and routing, and the states change to succeeded. Nodes already placed do not move.
 * 2. Replay: a deep link to the event that handed the work to analyst-1 shows exactly the state
 *    after it (pm-1 running, analyst-1 pending, no review yet); the keyboard steps and the URL
 *    follows; the side panel shows the analyst's task with its routing and events up to there.
 * 3. Fork: "Re-run from here" on that event asks first (Cancel starts nothing), then opens a
 *    new run that says where it came from and goes on by itself; its comparison with the source
 *    shows both sides; the channel shows nothing of the fork (the original's thread lists it); the source run
 *    lists its fork.
 * 4. Export and import: the exported JSON Lines, imported as a new run through the dialog, give
 *    the same events (ids aside); a bad line is reported with its number and nothing is stored.
 *
 * Screenshots (1280×800 light and dark, 390×844) go to the test's output folder only; the
 * README's are taken on a clean workspace by scripts/screenshots.ts.
 *
 * The tests share one run, in order. Every e2e test shares one database and #sales, so the run
 * is found by the message this test posts.
 */
import fs from "node:fs";
import AxeBuilder from "@axe-core/playwright";
import { expect, test, type APIRequestContext, type Page, type TestInfo } from "@playwright/test";
import type { ThreadSummary } from "../lib/api/types";
import type { StoredEvent } from "../lib/protocol";
import { askForRun, messageLog } from "./helpers";

test.describe.configure({ mode: "serial" });

const QUESTION_TEXT = "Analyze last quarter's sales trends";
let runId = "";
let threadId = "";

async function salesThread(request: APIRequestContext): Promise<ThreadSummary> {
  const res = await request.get("/api/threads");
  const sales = ((await res.json()).threads as ThreadSummary[]).find((t) => t.name === "sales");
  expect(sales, "the server creates #sales on start").toBeTruthy();
  return sales!;
}

async function runEvents(request: APIRequestContext, id: string): Promise<StoredEvent[]> {
  const out: StoredEvent[] = [];
  let after = 0;
  for (;;) {
    const res = await request.get(`/api/runs/${id}/events?after=${after}&limit=1000`);
    expect(res.status()).toBe(200);
    const page = await res.json();
    out.push(...page.events);
    if (page.next_after === null) return out;
    after = page.next_after;
  }
}

/** Approves (through the API) what the run's policy holds until the run has succeeded. */
async function approveUntilDone(request: APIRequestContext, id: string): Promise<void> {
  await expect
    .poll(
      async () => {
        const evs = await runEvents(request, id);
        const decided = new Set(evs.filter((e) => e.type.startsWith("approval.") && e.type !== "approval.requested").map((e) => (e.payload as { approval_id?: string }).approval_id));
        for (const e of evs.filter((x) => x.type === "approval.requested")) {
          const approval = (e.payload as { approval_id?: string }).approval_id;
          if (approval && !decided.has(approval)) await request.post(`/api/approvals/${approval}/decision`, { data: { decision: "approve" } });
        }
        return ((await (await request.get(`/api/runs/${id}`)).json()).run as { state: string }).state;
      },
      { timeout: 60_000, intervals: [500, 1000] },
    )
    .toBe("succeeded");
}

/** The example agents' display names (from their CAP system prompts): task nodes are labelled by them. */
const CARD_NAME: Record<string, string> = { "pm-1": "Project Manager", "analyst-1": "Analyst Agent", "qa-1": "QA Agent" };

/** The node button of an agent's task: "analyst-1: <title> — <state>". */
function taskNode(page: Page, agent: string, state?: string | RegExp) {
  const s = state === undefined ? ".*" : typeof state === "string" ? state : state.source;
  return page.getByRole("button", { name: new RegExp(`^${CARD_NAME[agent] ?? agent}: .* — (${s})`) });
}

/** The node's position on the canvas (React Flow's transform), to check it never moves. */
async function nodePosition(page: Page, agent: string): Promise<string> {
  return (await page.locator(".react-flow__node", { has: taskNode(page, agent) }).getAttribute("style"))?.match(/translate\([^)]*\)/)?.[0] ?? "";
}

/** Light and dark, into the test's output folder. */
async function shoot(page: Page, info: TestInfo, name: string) {
  for (const scheme of ["light", "dark"] as const) {
    await page.emulateMedia({ colorScheme: scheme });
    await page.mouse.move(5, 400);
    await page.waitForTimeout(250);
    const file = info.outputPath(`${name}-${scheme}.png`);
    await page.screenshot({ path: file });
    await info.attach(`${name}-${scheme}`, { path: file, contentType: "image/png" });
  }
  await page.emulateMedia({ colorScheme: "light" });
}

test("a run's DAG grows live: nodes appear and change state, and placed nodes stay put", async ({ page, request }, info) => {
  test.setTimeout(150_000);
  const thread = await salesThread(request);
  threadId = thread.id;
  // A new request, even if an earlier run in this shared channel waits for an answer.
  ({ runId } = await askForRun(request, thread.id, QUESTION_TEXT));

  await page.goto(`/runs/${runId}`);
  await expect(page.getByRole("heading", { level: 1, name: QUESTION_TEXT })).toBeVisible();
  await expect(page.getByRole("navigation", { name: "Breadcrumb" }).getByRole("link", { name: "sales" })).toHaveAttribute("href", `/c/${thread.id}`);
  // pm-1 asks its clarifying question: its node waits for input; the edge from the run says how it was routed.
  await expect(taskNode(page, "pm-1", "Waiting on you")).toBeVisible({ timeout: 30_000 });
  // The run reads the same everywhere: its node says whom it waits on, never "Running".
  await expect(page.locator("[data-run-node]").getByText("Run state: Waiting on you")).toBeVisible();
  await expect(page.locator('[data-edge-kind="request"]')).toContainText("request · Project Manager");
  await expect(taskNode(page, "analyst-1")).toHaveCount(0);
  await expect(page.getByRole("slider", { name: "Replay position" })).toBeVisible();
  await expect(page.getByText("Live", { exact: true })).toBeVisible();
  const pmAt = await nodePosition(page, "pm-1");

  // The person answers (through the API, as another tab would).
  const events = await runEvents(request, runId);
  const question = events.find((e) => e.type === "chat.message" && (e.payload as { expects_reply?: boolean }).expects_reply);
  expect(question).toBeTruthy();
  const answer = await request.post(`/api/threads/${thread.id}/messages`, {
    data: { text: "Regional breakdown by major market", reply_to: question!.id },
  });
  expect(answer.status()).toBe(201);

  // The work is handed on: analyst-1's subtask, then qa-1's review of it, appear and finish.
  await expect(taskNode(page, "analyst-1")).toBeVisible({ timeout: 30_000 });
  await expect(page.locator('[data-edge-kind="delegation"]').first()).toContainText("delegation · Analyst Agent");
  await expect(taskNode(page, "qa-1")).toBeVisible({ timeout: 30_000 });
  await expect(page.locator('[data-edge-kind="review"]')).toContainText("oversight review · QA Agent");
  await expect(page.locator('[data-edge-kind="review"]')).toHaveAttribute("title", /oversees/);
  await expect(taskNode(page, "qa-1", "Succeeded")).toBeVisible({ timeout: 60_000 });
  await expect(taskNode(page, "analyst-1", "Succeeded")).toBeVisible({ timeout: 60_000 });
  // pm-1 reports. Where the policy holds the report for a person's approval, its node
  // says so until the person approves (through the API).
  await expect(taskNode(page, "pm-1", "Succeeded|Waiting on you")).toBeVisible({ timeout: 60_000 });
  await approveUntilDone(request, runId);
  await expect(taskNode(page, "pm-1", "Succeeded")).toBeVisible();
  await expect(page.locator("[data-run-node]").getByText("Run state: Succeeded")).toBeVisible();
  expect(await nodePosition(page, "pm-1")).toBe(pmAt);

  await shoot(page, info, "run-live-desktop");
});

test("replay: a deep link shows the run exactly after that event; keys step and the URL follows", async ({ page, request }, info) => {
  test.skip(!runId, "needs the run of the first test");
  test.setTimeout(90_000); // replays the whole run at instant speed and takes three screenshots
  const events = await runEvents(request, runId);
  const handoff = events.findIndex((e) => e.type === "task.request" && e.to.some((t) => t.agent_id === "agent:analyst-1"));
  expect(handoff).toBeGreaterThan(0);
  const seq = events[handoff]!.seq;

  await page.goto(`/runs/${runId}?at=${seq}`);
  const slider = page.getByRole("slider", { name: "Replay position" });
  await expect(slider).toHaveValue(String(handoff + 1));
  await expect(page.getByText("Replay", { exact: true })).toBeVisible();
  // The state after events 1..N: pm-1 works, analyst-1 has its task but has not accepted it, no review yet.
  await expect(taskNode(page, "pm-1", "Running")).toBeVisible();
  await expect(taskNode(page, "analyst-1", "Pending")).toBeVisible();
  await expect(taskNode(page, "qa-1")).toHaveCount(0);
  await expect(page.locator("[data-run-node]")).toHaveAttribute("data-count", String(handoff + 1));
  await expect(page.locator("[data-run-node]")).toContainText("0 of 2 tasks done");
  // The timeline marks that event, later ones are still to come.
  const current = page.getByRole("listitem").and(page.locator('[aria-current="step"]'));
  await expect(current).toHaveAttribute("data-seq", String(seq));

  // The analyst's panel: its routing, and its events up to here (the request only).
  await taskNode(page, "analyst-1").click();
  const panel = page.getByRole("complementary", { name: /^Task: / });
  await expect(panel.getByRole("region", { name: "Routing", exact: true })).toContainText("Routed to Analyst Agent");
  await expect(panel.getByRole("region", { name: "Events of the task" }).getByRole("article")).toHaveCount(1);
  await expect(panel.getByRole("region", { name: "Events of the task" })).toContainText("Task requested");

  // → steps forward until analyst-1 accepts; the panel and graph follow; the URL too.
  await page.locator("body").press("Escape");
  await expect(panel).toBeHidden();
  const accept = events.findIndex((e, i) => i > handoff && e.type === "task.accept" && e.from.agent_id === "agent:analyst-1");
  for (let i = handoff; i < accept; i++) await page.keyboard.press("ArrowRight");
  await expect(slider).toHaveValue(String(accept + 1));
  await expect(taskNode(page, "analyst-1", "Running")).toBeVisible();
  await expect(page).toHaveURL(new RegExp(`[?&]at=${events[accept]!.seq}$`));
  // ← goes back one event: pending again.
  await page.keyboard.press("ArrowLeft");
  await expect(taskNode(page, "analyst-1", "Pending")).toBeVisible();
  // Home: nothing has happened yet; End: back to the newest state, live.
  await page.keyboard.press("Home");
  await expect(slider).toHaveValue("0");
  await expect(taskNode(page, "pm-1")).toHaveCount(0);
  await page.keyboard.press("End");
  await expect(taskNode(page, "qa-1", "Succeeded")).toBeVisible();
  await expect(page).not.toHaveURL(/[?&]at=/);

  // Play from the start at 100×: the graph fills in again.
  await page.keyboard.press("Home");
  await page.getByRole("combobox", { name: "Playback speed" }).selectOption("instant");
  await page.getByRole("button", { name: "Play" }).click();
  await expect(taskNode(page, "qa-1", "Succeeded")).toBeVisible({ timeout: 30_000 });

  // Screenshots: the middle of the run, with the analyst's panel open.
  await page.goto(`/runs/${runId}?at=${events[accept + 4]?.seq ?? seq}`);
  await taskNode(page, "analyst-1").click();
  await expect(page.getByRole("complementary", { name: /^Task: / })).toBeVisible();
  await shoot(page, info, "run-replay-panel-desktop");
  await page.setViewportSize({ width: 390, height: 844 });
  await shoot(page, info, "run-replay-panel-phone");
  await page.getByRole("button", { name: "Close the task panel" }).click();
  await shoot(page, info, "run-replay-phone");
});

test("fork: re-run asks first, starts a new run that links to its source, leaves the channel as it was and compares with it", async ({ page, request }, info) => {
  test.skip(!runId, "needs the run of the first test");
  test.setTimeout(150_000);
  const events = await runEvents(request, runId);
  const handoff = events.find((e) => e.type === "task.request" && e.to.some((t) => t.agent_id === "agent:analyst-1"))!;
  // pm-1's question to the people: before the handoff, so the fork copies it.
  const question = events.find((e) => e.type === "chat.message" && e.from.agent_id === "agent:pm-1" && e.payload.expects_reply === true)!;
  expect(question.seq).toBeLessThan(handoff.seq);
  await page.goto(`/runs/${runId}?at=${handoff.seq}`);
  await expect(taskNode(page, "analyst-1", "Pending")).toBeVisible();

  // It asks first: what is kept, what is done again; Cancel starts nothing.
  const reRun = page.getByRole("button", { name: `Re-run from event #${handoff.seq}` });
  await reRun.click();
  const dialog = page.getByRole("dialog", { name: `Re-run from event #${handoff.seq}?` });
  await expect(dialog).toBeVisible();
  await expect(dialog.getByRole("list", { name: "Done again" })).toContainText(/Analy/);
  await expect(dialog).toContainText("The channel stays as it is");
  await dialog.getByRole("button", { name: "Cancel" }).click();
  await expect(dialog).toBeHidden();
  await expect(page).toHaveURL(new RegExp(runId));
  await reRun.click();
  await dialog.getByRole("button", { name: "Re-run from here" }).click();

  await expect(page).not.toHaveURL(new RegExp(runId));
  await expect(page).toHaveURL(/\/runs\/run_/);
  const fork = decodeURIComponent(new URL(page.url()).pathname.split("/").pop()!);
  const lineage = page.getByLabel("Forked from");
  await expect(lineage).toContainText(QUESTION_TEXT);
  await expect(lineage).toContainText(`at event #${handoff.seq}`);
  await expect(lineage.getByRole("link").first()).toHaveAttribute("href", `/runs/${runId}?at=${handoff.seq}`);
  // The copies come first, then the run goes on live: analyst-1 and its review finish again.
  await expect(taskNode(page, "analyst-1", "Succeeded")).toBeVisible({ timeout: 60_000 });
  await expect(taskNode(page, "qa-1", "Succeeded")).toBeVisible({ timeout: 60_000 });
  const copied = (await runEvents(request, fork)).filter((e) => e.meta?.forked_from);
  expect(copied.length).toBe(events.findIndex((e) => e.seq === handoff.seq) + 1);
  // Its time counts from the fork, not from the original's start.
  expect(copied.every((e) => e.ts > events.at(-1)!.ts)).toBe(true);
  await shoot(page, info, "run-fork-desktop");
  await approveUntilDone(request, fork);

  // Side by side with the original, from the fork point on.
  await lineage.getByRole("link", { name: "Compare with the original" }).click();
  await expect(page.getByRole("heading", { level: 1, name: "Compare with the original" })).toBeVisible();
  await expect(page.getByRole("heading", { name: "What the fork changed" })).toBeVisible();
  // The built-in model answers the same way twice: the same figures.
  await expect(page.getByRole("status").filter({ hasText: /^The fork changed no figure: the \d+ figures both runs reported are the same\.$/ })).toBeVisible();
  await page.getByText(/^What stayed the same: \d+ figures/).click();
  await expect(page.getByRole("list", { name: "Figures that stayed the same" })).toContainText(/Sales/);
  await expect(page.getByRole("region", { name: /^Original: / })).toContainText(/Q4 2017/);
  await expect(page.getByRole("region", { name: /^Fork: / })).toContainText(/Q4 2017/);
  for (const size of [{ width: 1280, height: 800 }, { width: 390, height: 844 }]) {
    await page.setViewportSize(size);
    for (const scheme of ["light", "dark"] as const) {
      await page.emulateMedia({ colorScheme: scheme });
      const { violations } = await new AxeBuilder({ page }).analyze();
      expect(violations.filter((v) => v.impact === "serious" || v.impact === "critical").map((v) => v.id), `${scheme} ${size.width}px`).toEqual([]);
    }
  }
  await page.setViewportSize({ width: 1280, height: 800 });
  await page.emulateMedia({ colorScheme: "light" });
  await shoot(page, info, "run-compare");

  // The channel is as it was: nothing of the fork is in its conversation (no card, no approval,
  // no report, none of the copies); the original's thread lists the fork.
  await page.goto(`/c/${threadId}`);
  const channelLog = messageLog(page, "sales");
  await expect(channelLog.getByRole("article", { name: /^Run: / }).first()).toBeVisible();
  await expect(channelLog.getByRole("article", { name: /^Run: .*\(fork at #/ })).toHaveCount(0);
  const copiedMessages = copied.filter((e) => e.type === "chat.message").map((e) => e.id);
  expect(copiedMessages).toContain(question.id);
  const forkSaid = (await runEvents(request, fork)).filter((e) => !e.meta?.forked_from && e.type === "chat.message").map((e) => e.id);
  expect(forkSaid.length).toBeGreaterThan(0);
  for (const id of forkSaid) await expect(channelLog.locator(`[data-msg-id="${id}"]`)).toHaveCount(0);
  await page.goto(`/c/${threadId}?run=${runId}`);
  const forksInThread = page.getByRole("list", { name: "Forks of this run" });
  await expect(forksInThread).toContainText(new RegExp(`Forked at step #${handoff.seq}:\\s*#\\d+`));
  await forksInThread.getByRole("button").first().click();
  await expect(page).toHaveURL(new RegExp(`[?&]run=${fork}`));

  // The source lists its fork.
  await page.goto(`/runs/${runId}`);
  const forks = page.getByLabel("Forks of this run");
  // Each fork by its number in the channel and its title, "#2 … (fork at #46)".
  await expect(forks.getByRole("link", { name: new RegExp(`^#\\d+ .*\\(fork at #${handoff.seq}\\)$`) })).toHaveAttribute("href", `/runs/${fork}`);
  await expect(forks.getByRole("link", { name: new RegExp(`^Compare fork #\\d+ .*\\(fork at #${handoff.seq}\\) with this run$`) })).toHaveAttribute("href", `/runs/${fork}/compare`);
  await expect(taskNode(page, "qa-1", "Succeeded")).toBeVisible();
  await page.evaluate(() => document.fonts.ready);
  await shoot(page, info, "run-dag");
});

/**
 * An imported copy's export as the file it came from: each line's sender is the one it quotes
 * (`meta.imported.from`), without the quote.
 */
function unquote(jsonl: string): string {
  return jsonl
    .trim()
    .split("\n")
    .map((line) => {
      const m = JSON.parse(line) as { from: unknown; meta?: { imported?: { from: unknown } } & Record<string, unknown> };
      const { imported, ...meta } = m.meta ?? {};
      return JSON.stringify({ ...m, from: imported!.from, ...(Object.keys(meta).length ? { meta } : { meta: undefined }) });
    })
    .join("\n");
}

/**
 * A run's export with run and task ids replaced by their order of appearance, without
 * idempotency keys (an imported run scopes them to itself: "<run>:<original key>").
 */
function normalize(jsonl: string): string[] {
  const ids = new Map<string, string>();
  return jsonl
    .trim()
    .split("\n")
    .map((line) => {
      const m = JSON.parse(line) as { idempotency_key?: string };
      delete m.idempotency_key;
      return JSON.stringify(m).replace(/(run|task)_[0-9A-HJKMNP-TV-Z]{26}/g, (id) => {
        if (!ids.has(id)) ids.set(id, `${id.slice(0, id.indexOf("_"))}#${ids.size}`);
        return ids.get(id)!;
      });
    });
}

test("export and import: the same events come back; a bad line is reported and nothing is stored", async ({ page, request }, info) => {
  test.skip(!runId, "needs the run of the first test");
  await page.goto(`/runs/${runId}`);
  await expect(taskNode(page, "pm-1")).toBeVisible();

  // Export: the header's link downloads the JSON Lines.
  const [download] = await Promise.all([page.waitForEvent("download"), page.getByRole("link", { name: "Export" }).click()]);
  expect(download.suggestedFilename()).toBe(`${runId}.jsonl`);
  const file = info.outputPath(`${runId}.jsonl`);
  await download.saveAs(file);
  const exported = fs.readFileSync(file, "utf8");
  expect(exported.trim().split("\n").length).toBe((await runEvents(request, runId)).length);

  // A bad line: its number and the issue, and nothing imported.
  await page.getByRole("button", { name: "Import" }).click();
  const dialog = page.getByRole("dialog", { name: "Import a run" });
  const lines = exported.trim().split("\n");
  const broken = JSON.parse(lines[2]!);
  delete broken.type;
  await dialog.getByRole("textbox", { name: "Events" }).fill([lines[0], lines[1], JSON.stringify(broken), "{not json"].join("\n"));
  await dialog.getByRole("button", { name: "Import" }).click();
  const problems = dialog.getByRole("list", { name: "Problems by line" });
  await expect(problems).toContainText("Line 3");
  await expect(problems).toContainText("Line 4");
  await expect(dialog.getByRole("alert")).toContainText("Nothing was imported");
  await shoot(page, info, "run-import-errors-desktop");

  // The file itself, as a new run in the same channel.
  await dialog.getByRole("textbox", { name: "Events" }).fill("");
  await dialog.locator('input[type="file"]').setInputFiles(file);
  await expect(dialog).toContainText(`${lines.length} lines`);
  await dialog.getByRole("button", { name: "Import" }).click();
  await expect(page).not.toHaveURL(new RegExp(runId));
  await expect(page).toHaveURL(/\/runs\/run_/);
  const imported = decodeURIComponent(new URL(page.url()).pathname.split("/").pop()!);
  await expect(taskNode(page, "qa-1", "Succeeded")).toBeVisible();
  const slider = page.getByRole("slider", { name: "Replay position" });
  await expect.poll(async () => Number(await slider.getAttribute("max"))).toBeGreaterThanOrEqual(lines.length);

  // The imported copy holds the exported events, each the importer's, quoting its sender; nothing
  // was added after them (a copy never acts: docs/identity.md "Imported runs are copies that never act").
  const again = await (await request.get(`/api/runs/${imported}/export`)).text();
  expect(normalize(unquote(again))).toEqual(normalize(exported));
  const detail = await (await request.get(`/api/runs/${imported}`)).json();
  expect(detail.run.thread_id).toBe(threadId);
});
