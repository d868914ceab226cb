/**
 * Every key on the shortcut sheet does what the sheet says (docs/channels.md "Keyboard
 * shortcuts"): the keys e2e/keyboard.spec.ts, e2e/approvals.team.spec.ts and e2e/runs-list.spec.ts do
 * not already press. Approvals: j/k, e then Esc, / then Esc; the run page: Space (play), ←/→, Shift+←/→,
 * Home/End, Esc; the agent directory: /, ↓/↑, Esc; schemas: /.
 */
import { expect, test, type Page } from "@playwright/test";
import { newId } from "../lib/protocol";
import { clickUntilShown, createChannel, event, postEvents, postMessage, uniqueName } from "./helpers";

const orchestrator = { agent_id: "agent:orchestrator", role: "orchestrator", display_name: "Orchestrator" };
const policy = { agent_id: "agent:policy", role: "system" };
// An agent outside the workspace, so the server's own agents leave these runs alone.
const lead = { agent_id: "agent:lead-1", role: "worker", display_name: "lead-1" };

/** Nothing focused: the page's keys go to the page, not to a control. */
async function blur(page: Page) {
  await page.evaluate(() => (document.activeElement as HTMLElement | null)?.blur());
}

/** A run in a new channel with `progress` progress events after lead-1 accepted, and (with `held`) a reply held for approval. */
async function run(page: Page, progress: number, held?: string) {
  const request = page.request;
  const thread = await createChannel(request, uniqueName("keys"));
  const said = await postMessage(request, thread.id, "Keys run");
  const run_id = newId("run");
  const root = { run_id, task_id: newId("task") };
  const approval_id = newId("approval");
  const t0 = Date.now() - 120_000;
  const at = (s: number) => new Date(t0 + s * 1000).toISOString();
  const subject = { kind: "tool_call" as const, agent: lead.agent_id, tool: "reply", recipient: "user" };
  await postEvents(request, [
    event(thread.id, "task.request", { title: "Keys run", input: { message_id: said.id } }, { ...root, from: orchestrator, to: [lead], ts: at(0) }),
    event(thread.id, "task.accept", {}, { ...root, from: lead, ts: at(1) }),
    // A second apart, as a replay at 1× plays them.
    ...Array.from({ length: progress }, (_, i) => event(thread.id, "task.progress", { message: `step ${i + 1}` }, { ...root, from: lead, ts: at(2 + i) })),
    ...(held
      ? [
          event(thread.id, "policy.decision", { subject, decision: "require_approval", rule: "approve-replies", reason: "Replies are checked", approval_id }, { ...root, from: policy }),
          event(
            thread.id,
            "approval.requested",
            { approval_id, subject, approvers: "any", summary: held, arguments: { to: "user", text: "Hello" }, expires_at: new Date(Date.now() + 3_600_000).toISOString(), rule: "approve-replies", reason: "Replies are checked" },
            { ...root, from: policy, meta: { gate: `keys:${approval_id}` } },
          ),
        ]
      : []),
  ]);
  return { thread, run_id, task_id: root.task_id, approval_id };
}

test("approvals: j and k move, e opens the arguments and Esc closes them, / filters and Esc leaves the filter", async ({ page }) => {
  const first = await run(page, 0, `Keys: first held reply ${newId("task").slice(-6)}`);
  const second = await run(page, 0, `Keys: second held reply ${newId("task").slice(-6)}`);
  await page.goto("/approvals");
  const a = page.locator(`[data-approval-item="${first.approval_id}"]`);
  const b = page.locator(`[data-approval-item="${second.approval_id}"]`);
  await expect(a).toBeVisible();
  await expect(b).toBeVisible();
  // Walk to the first with j, then one further with j, then back with k.
  for (let i = 0; i < 50 && (await a.getAttribute("data-selected")) === null; i++) await page.keyboard.press("j");
  await expect(a).toHaveAttribute("data-selected", "true");
  const order = await page.locator("[data-approval-item]").evaluateAll((els) => els.map((e) => e.getAttribute("data-approval-item")));
  const below = order[order.indexOf(first.approval_id) + 1];
  if (below) {
    await page.keyboard.press("j");
    await expect(page.locator(`[data-approval-item="${below}"]`)).toHaveAttribute("data-selected", "true");
    await page.keyboard.press("k");
    await expect(a).toHaveAttribute("data-selected", "true");
  }
  await page.keyboard.press("e");
  const args = page.getByRole("textbox", { name: /^Arguments/ });
  await expect(args).toBeVisible();
  await expect(args).toBeFocused();
  await page.keyboard.press("Escape");
  await expect(args).toBeHidden();
  await page.keyboard.press("/");
  const filter = page.getByRole("searchbox", { name: "Filter by text" });
  await expect(filter).toBeFocused();
  await filter.fill("second held reply");
  await expect(a).toBeHidden();
  await expect(b).toBeVisible();
  await page.keyboard.press("Escape");
  await expect(filter).not.toBeFocused();
});

test("the run page: Space plays, ←/→ and Shift+←/→ step, Home/End jump, Esc closes the task", async ({ page }) => {
  const { run_id } = await run(page, 14);
  await page.goto(`/runs/${run_id}`);
  const graph = page.locator("[data-graph-count]");
  await expect(graph).toHaveAttribute("data-graph-count", "16");
  const at = async (n: number) => expect(graph).toHaveAttribute("data-graph-count", String(n));
  await blur(page);
  await page.keyboard.press("Home");
  await expect(page.getByText("Event 0: nothing has happened yet")).toBeVisible();
  await page.keyboard.press("End");
  await at(16);
  await page.keyboard.press("Shift+ArrowLeft");
  await at(6);
  await page.keyboard.press("ArrowRight");
  await at(7);
  await page.keyboard.press("Shift+ArrowRight");
  await at(16);
  await page.keyboard.press("ArrowLeft");
  await at(15);
  // At 1× the events play a second apart: there is time to pause.
  await page.getByRole("combobox", { name: "Playback speed" }).selectOption("1");
  await blur(page);
  await page.keyboard.press("Home");
  await page.keyboard.press("Space");
  const pause = page.getByRole("button", { name: /^Pause/ });
  await expect(pause).toBeVisible();
  // Space again pauses, also once the graph has drawn its nodes (React Flow binds no keys here).
  await expect(graph).not.toHaveAttribute("data-graph-count", "0");
  await page.keyboard.press("Space");
  await expect(page.getByRole("button", { name: /^Play/ })).toBeVisible();
  // Paused part of the way.
  const paused = Number(await graph.getAttribute("data-graph-count"));
  expect(paused).toBeGreaterThan(0);
  expect(paused).toBeLessThan(16);
  await page.keyboard.press("End");
  const panel = page.getByRole("complementary", { name: "Task: Keys run" });
  await clickUntilShown(page.getByRole("button", { name: /^lead-1: Keys run/ }), panel);
  await page.keyboard.press("Escape");
  await expect(panel).toBeHidden();
});

test("agents: / searches, ↓ and ↑ move through the list, Esc goes back to the search box; schemas: / searches", async ({ page }) => {
  await page.goto("/agents");
  const search = page.getByRole("searchbox", { name: /agents/i }).or(page.getByPlaceholder("Search by name, id, capability or tag"));
  await expect(page.getByRole("list", { name: "Registered agents" })).toBeVisible();
  await blur(page);
  await page.keyboard.press("/");
  await expect(search).toBeFocused();
  await page.keyboard.press("ArrowDown");
  const rows = page.getByRole("list", { name: "Registered agents" }).getByRole("link");
  await expect(rows.first()).toBeFocused();
  await page.keyboard.press("ArrowDown");
  await expect(rows.nth(1)).toBeFocused();
  await page.keyboard.press("ArrowUp");
  await expect(rows.first()).toBeFocused();
  await page.keyboard.press("Escape");
  await expect(search).toBeFocused();

  await page.goto("/schemas");
  const schemaSearch = page.getByPlaceholder(/Search payload types/);
  await expect(schemaSearch).toBeEnabled();
  await blur(page);
  await page.keyboard.press("/");
  await expect(schemaSearch).toBeFocused();
});
