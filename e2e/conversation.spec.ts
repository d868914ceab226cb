/**
 * Conversation-first channels (docs/channels.md), as a person sees them: the channel shows the
 * request, the question and one live run card while the machinery lives in the run's thread; a
 * new message while a question waits is a new message, and the question (300 events back) is
 * still in the banner and answered on purpose; people reply in threads; drafts survive a channel
 * switch; Ctrl/⌘+K finds a figure from a report and opens it in context; and axe-core finds no serious violation in the channel and its every-event view in
 * light, dark and phone (the other pages: e2e/axe-sweep.spec.ts).
 */
import { expect, test, type APIRequestContext, type Page } from "@playwright/test";
import { newId, type StoredEvent } from "../lib/protocol";
import type { ThreadSummary } from "../lib/api/types";
import { createChannel, event, messageLog, openChannel, postEvents, postMessage, seriousViolations, uniqueName } from "./helpers";

const orchestrator = { agent_id: "agent:orchestrator", role: "orchestrator", display_name: "Orchestrator" };
// Agents outside the workspace, so the server's own agents leave these runs alone.
const pm = { agent_id: "agent:lead-1", role: "worker", display_name: "lead-1" };
const analyst = { agent_id: "agent:calc-1", role: "worker", display_name: "calc-1" };
const TITLE = "Quarterly revenue review";
const QUESTION = "Which regions matter most to you this quarter?";
const FIGURE = "4,210,000";

/**
 * A channel with one run: the person's request, then planning, a tool call and its result, a
 * message between agents, a subtask's report with a figure, lead-1's question to the people, and
 * 300 progress events after it.
 */
async function channelWithRun(request: APIRequestContext): Promise<{ thread: ThreadSummary; run_id: string; asked: StoredEvent; report: StoredEvent }> {
  const thread = await createChannel(request, uniqueName("conv"));
  const said = await postMessage(request, thread.id, `${TITLE}, please`);
  const run_id = newId("run");
  const root = newId("task");
  const child = newId("task");
  const at = { run_id, task_id: root };
  const question = event(thread.id, "chat.message", { text: QUESTION, expects_reply: true }, { ...at, from: pm, to: [{ agent_id: "user", role: "human" }] });
  const report = event(thread.id, "task.result", { summary: `Revenue grew 12.5% to $${FIGURE}`, report_markdown: `Revenue grew 12.5% to $${FIGURE} in Q4.` }, { run_id, task_id: child, parent_task_id: root, from: analyst, to: [pm] });
  const stored = await postEvents(request, [
    event(thread.id, "routing.decision", { selected: "agent:lead-1", candidates: ["agent:lead-1"], reason: "the entry agent", scores: { "agent:lead-1": 1 }, mode: "fixed", rejected: [] }, { ...at, from: orchestrator }),
    event(thread.id, "task.request", { title: TITLE, instructions: `${TITLE}, please`, input: { message_id: said.id } }, { ...at, from: orchestrator, to: [pm] }),
    event(thread.id, "task.accept", {}, { ...at, from: pm }),
    event(thread.id, "tool.call", { call_id: "c1", server_id: "DataServer", tool: "query_data", arguments: { sql: "SELECT 1" } }, { ...at, from: pm }),
    event(thread.id, "tool.result", { call_id: "c1", tool: "query_data", result: { rows: [[1]] } }, { ...at, from: pm }),
    event(thread.id, "task.request", { title: "Compute the regional totals", instructions: "By region" }, { run_id, task_id: child, parent_task_id: root, from: pm, to: [analyst] }),
    event(thread.id, "task.accept", {}, { run_id, task_id: child, parent_task_id: root, from: analyst }),
    event(thread.id, "chat.message", { text: "Use the Q4 orders only" }, { run_id, task_id: child, parent_task_id: root, from: pm, to: [analyst] }),
    report,
    question,
    ...Array.from({ length: 300 }, (_, i) => event(thread.id, "task.progress", { message: `step ${i + 1}` }, { ...at, from: pm })),
  ]);
  return { thread, run_id, asked: stored.find((e) => e.id === question.id)!, report: stored.find((e) => e.id === report.id)! };
}

/** No serious or critical axe violation on the page as it is now (`colourOnly`: see seriousViolations). */
async function serious(page: Page, what: string, colourOnly = false) {
  expect(await seriousViolations(page, { colourOnly }), `${what}: serious axe violations`).toEqual([]);
}

test("a run shows in the channel as request, question and one live run card; the machinery is in its thread", async ({ page, request }) => {
  test.setTimeout(120_000);
  const { thread, run_id, asked } = await channelWithRun(request);
  await openChannel(page, thread, "conversation");
  const log = messageLog(page, thread.name);

  await expect(log.getByRole("article", { name: /^Message from / }).filter({ hasText: `${TITLE}, please` })).toBeVisible();
  const card = log.getByRole("article", { name: `Run: ${TITLE}` });
  await expect(card.getByText("Run state: Waiting on you")).toBeVisible();
  // Who works on what: calc-1's subtask is done, lead-1 waits for the person.
  await expect(card.getByRole("list", { name: "Working now" })).toHaveText(/lead-1\s*Waiting on you/i);
  await expect(card).toContainText("1 of 2 tasks done");
  await expect(card).toContainText(`lead-1 asks: ${QUESTION}`);
  // The machinery is not in the channel.
  await expect(log.getByRole("article", { name: "Tool call query_data" })).toHaveCount(0);
  await expect(log.getByText("Use the Q4 orders only")).toHaveCount(0);

  // The question 300 events back: the banner and the composer know it (server state).
  await expect(page.getByRole("status", { name: "Runs in progress" })).toContainText("lead-1 is waiting on you");
  const box = page.getByRole("combobox", { name: `Message #${thread.name}` });
  // The composer never answers on its own: one affordance answers (Answer, here inline on the card).
  await expect(page.getByRole("group", { name: /^Answering / })).toHaveCount(0);

  // A new message while the question is open is a new message, not an answer.
  await box.fill("Separate topic: who owns the EMEA forecast?");
  await box.press("Enter");
  await expect(box).toHaveValue("");
  const separate = log.getByRole("article", { name: /^Message from / }).filter({ hasText: "Separate topic" });
  await expect(separate).toBeVisible();
  await expect(separate.getByRole("button", { name: /^In reply to/ })).toHaveCount(0);
  await expect(card).toContainText(`lead-1 asks: ${QUESTION}`);

  // Answered on purpose, inline on the run card: type, Enter.
  const inline = card.getByRole("textbox", { name: "Answer lead-1" });
  await inline.fill("EMEA and APAC");
  await inline.press("Enter");
  await expect(inline).toBeHidden({ timeout: 15_000 });
  await expect(card).not.toContainText("lead-1 asks", { timeout: 10_000 });
  const events = (await (await request.get(`/api/runs/${run_id}/events?after=0&limit=5000`)).json()).events as StoredEvent[];
  const answer = events.find((e) => e.type === "chat.message" && (e.payload as { text?: string }).text === "EMEA and APAC");
  expect(answer?.payload).toMatchObject({ reply_to: asked.id });
  expect(answer?.to).toEqual([{ agent_id: "agent:lead-1" }]);

  // The run's thread: its events, live, beside the channel.
  await card.getByRole("button", { name: /^Open the thread of / }).click();
  const pane = page.getByRole("complementary", { name: `Thread of run ${TITLE}` });
  await expect(pane.getByRole("article", { name: "Tool call query_data" })).toBeVisible();
  await expect(pane).toContainText("Use the Q4 orders only");
  await expect(pane.getByRole("link", { name: /Open run/ })).toHaveAttribute("href", `/runs/${run_id}`);
  await expect(page).toHaveURL(new RegExp(`[?&]run=${run_id}`));
  await serious(page, "channel with a run's thread open");
  await pane.getByRole("button", { name: "Close thread" }).click();
  await expect(pane).toBeHidden();

  // Every event inline, for those who want it.
  await page.getByRole("button", { name: "All events" }).click();
  // It is 300 events up: long lists draw only the rows near the view (docs/channels.md "Threads").
  await expect(async () => {
    await log.hover();
    await page.mouse.wheel(0, -50_000);
    await expect(log.getByRole("article", { name: "Tool call query_data" })).toBeVisible({ timeout: 1000 });
  }).toPass({ timeout: 15_000 });
  await page.getByRole("button", { name: "All events" }).click();
  await expect(log.getByRole("article", { name: "Tool call query_data" })).toHaveCount(0);

  // People reply in threads: the channel shows the count under the message.
  await separate.hover();
  await separate.getByRole("button", { name: "Reply in thread" }).click();
  const thread2 = page.getByRole("complementary", { name: "Thread" });
  await thread2.getByRole("combobox", { name: "Reply in thread" }).fill("Maria does, I think");
  await thread2.getByRole("combobox", { name: "Reply in thread" }).press("Enter");
  await expect(thread2.getByRole("article", { name: /^Message from / }).filter({ hasText: "Maria does" })).toBeVisible();
  await expect(separate.getByRole("button", { name: /^1 reply/ })).toBeVisible();
  await expect(log.getByText("Maria does, I think")).toHaveCount(0);
});

test("drafts survive a channel switch, and Ctrl+K finds a figure from a report and opens it in its run's thread", async ({ page, request }) => {
  test.setTimeout(90_000);
  const { thread, report } = await channelWithRun(request);
  const other = await createChannel(request, uniqueName("other"));
  await openChannel(page, thread, "conversation");
  const box = page.getByRole("combobox", { name: `Message #${thread.name}` });
  await box.fill("A half-written thought");
  await page.getByRole("link", { name: other.name, exact: true }).click();
  await expect(page.getByRole("heading", { level: 1, name: other.name })).toBeVisible();
  await expect(page.getByRole("combobox", { name: `Message #${other.name}` })).toHaveValue("");
  await page.getByRole("link", { name: thread.name, exact: true }).click();
  await expect(box).toHaveValue("A half-written thought");

  await page.keyboard.press("Control+k");
  const dialog = page.getByRole("dialog", { name: "Jump to a channel or search" });
  await dialog.getByRole("combobox", { name: "Jump to a channel or search" }).fill(FIGURE);
  const hit = dialog.getByRole("option").filter({ hasText: FIGURE }).first();
  await expect(hit).toContainText(`#${thread.name}`);
  await expect(hit).toContainText(TITLE);
  await hit.click();
  const pane = page.getByRole("complementary", { name: `Thread of run ${TITLE}` });
  const result = pane.locator(`[data-msg-id="${report.id}"]`);
  await expect(result).toBeVisible();
  await expect(result).toBeInViewport();

  // The search page, with its filters.
  await page.goto(`/search?q=${encodeURIComponent(FIGURE)}`);
  await expect(page.getByRole("list", { name: "Search results" }).getByRole("link").first()).toContainText(FIGURE);
  await page.getByLabel("Kind").selectOption("chat.message");
  await expect(page.getByText(`Nothing matches “${FIGURE}” with these filters.`)).toBeVisible();
  await serious(page, "/search");
});

for (const scheme of ["light", "dark"] as const) {
  for (const size of [{ width: 1280, height: 800 }, { width: 390, height: 844 }]) {
    const where = `${scheme}, ${size.width}px`;
    // The other pages are swept by e2e/axe-sweep.spec.ts; this one checks a channel with a live run in both views.
    test(`the channel and its every-event view have no serious accessibility violations (${where})`, async ({ page, request }) => {
      test.setTimeout(150_000);
      const { thread } = await channelWithRun(request);
      await page.setViewportSize(size);
      await page.emulateMedia({ colorScheme: scheme });
      await openChannel(page, thread, "conversation");
      await expect(messageLog(page, thread.name).getByRole("article", { name: `Run: ${TITLE}` })).toBeVisible();
      await serious(page, `#channel ${where}`, scheme === "dark");
      await openChannel(page, thread, "all");
      await expect(messageLog(page, thread.name).getByRole("article", { name: /^Progress/ }).last()).toBeVisible();
      await serious(page, `#channel, every event ${where}`, scheme === "dark");
    });
  }
}
