/**
 * What a run cost, as a person sees it (docs/observability.md): a run whose agents reported their
 * model calls (`model.usage`, restored with the run as an import would) shows its tokens and cost
 * on its card in the channel; the run view shows them per task (node badges, the task panel) and
 * in the breakdown per agent, names the model without a price, says in words that a task was
 * stopped by its budget, and gives the figures as of the replay position. axe-core finds no
 * serious violation with the breakdown open, light and dark.
 */
import AxeBuilder from "@axe-core/playwright";
import { expect, test, type Page } from "@playwright/test";
import { newId } from "../lib/protocol";
import { createChannel, event, postEvents, postMessage, uniqueName } from "./helpers";

const orchestrator = { agent_id: "agent:orchestrator", role: "orchestrator", display_name: "Orchestrator" };
// Agents outside the workspace, so the server's own agents leave this run alone.
const lead = { agent_id: "agent:lead-1", role: "worker", display_name: "lead-1" };
const calc = { agent_id: "agent:calc-1", role: "worker", display_name: "calc-1" };

async function serious(page: Page, what: string) {
  const { violations } = await new AxeBuilder({ page }).analyze();
  const bad = violations.filter((v) => v.impact === "serious" || v.impact === "critical").map((v) => `${v.id}: ${v.nodes.map((n) => n.target.join(" ")).join(", ")}`);
  expect(bad, `${what}: serious axe violations`).toEqual([]);
}

test("a run's tokens and cost on its card, per task and per agent in the run view, a budget stop in words, and the figures at the replay position", async ({ page, request }, info) => {
  const thread = await createChannel(request, uniqueName("cost"));
  const title = "Price the Q4 forecast";
  const said = await postMessage(request, thread.id, title);
  const run_id = newId("run");
  const root = { run_id, task_id: newId("task") };
  const child = { run_id, task_id: newId("task"), parent_task_id: root.task_id };
  const t0 = Date.now() - 120_000;
  const at = (s: number) => new Date(t0 + s * 1000).toISOString();
  const usage = (model: string, input_tokens: number, output_tokens: number, latency_ms: number) => ({ model, input_tokens, output_tokens, latency_ms, finish_reason: "stop" });
  await postEvents(request, [
    event(thread.id, "task.request", { title, instructions: title, input: { message_id: said.id } }, { ...root, from: orchestrator, to: [lead], ts: at(0) }),
    event(thread.id, "task.accept", {}, { ...root, from: lead, ts: at(1) }),
    event(thread.id, "model.usage", usage("gpt-4o-mini", 12_000, 800, 2_400), { ...root, from: lead, ts: at(4) }),
    event(thread.id, "task.request", { title: "Sum the regional forecasts" }, { ...child, from: lead, to: [calc], ts: at(5) }),
    event(thread.id, "task.accept", {}, { ...child, from: calc, ts: at(6) }),
    event(thread.id, "model.usage", usage("gpt-4o-mini", 3_000, 400, 1_200), { ...child, from: calc, ts: at(8) }),
    event(thread.id, "tool.call", { call_id: "call_sum", tool: "query_data", server_id: "DataServer", arguments: { sql: "SELECT 1" } }, { ...child, from: calc, ts: at(9) }),
    event(thread.id, "tool.result", { call_id: "call_sum", tool: "query_data", server_id: "DataServer", result: { rows: [] } }, { ...child, from: calc, ts: at(12) }),
    event(thread.id, "model.usage", usage("mystery-model", 500, 100, 300), { ...child, from: calc, ts: at(13) }),
    event(
      thread.id,
      "task.error",
      { code: "BUDGET_EXCEEDED", message: "calc-1 has used 4.0k tokens this task; the budget calc-task-cap allows 4.0k tokens", retryable: false, details: { budget: "calc-task-cap" } },
      { ...child, from: calc, to: [lead], ts: at(14) },
    ),
    event(thread.id, "task.result", { summary: "The forecast without the regional sums." }, { ...root, from: lead, to: [orchestrator], ts: at(20) }),
  ]);

  // The card in the channel: 16.8k tokens; the priced calls cost $0.0030, one model has no price.
  await page.goto(`/c/${thread.id}`);
  const card = page.getByRole("article", { name: `Run: ${title}` });
  await expect(card.locator("[data-run-usage]")).toHaveText("· 16.8k tokens · $0.0030 + unpriced");
  await expect(card.locator("[data-run-usage]")).toHaveAttribute("title", /gpt-4o-mini: 2 calls, 15k in, 1\.2k out/);

  await page.goto(`/runs/${run_id}`);
  const bar = page.getByRole("region", { name: "Run usage" });
  await expect(bar).toContainText("16.8k tokens · $0.0030 + unpriced");
  await expect(bar).toContainText("20 s: model 3.9 s, tools 3.0 s, waiting for people 0 ms");
  await expect(bar).toContainText("No price for mystery-model");
  // Each task's badge.
  await expect(page.locator('[data-task-id] [data-task-usage]').first()).toBeVisible();
  await expect(page.locator(`[data-task-id="${child.task_id}"] [data-task-usage]`)).toHaveText("4k tok · $0.0007 + unpriced");

  // The breakdown per agent.
  await bar.getByRole("button", { name: "Breakdown" }).click();
  const table = bar.getByRole("table", { name: "Model usage and time per agent" });
  await expect(table.getByRole("row", { name: /lead-1/ })).toContainText("gpt-4o-mini112,000800$0.00232.4 s0 ms0 ms");
  await expect(table.getByRole("row", { name: /calc-1/ })).toContainText("gpt-4o-mini, mystery-model23,500500$0.0007 + unpriced1.5 s3.0 s0 ms");
  await serious(page, "the run view with the breakdown open");
  await page.emulateMedia({ colorScheme: "dark" });
  await serious(page, "the run view with the breakdown open, dark");
  await page.emulateMedia({ colorScheme: "light" });
  await page.screenshot({ path: info.outputPath("run-usage.png") });

  // The budget stop, in words, in the task panel.
  await page.getByRole("button", { name: /^calc-1: Sum the regional forecasts/ }).click();
  const panel = page.getByRole("complementary", { name: "Task: Sum the regional forecasts" });
  await expect(panel).toContainText("calc-1 has used 4.0k tokens this task; the budget calc-task-cap allows 4.0k tokens");
  await expect(panel.getByText("Stopped: budget reached").first()).toBeVisible();
  await expect(panel).toContainText("3.5k in · 500 out");
  await page.keyboard.press("Escape");

  // Replay to the first model call only: the figures are those of that moment.
  await page.goto(`/runs/${run_id}?at=${(await seqOfNth(page, run_id, 3))}`);
  await expect(page.getByRole("region", { name: "Run usage" })).toContainText("12.8k tokens · $0.0023");
});

/** The seq of the run's n-th event (1-based). */
async function seqOfNth(page: Page, run_id: string, n: number): Promise<number> {
  const res = await page.request.get(`/api/runs/${encodeURIComponent(run_id)}/events?after=0&limit=100`);
  const { events } = (await res.json()) as { events: { seq: number }[] };
  return events[n - 1]!.seq;
}
