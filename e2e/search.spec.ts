/**
 * Search as a person uses it (docs/channels.md "Search"): with an agent's report, the approval
 * card and the review request that quote it, and a fork of the run in the log, Ctrl+K and the
 * search page rank the report first, show it as read (no markdown syntax, the figure marked, the
 * agent by name, a time without seconds) and name the fork instead of showing the copy again;
 * the box's operators narrow and a wrong one says what it takes; they are completed as typed,
 * by keyboard; opening the hit unfolds the folded report and highlights the figure; axe-core
 * finds no serious violation on the search UI, light and dark.
 */
import AxeBuilder from "@axe-core/playwright";
import { expect, test, type APIRequestContext, type Page } from "@playwright/test";
import { newId } from "../lib/protocol";
import type { ThreadSummary } from "../lib/api/types";
import { createChannel, event, postEvents, uniqueName } from "./helpers";

const orchestrator = { agent_id: "agent:orchestrator", role: "orchestrator", display_name: "Orchestrator" };
// An agent outside the workspace, so the server's own agents leave this run alone.
const rep = { agent_id: "agent:rep-7", role: "worker", display_name: "Report Writer" };

/** A report long enough to fold under "Show more", its total (the figure) in the last row. */
function report(figure: string): string {
  const rows = Array.from({ length: 30 }, (_, i) => `| Region ${i + 1} | $${(1000 + i).toLocaleString("en-US")}.00 |`);
  return `### Profit by region\n\n| Region | Sales |\n| --- | ---: |\n${rows.join("\n")}\n| **Total** | **$${figure}** |\n\nThe quarter closed well.`;
}

/** A channel with a run: the report (as a message to people and as the task's result), the review request and the approval that quote it, and a fork of the run. */
async function seed(request: APIRequestContext): Promise<{ thread: ThreadSummary; figure: string; message_id: string; fork_title: string }> {
  const figure = `280,${String(Math.floor(Math.random() * 900) + 100)}.${String(Math.floor(Math.random() * 90) + 10)}`;
  const thread = await createChannel(request, uniqueName("srch"));
  const run_id = newId("run");
  const root = newId("task");
  const at = { run_id, task_id: root };
  const REPORT = report(figure);
  const said = event(thread.id, "chat.message", { text: REPORT }, { ...at, from: rep, to: [{ agent_id: "user", role: "human" }] });
  await postEvents(request, [
    event(thread.id, "task.request", { title: "Profit by region", instructions: "Total the regions" }, { ...at, from: orchestrator, to: [rep] }),
    said,
    event(thread.id, "task.result", { summary: "Profit by region", report_markdown: REPORT }, { ...at, from: rep }),
    event(thread.id, "task.request", { title: "Review the report", instructions: "Check the figures", input: { result: { report_markdown: REPORT } } }, { run_id, task_id: newId("task"), parent_task_id: root, from: orchestrator, to: [{ agent_id: "agent:rev-7", role: "worker" }] }),
    event(
      thread.id,
      "approval.requested",
      { approval_id: newId("task"), subject: { kind: "tool_call", agent: rep.agent_id, tool: "send_report" }, approvers: "any", summary: "Report Writer wants to send the report", preview: REPORT, expires_at: new Date(Date.now() + 3_600_000).toISOString() },
      { ...at, from: orchestrator },
    ),
  ]);
  const events = (await (await request.get(`/api/runs/${run_id}/events?after=0&limit=100`)).json()).events as { seq: number }[];
  const res = await request.post(`/api/runs/${run_id}/fork`, { data: { at_seq: events[events.length - 1]!.seq } });
  expect(res.status(), await res.text()).toBe(201);
  const fork = (await res.json()).run as { title: string };
  return { thread, figure, message_id: said.id, fork_title: fork.title };
}

/** Serious and critical axe violations of the page as it is now. */
async function serious(page: Page, what: string) {
  const { violations } = await new AxeBuilder({ page }).analyze();
  const bad = violations.filter((v) => v.impact === "serious" || v.impact === "critical").map((v) => `${v.id}: ${v.nodes.map((n) => n.target.join(" ")).join(", ")}`);
  expect(bad, `${what}: serious axe violations`).toEqual([]);
}

/** Opens Ctrl+K (pressed again until the page, still hydrating, listens for it). */
async function ctrlK(page: Page) {
  const dialog = page.getByRole("dialog", { name: "Jump to a channel or search" });
  await expect(async () => {
    if (!(await dialog.isVisible())) await page.keyboard.press("Control+k");
    await expect(dialog).toBeVisible({ timeout: 1000 });
  }).toPass({ timeout: 15_000 });
  return dialog;
}

/** The parts of a figure as the search marks them ("280,054.07" → "280", "054.07"). */
const parts = (figure: string) => figure.split(",");

test("the report ranks above the approval and the review that quote it, reads as text with the figure marked, and its fork is named, not repeated", async ({ page, request }) => {
  test.setTimeout(90_000);
  const { thread, figure, fork_title } = await seed(request);
  await page.goto(`/search?q=${encodeURIComponent(`"${figure}"`)}`);
  const results = page.getByRole("list", { name: "Search results" }).getByRole("listitem");
  // The message and the result of the report, then the two wrappers; the fork's copies are not shown again.
  await expect(results).toHaveCount(4);
  await expect(results.nth(0)).toContainText(/Message|Result/);
  await expect(results.nth(1)).toContainText(/Message|Result/);
  await expect(results.nth(2)).toContainText(/Approval|Request/);
  await expect(results.nth(3)).toContainText(/Approval|Request/);
  const first = results.first();
  await expect(first).toContainText("Report Writer");
  await expect(first).toContainText(`#${thread.name}`);
  await expect(first).toContainText(`also in fork ${fork_title}`);
  await expect(first.locator("time")).toHaveText(/^Today \d{1,2}:\d{2}\s?(AM|PM)?$/);
  const text = (await first.innerText()).replace(/\s+/g, " ");
  expect(text).toContain(`Total · $${figure}`);
  expect(text).not.toMatch(/[|*#]{1,3} ?(Total|Profit|Region)|\*\*/);
  await expect(first.locator("mark")).toHaveText(parts(figure));

  // Ctrl+K: the same order, the report first.
  await page.goto(`/c/${thread.id}`);
  const dialog = await ctrlK(page);
  await dialog.getByRole("combobox", { name: "Jump to a channel or search" }).fill(`"${figure}"`);
  const hits = dialog.getByRole("option").filter({ hasText: `#${thread.name}` });
  await expect(hits).toHaveCount(4);
  await expect(hits.first()).toContainText("Report Writer");
  await expect(hits.first()).toContainText(`also in fork ${fork_title}`);
  await expect(hits.first().locator("mark")).toHaveText(parts(figure));
});

test("operators narrow the search, and a wrong one says what it takes", async ({ page, request }) => {
  test.setTimeout(90_000);
  const { thread, figure } = await seed(request);
  const other = await createChannel(request, uniqueName("srch-other"));
  const results = page.getByRole("list", { name: "Search results" }).getByRole("listitem");
  const open = (q: string) => page.goto(`/search?q=${encodeURIComponent(q)}`);

  await open(`"${figure}" is:approval`);
  await expect(results).toHaveCount(1);
  await expect(results.first()).toContainText("Approval");
  await open(`"${figure}" from:rep-7`);
  await expect(results).toHaveCount(2);
  await expect(results.filter({ hasText: "Report Writer" })).toHaveCount(2);
  await open(`"${figure}" in:#${thread.name} on:today`);
  await expect(results).toHaveCount(4);
  await open(`"${figure}" in:#${other.name}`);
  await expect(page.getByText(/^Nothing matches/)).toBeVisible();
  await open(`"${figure}" before:soon`);
  await expect(page.getByRole("alert").filter({ hasText: "before:" })).toHaveText(/^before: takes a day as YYYY-MM-DD .*“soon” is none$/);
  await open(`"${figure}" from:nobody-${Date.now()}`);
  await expect(page.getByRole("alert").filter({ hasText: "from:" })).toContainText("no agent or person is called");
});

test("operators are completed as they are typed, by keyboard, on the search page and in Ctrl+K", async ({ page, request }) => {
  test.setTimeout(90_000);
  const thread = await createChannel(request, uniqueName("srch-complete"));
  await page.goto("/search");
  const box = page.getByRole("combobox", { name: "Search messages, run titles, reports and tool results" });
  await box.pressSequentially(`in:#${thread.name.slice(0, -2)}`);
  const list = page.getByRole("listbox", { name: "Suggestions" });
  await expect(list.getByRole("option", { name: new RegExp(`^#${thread.name}`) })).toBeVisible();
  await expect(box).toHaveAttribute("aria-expanded", "true");
  await box.press("Enter");
  await expect(box).toHaveValue(`in:#${thread.name} `);
  await expect(list).toBeHidden();

  await box.pressSequentially("is:re");
  await expect(list.getByRole("option")).toHaveText([/^is:result/, /^is:request/]);
  await box.press("ArrowDown");
  await expect(list.getByRole("option", { name: /^is:request/ })).toHaveAttribute("aria-selected", "true");
  await box.press("Tab");
  await expect(box).toHaveValue(`in:#${thread.name} is:request `);
  await serious(page, "/search with suggestions");

  // Ctrl+K completes the same way.
  const dialog = await ctrlK(page);
  const input = dialog.getByRole("combobox", { name: "Jump to a channel or search" });
  await input.pressSequentially("on:to");
  await expect(dialog.getByRole("listbox", { name: "Suggestions" }).getByRole("option")).toHaveText([/^on:today/]);
  await input.press("Tab");
  await expect(input).toHaveValue("on:today ");
});

test("opening a hit inside a folded report unfolds it and highlights the figure", async ({ page, request }) => {
  test.setTimeout(90_000);
  const { thread, figure, message_id } = await seed(request);
  await page.goto(`/c/${thread.id}`);
  const dialog = await ctrlK(page);
  // The report as the channel shows it: Report Writer's message (is:message, an operator in Ctrl+K).
  await dialog.getByRole("combobox", { name: "Jump to a channel or search" }).fill(`"${figure}" is:message`);
  const hit = dialog.getByRole("option").filter({ hasText: "Report Writer" });
  await expect(hit).toHaveCount(1);
  await expect(hit).toBeVisible();
  await hit.click();
  const message = page.locator(`[data-msg-id="${message_id}"]`).first();
  await expect(message).toBeVisible();
  // Unfolded: the button says "Show less", and the total row is in view.
  await expect(message.getByRole("button", { name: "Show less" })).toBeVisible();
  await expect(message.getByRole("cell", { name: `$${figure}` })).toBeInViewport();
  // The matched words are highlighted in the message.
  await expect
    .poll(() =>
      page.evaluate(() => {
        const h = (CSS as unknown as { highlights?: Map<string, Set<Range>> }).highlights?.get("search-match");
        return h ? [...h].map((r) => r.toString()) : [];
      }),
    )
    .toEqual(expect.arrayContaining(parts(figure)));
});

for (const scheme of ["light", "dark"] as const) {
  test(`the search page and Ctrl+K with hits have no serious accessibility violations (${scheme})`, async ({ page, request }) => {
    test.setTimeout(90_000);
    const { thread, figure } = await seed(request);
    await page.emulateMedia({ colorScheme: scheme });
    await page.goto(`/search?q=${encodeURIComponent(`"${figure}"`)}`);
    await expect(page.getByRole("list", { name: "Search results" }).getByRole("listitem")).toHaveCount(4);
    await serious(page, `/search (${scheme})`);
    await page.goto(`/c/${thread.id}`);
    const dialog = await ctrlK(page);
    await dialog.getByRole("combobox", { name: "Jump to a channel or search" }).fill(`"${figure}"`);
    await expect(dialog.getByRole("option").filter({ hasText: "Report Writer" }).first()).toBeVisible();
    await serious(page, `Ctrl+K with hits (${scheme})`);
  });
}
