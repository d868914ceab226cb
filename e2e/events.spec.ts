/**
 * Events POSTed to /api/events appear live, each with its type's renderer (task card
 * with its folded state, tool call with its result, routing decision with scores), and the
 * other types render without breaking the page.
 */
import { expect, test } from "@playwright/test";
import { createChannel, event, messageLog, openChannel, postEvents, uniqueName } from "./helpers";

const orchestrator = { agent_id: "agent:orchestrator", role: "orchestrator", display_name: "Orchestrator" };

test("a task posted to the API appears live as a task card whose state follows its events", async ({ page, request }) => {
  const thread = await createChannel(request, uniqueName("tasks"));
  await openChannel(page, thread);
  const log = messageLog(page, thread.name);
  const task_id = `task_${Date.now()}`;

  await postEvents(
    request,
    event(thread.id, "task.request", { title: "Summarise competitor pricing", instructions: "Top 3 only" }, {
      task_id,
      from: orchestrator,
      to: [{ agent_id: "agent:ken" }],
      requires: ["skill:research"],
    }),
  );
  const request_card = log.getByRole("article", { name: "Task requested: Summarise competitor pricing" });
  await expect(request_card).toBeVisible();
  await expect(request_card.getByText("State: Pending")).toBeVisible();
  await expect(request_card).toContainText("skill:research");

  await postEvents(request, [
    event(thread.id, "task.accept", { agent_id: "agent:ken" }, { task_id }),
    event(thread.id, "task.progress", { message: "2 of 3 done", percent: 66 }, { task_id }),
  ]);
  const progress = log.getByRole("article", { name: /^Progress/ });
  await expect(progress.getByRole("progressbar", { name: "Task progress" })).toHaveAttribute("aria-valuenow", "66");
  await expect(progress.getByText("State: Running")).toBeVisible();

  await postEvents(request, event(thread.id, "task.error", { code: "TOOL_UNAVAILABLE", message: "mcp:browser not responding", retryable: true }, { task_id }));
  const failed = log.getByRole("article", { name: /^Task failed/ });
  await expect(failed.getByText("State: Failed")).toBeVisible();
  await expect(failed).toContainText("TOOL_UNAVAILABLE");
  await expect(failed).toContainText("Retryable");
  // The request card shows where the task is now.
  await expect(request_card.getByText("State: Failed")).toBeVisible();

  // The payload is one click away, as JSON.
  await failed.getByRole("button", { name: "Details" }).click();
  await expect(failed.getByLabel("task.error payload")).toContainText('"code": "TOOL_UNAVAILABLE"');
});

test("a tool call and its result appear live, collapsible, with the duration", async ({ page, request }) => {
  const thread = await createChannel(request, uniqueName("tools"));
  await openChannel(page, thread);
  const log = messageLog(page, thread.name);

  await postEvents(request, event(thread.id, "tool.call", { call_id: "call_e2e_1", tool: "browser.search", server_id: "mcp:browser", arguments: { query: "acme pricing" } }));
  const call = log.getByRole("article", { name: "Tool call browser.search" });
  await expect(call).toBeVisible();
  await expect(call).toContainText("Running…");

  await call.getByRole("button", { name: "Arguments" }).click();
  await expect(call.getByLabel("Arguments", { exact: true })).toContainText('"query": "acme pricing"');

  await postEvents(request, event(thread.id, "tool.result", { call_id: "call_e2e_1", tool: "browser.search", result: { hits: 3 }, duration_ms: 842 }));
  const result = log.getByRole("article", { name: "Tool result browser.search" });
  await expect(result).toContainText("842 ms");
  await expect(call).toContainText("Done · 842 ms");
  const toggle = result.getByRole("button", { name: "Result" });
  await expect(toggle).toHaveAttribute("aria-expanded", "false");
  await toggle.click();
  await expect(toggle).toHaveAttribute("aria-expanded", "true");
  await expect(result.getByLabel("Result", { exact: true })).toContainText('"hits": 3');

  await postEvents(request, event(thread.id, "tool.error", { call_id: "call_e2e_2", tool: "files.read", code: "NOT_FOUND", message: "No such file", retryable: false, duration_ms: 12 }));
  const error = log.getByRole("article", { name: "Tool error files.read" });
  await expect(error).toContainText("NOT_FOUND");
  await expect(error).toContainText("No such file");
  await expect(error).toContainText("Not retryable");
});

test("a routing decision appears live with the selected agent, scores and rejected agents", async ({ page, request }) => {
  const thread = await createChannel(request, uniqueName("routing"));
  await openChannel(page, thread);
  const log = messageLog(page, thread.name);

  await postEvents(
    request,
    event(
      thread.id,
      "routing.decision",
      {
        selected: "agent:ken",
        candidates: ["agent:ken", "agent:research-2"],
        reason: "matched requires[skill:research], lowest load",
        scores: { "agent:ken": 0.92, "agent:research-2": 0.85 },
        rejected: [{ agent_id: "agent:coder", filter: "requires", reason: "missing skill:research" }],
      },
      { from: orchestrator },
    ),
  );
  const decision = log.getByRole("article", { name: "Routing decision: ken" });
  await expect(decision).toContainText("matched requires[skill:research], lowest load");
  const table = decision.getByRole("table", { name: "Agents considered" });
  await expect(table.locator('tr[data-routing-row="selected"]')).toContainText("ken");
  await expect(table.locator('tr[data-routing-row="selected"]')).toContainText("0.92");
  await expect(table.getByRole("row", { name: /research-2/ })).toContainText("0.85");
  const rejected = table.locator('tr[data-routing-row="rejected"]');
  await expect(rejected).toContainText("coder");
  await expect(rejected).toContainText("missing skill:research");

  await postEvents(request, event(thread.id, "routing.failure", { reason: "no agent offers skill:review", requires: ["skill:review"] }, { from: orchestrator }));
  await expect(log.getByRole("article", { name: "Routing failure" })).toContainText("no agent offers skill:review");
});

test("system notices and agent lifecycle events render as one-liners", async ({ page, request }) => {
  const thread = await createChannel(request, uniqueName("lifecycle"));
  await openChannel(page, thread);
  const log = messageLog(page, thread.name);
  const card = {
    v: "clutch/0.1" as const,
    agent_id: "agent:ken",
    display: { name: "Ken" },
    capabilities: [{ id: "skill:research", version: "1.0" }],
  };
  await postEvents(request, [
    event(thread.id, "agent.register", { card }),
    event(thread.id, "agent.heartbeat", { agent_id: "agent:ken", status: "busy", active_tasks: 2 }),
    event(thread.id, "agent.update", { card: { ...card, capabilities: [{ id: "skill:review" }] } }),
    event(thread.id, "chat.system", { text: "Budget at 80%", level: "warning" }),
  ]);
  await expect(log.getByRole("article", { name: "Agent registered: agent:ken" })).toContainText("skill:research 1.0");
  await expect(log.getByRole("article", { name: "Heartbeat: agent:ken" })).toContainText("2 active tasks");
  await expect(log.getByRole("article", { name: "Agent updated: agent:ken" })).toContainText("skill:review");
  await expect(log.getByRole("article", { name: "System warning" })).toContainText("Budget at 80%");
});
