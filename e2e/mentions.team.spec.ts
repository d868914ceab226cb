/**
 * Mentions and routing (Clutch Protocol §4.2), seen by a person.
 *
 * - The composer completes `@`: agents (handle, name, status) and capabilities (id, version, how
 *   many agents offer it). ↑/↓ move, Enter/Tab insert (Enter does not send while the list is
 *   open), a click inserts, Escape closes; the textarea is a WAI-ARIA combobox.
 * - A routing.decision renders as a table: the selected agent first with a check, candidates by
 *   rank with score, load and success, rejected agents with their filter and reason, the
 *   tie-break line; a routing.failure says whether the request waits for an agent. The same
 *   renderer in the run view's narrow side panel.
 * - In #sales, `@skill:data-analysis Which region had the highest sales?` is routed by
 *   capability to analyst-1, and the channel shows that decision.
 * - In a channel people created (no entry agent), plain chat starts nothing, and a request for a
 *   capability nobody offers shows "No agent matched · Waiting for an agent" with each agent's
 *   reason.
 *
 * Screenshots go to this test's output directory and, when MENTION_SHOTS is set, to that folder.
 */
import fs from "node:fs";
import path from "node:path";
import { expect, test, type Page, type TestInfo } from "@playwright/test";
import type { ThreadSummary } from "../lib/api/types";
import { newId, type StoredEvent } from "../lib/protocol";
import { createChannel, event, messageLog, openChannel, postEvents, uniqueName } from "./helpers";

const orchestrator = { agent_id: "agent:orchestrator", role: "orchestrator", display_name: "Orchestrator" };

async function shot(page: Page, info: TestInfo, name: string) {
  const file = info.outputPath(`${name}.png`);
  await page.screenshot({ path: file });
  await info.attach(name, { path: file, contentType: "image/png" });
  const dir = process.env.MENTION_SHOTS;
  if (dir) {
    fs.mkdirSync(dir, { recursive: true });
    fs.copyFileSync(file, path.join(dir, `${name}.png`));
  }
}

function composer(page: Page, channel: string) {
  return page.getByRole("combobox", { name: `Message #${channel}` });
}

test("typing @ana lists analyst-1; Enter inserts @analyst-1 and does not send", async ({ page, request }, info) => {
  const thread = await createChannel(request, uniqueName("mentions"));
  await openChannel(page, thread);
  const box = composer(page, thread.name);
  await expect(box).toHaveAttribute("aria-expanded", "false");

  await box.click();
  await box.pressSequentially("Hi @ana");
  const list = page.getByRole("listbox", { name: "Mention an agent, a person or a capability" });
  await expect(list).toBeVisible();
  await expect(box).toHaveAttribute("aria-expanded", "true");
  await expect(box).toHaveAttribute("aria-controls", (await list.getAttribute("id"))!);
  const analyst = list.getByRole("option", { name: /^@analyst-1, / });
  await expect(analyst).toBeVisible();
  await expect(analyst).toHaveAttribute("aria-selected", "true");
  await expect(box).toHaveAttribute("aria-activedescendant", (await analyst.getAttribute("id"))!);
  await expect(list.getByRole("group", { name: "Agents" })).toContainText("@analyst-1");
  await shot(page, info, "composer-agents");

  // ↓ moves the active option (and wraps); ↑ comes back.
  const count = await list.getByRole("option").count();
  await box.press("ArrowDown");
  if (count > 1) await expect(analyst).toHaveAttribute("aria-selected", "false");
  await box.press("ArrowUp");
  await expect(analyst).toHaveAttribute("aria-selected", "true");

  await box.press("Enter");
  await expect(box).toHaveValue("Hi @analyst-1 ");
  await expect(list).toBeHidden();
  await expect(box).toHaveAttribute("aria-expanded", "false");
  // The composer says what the mention will do; nothing was sent.
  await expect(page.getByTestId("composer-mode")).toHaveText(/^Starts a run with Analyst/);
  await page.waitForTimeout(300);
  await expect(messageLog(page, thread.name).getByRole("article", { name: /^Message from / })).toHaveCount(0);
});

test("typing @skill: lists capabilities; a click inserts one; Escape closes; Tab inserts", async ({ page, request }, info) => {
  const thread = await createChannel(request, uniqueName("mentions"));
  await openChannel(page, thread);
  const box = composer(page, thread.name);
  await box.click();
  await box.pressSequentially("@skill:");
  const list = page.getByRole("listbox", { name: "Mention an agent, a person or a capability" });
  const data = list.getByRole("option", { name: /^@skill:data-analysis, capability/ });
  await expect(data).toBeVisible();
  await expect(data).toContainText("v1.2");
  await expect(data).toContainText(/\d agents?/);
  await expect(list.getByRole("option", { name: /^@skill:planning,/ })).toBeVisible();
  await expect(list.getByRole("option", { name: /^@skill:review,/ })).toBeVisible();
  await expect(list.getByRole("option", { name: /tool:mcp/ })).toHaveCount(0);
  await expect(list.getByRole("group", { name: "Agents" })).toHaveCount(0);
  await shot(page, info, "composer-capabilities");

  await data.click();
  await expect(box).toHaveValue("@skill:data-analysis ");
  await expect(box).toBeFocused();
  await expect(list).toBeHidden();
  await expect(page.getByText("Starts a run routed by skill:data-analysis")).toBeVisible();

  // Escape closes the list and keeps the text; it stays closed while that mention is typed on.
  await box.pressSequentially("@qa");
  await expect(list).toBeVisible();
  await box.press("Escape");
  await expect(list).toBeHidden();
  await expect(box).toHaveValue("@skill:data-analysis @qa");
  await box.pressSequentially("-1 and @pm");
  await expect(list.getByRole("option", { name: /^@pm-1, / })).toBeVisible();
  await box.press("Tab");
  await expect(box).toHaveValue("@skill:data-analysis @qa-1 and @pm-1 ");
  await expect(box).toBeFocused();
});

test("a routing decision reads as a table in the channel and in the run view's side panel", async ({ page, request }, info) => {
  const thread = await createChannel(request, uniqueName("routing-table"));
  const run_id = newId("run");
  const task_id = newId("task");
  const ids = { run_id, task_id, from: orchestrator };
  await postEvents(request, [
    event(
      thread.id,
      "routing.decision",
      {
        selected: "agent:ken",
        candidates: ["agent:ken", "agent:mira", "agent:research-2"],
        reason: "matched requires[skill:data-analysis@^1.0]; tie on score settled by least loaded",
        scores: { "agent:ken": 0.83, "agent:mira": 0.83, "agent:research-2": 0.33 },
        requires: ["skill:data-analysis@^1.0"],
        prefers: ["sales", "sql", "mcp:DataServer"],
        mode: "capability",
        ranked: [
          { agent_id: "agent:ken", score: 0.83, matched: ["sales", "sql"], load: 0, max_concurrency: 2, success_rate: 0.92 },
          { agent_id: "agent:mira", score: 0.83, matched: ["sales", "mcp:DataServer"], load: 1, max_concurrency: 2, success_rate: 0.75 },
          { agent_id: "agent:research-2", score: 0.33, matched: ["sql"], load: 0, max_concurrency: 1, success_rate: null },
        ],
        tie_break: { by: "least_loaded", among: ["agent:ken", "agent:mira"] },
        rejected: [
          { agent_id: "agent:coder", filter: "requires", reason: "has no skill:data-analysis" },
          { agent_id: "agent:scout", filter: "concurrency", reason: "at max_concurrency (2 of 2)" },
        ],
      },
      ids,
    ),
    event(thread.id, "task.request", { title: "Which region had the highest sales?", instructions: "Which region had the highest sales?" }, { ...ids, to: [{ agent_id: "agent:ken" }] }),
    event(thread.id, "routing.failure", {
      reason: "no online agent offers skill:forecasting",
      requires: ["skill:forecasting"],
      outcome: "waiting",
      rejected: [
        { agent_id: "agent:analyst-1", filter: "requires", reason: "has no skill:forecasting" },
        { agent_id: "agent:qa-1", filter: "offline", reason: "no heartbeat for 95 s" },
      ],
    }, { from: orchestrator, run_id: newId("run"), task_id: newId("task") }),
    event(
      thread.id,
      "routing.decision",
      { selected: "agent:qa-1", candidates: ["agent:qa-1"], reason: "named by @qa-1 in the message", scores: { "agent:qa-1": 1 }, mode: "fixed" },
      { from: orchestrator, run_id: newId("run"), task_id: newId("task") },
    ),
    event(
      thread.id,
      "routing.failure",
      { reason: "no agent offers skill:legal", requires: ["skill:legal"], outcome: "failed", rejected: [{ agent_id: "agent:pm-1", filter: "requires", reason: "has no skill:legal" }] },
      { from: orchestrator, run_id: newId("run"), task_id: newId("task") },
    ),
  ]);
  await openChannel(page, thread);
  const log = messageLog(page, thread.name);

  const decision = log.getByRole("article", { name: "Routing decision: ken" });
  const table = decision.getByRole("table", { name: "Agents considered" });
  const rows = table.locator("tbody tr");
  await expect(rows).toHaveCount(5);
  await expect(rows.nth(0)).toHaveAttribute("data-routing-row", "selected");
  await expect(rows.nth(0)).toContainText(/ken/i);
  await expect(rows.nth(0)).toContainText("0.83");
  await expect(rows.nth(0)).toContainText("0/2");
  await expect(rows.nth(0)).toContainText("92%");
  await expect(rows.nth(0)).toContainText("~sales");
  await expect(rows.nth(1)).toContainText(/mira/i);
  await expect(rows.nth(2)).toContainText("—");
  await expect(rows.nth(3)).toHaveAttribute("data-routing-row", "rejected");
  await expect(rows.nth(3)).toContainText(/coder/i);
  await expect(rows.nth(3)).toContainText("requires");
  await expect(rows.nth(3)).toContainText("has no skill:data-analysis");
  await expect(decision).toContainText(/Tie on score between ken and mira, settled by least loaded/i);
  await expect(decision).toContainText("skill:data-analysis@^1.0");

  // A named recipient: the short form, no table.
  const named = log.getByRole("article", { name: "Routing decision: QA Agent" });
  await expect(named).toContainText("named by @qa-1 in the message");
  await expect(named).toContainText("named recipient");
  await expect(named.getByRole("table")).toHaveCount(0);
  const failed = log.getByRole("article", { name: "Routing failure: no agent matched", exact: true });
  await expect(failed).toContainText("Failed");
  await expect(failed).toContainText("has no skill:legal");

  const failure = log.getByRole("article", { name: /^Routing failure: no agent matched, waiting/ });
  await expect(failure).toContainText("No agent matched");
  await expect(failure).toContainText("Waiting for an agent");
  await expect(failure.getByRole("table", { name: "Why each agent was left out" }).locator("tbody tr")).toHaveCount(2);
  await expect(failure).toContainText("no heartbeat for 95 s");
  await decision.scrollIntoViewIfNeeded();
  await shot(page, info, "channel-routing-table");
  await page.emulateMedia({ colorScheme: "dark" });
  await shot(page, info, "channel-routing-table-dark");
  await page.emulateMedia({ colorScheme: "light" });
  await page.setViewportSize({ width: 390, height: 844 });
  await decision.scrollIntoViewIfNeeded();
  await shot(page, info, "channel-routing-table-phone");
  await page.setViewportSize({ width: 1280, height: 800 });

  // The run view: the task's side panel shows the same decision, folded for its width.
  await page.goto(`/runs/${run_id}`);
  // By its card name when another test registered ken ("Ken"), else by its id.
  await page.getByRole("button", { name: /^ken: /i }).click();
  const panel = page.getByRole("complementary", { name: /^Task: / });
  const routing = panel.getByRole("region", { name: "Routing", exact: true });
  const inPanel = routing.getByRole("table", { name: "Agents considered" });
  await expect(inPanel.locator('tbody tr[data-routing-row="selected"]')).toContainText("ken");
  await expect(inPanel.locator('tbody tr[data-routing-row="selected"]')).toContainText("load 0/2 · 92% success");
  await shot(page, info, "run-panel-routing");
  // Tall enough to show the whole routing section, rejected agents included.
  await page.setViewportSize({ width: 1280, height: 1300 });
  await shot(page, info, "run-panel-routing-tall");
  await page.setViewportSize({ width: 1280, height: 800 });
});

test("@skill:data-analysis in #sales is routed by capability to analyst-1, shown in the channel", async ({ page, request }, info) => {
  test.setTimeout(90_000);
  const sales = ((await (await request.get("/api/threads")).json()).threads as ThreadSummary[]).find((t) => t.name === "sales");
  expect(sales, "the server creates #sales on start").toBeTruthy();
  // Every event inline: the routing decision is machinery, in the run's thread by default.
  await openChannel(page, sales!);
  const log = messageLog(page, "sales");
  const box = composer(page, "sales");
  await expect(box).toBeEnabled();

  await box.click();
  await box.pressSequentially("@skill:data");
  await expect(page.getByRole("option", { name: /^@skill:data-analysis, / })).toBeVisible();
  await box.press("Enter");
  await expect(box).toHaveValue("@skill:data-analysis ");
  await box.pressSequentially("Which region had the highest sales?");
  await expect(page.getByText("Starts a run routed by skill:data-analysis")).toBeVisible();
  const posted = page.waitForResponse((r) => r.url().endsWith(`/api/threads/${sales!.id}/messages`) && r.request().method() === "POST");
  await box.press("Enter");
  const asked = (await (await posted).json()).event as StoredEvent;
  await expect(box).toHaveValue("");

  // The routing decision of the run this message started, found through the API, in the channel.
  let routing: StoredEvent | undefined;
  await expect
    .poll(
      async () => {
        const runs = (await (await request.get(`/api/threads/${sales!.id}/runs`)).json()).runs as { run_id: string; first_seq: number }[];
        const run = runs.find((r) => r.first_seq >= asked.seq);
        if (!run) return null;
        const events = (await (await request.get(`/api/runs/${run.run_id}/events?after=0&limit=1000`)).json()).events as StoredEvent[];
        routing = events.find((e) => e.type === "routing.decision");
        return routing ? (routing.payload as { selected: string }).selected : null;
      },
      { timeout: 20_000 },
    )
    .toBe("agent:analyst-1");
  const decision = log.locator(`article[data-seq="${routing!.seq}"]`);
  await expect(decision).toHaveAccessibleName("Routing decision: Analyst Agent");
  await expect(decision).toContainText("skill:data-analysis");
  const selected = decision.locator('tbody tr[data-routing-row="selected"]');
  await expect(selected).toContainText("Analyst Agent");
  await decision.scrollIntoViewIfNeeded();
  await shot(page, info, "sales-routed-by-capability");
});

test("in a channel people created, a capability nobody offers waits for an agent, and plain chat starts nothing", async ({ page, request }) => {
  const thread = await createChannel(request, uniqueName("ideas"));
  await openChannel(page, thread);
  const log = messageLog(page, thread.name);
  const box = composer(page, thread.name);

  await box.fill("Morning, everyone");
  await box.press("Enter");
  await expect(log.getByText("Morning, everyone")).toBeVisible();

  const skill = `skill:forecasting-${newId("task").slice(-5).toLowerCase()}`;
  await box.fill(`@${skill} Predict next quarter's sales`);
  await expect(page.getByText(`Starts a run routed by ${skill}`)).toBeVisible();
  await box.press("Enter");
  const failure = log.getByRole("article", { name: /^Routing failure/ });
  await expect(failure).toContainText("No agent matched");
  await expect(failure).toContainText("Waiting for an agent");
  await expect(failure).toContainText(`no agent matches requires[${skill}]`);
  for (const agent of ["Analyst Agent", "Project Manager", "QA Agent"]) await expect(failure.getByRole("row", { name: new RegExp(agent) })).toContainText(`no ${skill}`);
  // The greeting started no run: the only run of the channel is the request.
  const runs = (await (await request.get(`/api/threads/${thread.id}/runs`)).json()).runs as unknown[];
  expect(runs).toHaveLength(1);
});
