/**
 * Every task ends (docs/lifecycle.md), as a person sees it: a live run is cancelled from the run
 * view and its whole subtree shows cancelled, with who did it and why; a failed subtask is retried
 * from its task panel and shows its second attempt; a real run of the built-in team, waiting for an
 * answer, is cancelled from its card in the channel and retried from there. axe-core finds no
 * serious violation with the cancel dialog open.
 */
import { expect, test, type APIRequestContext, type Page } from "@playwright/test";
import { newId } from "../lib/protocol";
import type { ThreadSummary } from "../lib/api/types";
import { createChannel, event, messageLog, postEvents, postMessage, clickUntilShown, seriousViolations, uniqueName } from "./helpers";

const orchestrator = { agent_id: "agent:orchestrator", role: "orchestrator", display_name: "Orchestrator" };
// Agents outside the workspace, so the server's own agents leave these runs alone.
const lead = { agent_id: "agent:lead-1", role: "worker", display_name: "lead-1" };
const calc = { agent_id: "agent:calc-1", role: "worker", display_name: "calc-1" };

/** A run in a new channel: lead-1 works on the root task, calc-1 on a subtask (failed when `failed`). */
async function runWithSubtask(request: APIRequestContext, title: string, failed = false): Promise<{ thread: ThreadSummary; run_id: string }> {
  const thread = await createChannel(request, uniqueName("life"));
  const said = await postMessage(request, thread.id, title);
  const run_id = newId("run");
  const root = { run_id, task_id: newId("task") };
  const child = { run_id, task_id: newId("task"), parent_task_id: root.task_id };
  await postEvents(request, [
    event(thread.id, "task.request", { title, instructions: title, input: { message_id: said.id } }, { ...root, from: orchestrator, to: [lead] }),
    event(thread.id, "task.accept", {}, { ...root, from: lead }),
    event(thread.id, "task.request", { title: "Compute the regional totals" }, { ...child, from: lead, to: [calc] }),
    event(thread.id, "task.accept", {}, { ...child, from: calc }),
    ...(failed ? [event(thread.id, "task.error", { code: "TOOL_ERROR", message: "DataServer crashed", retryable: true }, { ...child, from: calc, to: [lead] })] : []),
  ]);
  return { thread, run_id };
}

/** The node button of an agent's task: "calc-1: <title> — <state>". */
const node = (page: Page, agent: string, state: string) => page.getByRole("button", { name: new RegExp(`^${agent}: .* — ${state}`) });

/** Open the task panel of `agent`'s task by clicking its node. */
async function openTask(page: Page, agent: string, state: string, title: string) {
  const panel = page.getByRole("complementary", { name: `Task: ${title}` });
  await clickUntilShown(node(page, agent, state), panel);
  return panel;
}

async function serious(page: Page, what: string) {
  expect(await seriousViolations(page), `${what}: serious axe violations`).toEqual([]);
}

test("a live run is cancelled from the run view: the whole subtree shows cancelled, by whom and why", async ({ page, request }, info) => {
  const { run_id } = await runWithSubtask(request, "Quarterly margin review");
  await page.goto(`/runs/${run_id}`);
  await expect(node(page, "lead-1", "Running")).toBeVisible();
  await expect(node(page, "calc-1", "Running")).toBeVisible();

  await page.getByRole("button", { name: "Cancel run" }).click();
  const dialog = page.getByRole("dialog", { name: "Cancel this run?" });
  await expect(dialog).toContainText("Every task of “Quarterly margin review” that has not ended stops now");
  await dialog.getByRole("textbox", { name: /Reason/ }).fill("Wrong quarter");
  await serious(page, "the cancel dialog");
  await page.screenshot({ path: info.outputPath("cancel-dialog.png") });
  await dialog.getByRole("button", { name: "Cancel run" }).click();
  await expect(dialog).toBeHidden();

  // Live, without a reload: both tasks and the run are cancelled, and the button is gone.
  await expect(node(page, "lead-1", "Cancelled")).toBeVisible();
  await expect(node(page, "calc-1", "Cancelled")).toBeVisible();
  await expect(page.getByRole("button", { name: "Cancel run" })).toHaveCount(0);
  const panel = await openTask(page, "calc-1", "Cancelled", "Compute the regional totals");
  await expect(panel).toContainText(/Cancelled by .+: Wrong quarter/);
  await page.screenshot({ path: info.outputPath("cancelled-run.png") });

  // The API refuses a second cancel with a reason a person can act on.
  const again = await request.post(`/api/runs/${run_id}/cancel`, { data: {} });
  expect(again.status()).toBe(409);
  expect((await again.json()).error.code).toBe("run_ended");
});

test("a failed subtask is retried from its task panel and shows its second attempt", async ({ page, request }, info) => {
  const { run_id } = await runWithSubtask(request, "Regional totals check", true);
  await page.goto(`/runs/${run_id}`);
  const panel = await openTask(page, "calc-1", "Failed", "Compute the regional totals");
  await expect(panel).toContainText("Failed (TOOL_ERROR): DataServer crashed");
  await serious(page, "a failed task's panel with Retry");
  await panel.getByRole("button", { name: "Retry" }).click();

  // A new attempt: the task waits for calc-1 again, marked as attempt 2 on its node and in the panel.
  await expect(node(page, "calc-1", "Pending, attempt 2")).toBeVisible();
  await expect(panel.getByRole("definition").first()).toHaveText("2");
  await expect(panel.getByRole("button", { name: "Cancel task" })).toBeVisible();
  await page.screenshot({ path: info.outputPath("retried-task.png") });

  const events = (await (await request.get(`/api/runs/${run_id}/events?after=0&limit=100`)).json()).events as { type: string; attempt?: number; meta?: { retried_by?: string } }[];
  const retry = events.filter((e) => e.type === "task.request").at(-1)!;
  expect(retry.attempt).toBe(2);
  expect(retry.meta?.retried_by).toMatch(/^user:/);
});

test("a run of the built-in team waiting for an answer is cancelled from its card in the channel, and retried", async ({ page, request }, info) => {
  const thread = await createChannel(request, uniqueName("life"));
  await page.goto(`/c/${thread.id}`);
  const log = messageLog(page, thread.name);
  await expect(log).toBeVisible();
  // @pm-1 by name: the channel has no entry agent of its own.
  await postMessage(request, thread.id, "@pm-1 Analyze last quarter's sales trends for the board");
  const card = log.getByRole("article", { name: /^Run: Analyze last quarter's sales trends for the board/ });
  await expect(card.getByRole("textbox", { name: /^Answer / })).toBeVisible({ timeout: 30_000 });

  await card.getByRole("button", { name: "Cancel run" }).click();
  const dialog = page.getByRole("dialog", { name: "Cancel this run?" });
  await dialog.getByRole("button", { name: "Cancel run" }).click();
  await expect(card).toContainText(/Cancelled by [^:]+\./);
  await expect(card.getByRole("textbox", { name: /^Answer / })).toHaveCount(0);
  await expect(card.getByRole("button", { name: "Cancel run" })).toHaveCount(0);
  await serious(page, "a cancelled run's card");
  await page.screenshot({ path: info.outputPath("cancelled-card.png") });

  // Retry the run: pm-1 carries on and, its question closed with the cancel, asks it again.
  await card.getByRole("button", { name: "Retry the run" }).click();
  await expect(card.getByRole("textbox", { name: /^Answer / })).toBeVisible({ timeout: 30_000 });
  await expect(card).toContainText("0 of 1 task done");
  // Then cancelled again.
  await expect(card.getByRole("button", { name: "Cancel run" })).toBeVisible();
  await card.getByRole("button", { name: "Cancel run" }).click();
  await page.getByRole("dialog", { name: "Cancel this run?" }).getByRole("button", { name: "Cancel run" }).click();
  await expect(card.getByRole("button", { name: "Retry the run" })).toBeVisible();
});
