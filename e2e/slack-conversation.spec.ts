/**
 * The conversation as a Slack user feels it (docs/channels.md "Who answers", "Threads", "Message
 * actions", "Mentions", "Welcome, drafts and reading"), walked in Chromium from the person's side:
 * a reply in a run's thread stays in the thread (unless also sent to the channel) and the pane
 * shows it; a run's thread reads as a conversation; messages have actions (react, edit with ↑,
 * pin, copy link, mark unread, delete); mentions are drawn inline and @channel starts nothing;
 * one's own message is never new. Its runs are written by agents outside the workspace, so the
 * server's own agents leave them alone.
 */
import { expect, test, type APIRequestContext, type Page, type TestInfo } from "@playwright/test";
import { newId, type StoredEvent } from "../lib/protocol";
import type { ThreadSummary } from "../lib/api/types";
import { createChannel, event, messageLog, openChannel, postEvents, postMessage, seriousViolations, uniqueName } from "./helpers";

const orchestrator = { agent_id: "agent:orchestrator", role: "orchestrator", display_name: "Orchestrator" };
const lead = { agent_id: "agent:lead-1", role: "worker", display_name: "lead-1" };
const TITLE = "Quarterly revenue review";
const REPORT = "Revenue grew 9.1% to $3,870,500 in Q4.";

/** A channel with one finished run: the person's request, 40 progress notes, lead-1's report to the people and its result. */
async function channelWithReport(request: APIRequestContext): Promise<{ thread: ThreadSummary; run_id: string; report: StoredEvent }> {
  const thread = await createChannel(request, uniqueName("slack"));
  const said = await postMessage(request, thread.id, `${TITLE}, please`);
  const run_id = newId("run");
  const at = { run_id, task_id: newId("task") };
  const report = event(thread.id, "chat.message", { text: REPORT }, { ...at, from: lead, to: [{ agent_id: "user", role: "human" }] });
  const stored = await postEvents(request, [
    event(thread.id, "task.request", { title: TITLE, instructions: `${TITLE}, please`, input: { message_id: said.id } }, { ...at, from: orchestrator, to: [lead] }),
    event(thread.id, "task.accept", {}, { ...at, from: lead }),
    ...Array.from({ length: 40 }, (_, i) => event(thread.id, "task.progress", { message: `Read ${i + 1} of 40 files` }, { ...at, from: lead })),
    report,
    event(thread.id, "task.result", { summary: REPORT }, { ...at, from: lead }),
  ]);
  return { thread, run_id, report: stored.find((e) => e.id === report.id)! };
}

/** A screenshot kept with the test's results (test-results/…/<name>.png), to look at. */
async function look(page: Page, info: TestInfo, name: string) {
  const path = info.outputPath(`${name}.png`);
  await page.screenshot({ path });
  await info.attach(name, { path, contentType: "image/png" });
}

test("a reply in a run's thread stays in the thread, the pane shows it; also sent to the channel, the channel shows it too", async ({ page, request }, info) => {
  const { thread, run_id } = await channelWithReport(request);
  await openChannel(page, thread, "conversation");
  const log = messageLog(page, thread.name);
  const report = log.getByRole("article", { name: "Message from lead-1" }).filter({ hasText: REPORT });
  await report.hover();
  await report.getByRole("button", { name: "Reply in thread" }).click();
  // The report's thread is the run's thread.
  await expect(page).toHaveURL(new RegExp(`[?&]run=${run_id}`));
  const pane = page.getByRole("complementary", { name: `Thread of run ${TITLE}` });
  // A thread that reads as a conversation: 40 progress notes are one line with the latest.
  await expect(pane.getByText("40 progress updates; the latest is shown")).toBeVisible();
  await expect(pane.getByText("Read 40 of 40 files")).toBeVisible();
  await expect(pane.getByText("Read 39 of 40 files")).toHaveCount(0);

  const box = pane.getByRole("combobox");
  await expect(pane.getByTestId("composer-mode")).toHaveText("Continues the run: lead-1 answers");
  await box.fill("Now break it down by customer segment");
  await box.press("Enter");
  await expect(box).toHaveValue("");
  const followUp = pane.getByRole("article", { name: /^Message from / }).filter({ hasText: "Now break it down by customer segment" });
  await expect(followUp).toBeInViewport();
  await expect(log.getByText("Now break it down by customer segment")).toHaveCount(0);

  // Esc: plain chat in the thread, asking no agent; ticked, it goes to the channel too.
  await box.fill("Sharing this with the team");
  await box.press("Escape");
  await expect(pane.getByTestId("composer-mode")).toHaveText("Just chat: no agent answers");
  await pane.getByRole("checkbox", { name: `Also send to #${thread.name}` }).check();
  await box.press("Enter");
  await expect(pane.getByRole("article", { name: /^Message from / }).filter({ hasText: "Sharing this with the team" })).toBeVisible();
  await expect(log.getByRole("article", { name: /^Message from / }).filter({ hasText: "Sharing this with the team" })).toBeVisible();
  await look(page, info, "thread-keeps-replies");
  expect(await seriousViolations(page), "channel with a run's thread: serious axe violations").toEqual([]);
});

test("messages have actions: react, edit with ↑, pin, copy link, mark unread and delete, each live and in people's words", async ({ page, request, context }, info) => {
  await context.grantPermissions(["clipboard-read", "clipboard-write"]);
  const thread = await createChannel(request, uniqueName("actions"));
  await postMessage(request, thread.id, "Morning all", "Lee Member");
  await openChannel(page, thread, "conversation");
  const log = messageLog(page, thread.name);
  const box = page.getByRole("combobox", { name: `Message #${thread.name}` });
  await box.fill("The Q4 deck is in the shared drive");
  await box.press("Enter");
  const mine = log.getByRole("article", { name: /^Message from Dana Whitfield/ }).filter({ hasText: "Q4 deck" });
  await expect(mine).toBeVisible();
  // One's own message is never new.
  await expect(page.getByText("New", { exact: true })).toHaveCount(0);
  // The debug-looking seq tag is gone.
  await mine.hover();
  await expect(mine.getByText(/^#\d+$/)).toHaveCount(0);

  // React.
  await mine.getByRole("toolbar", { name: "Message actions" }).getByRole("button", { name: "Add reaction" }).click();
  await page.getByRole("button", { name: "thumbs up" }).click();
  const chip = mine.getByRole("group", { name: "Reactions" }).getByRole("button", { name: "You reacted with 👍" });
  await expect(chip).toHaveAttribute("aria-pressed", "true");
  await expect(chip).toContainText("1");

  // Edit with ↑ in the empty composer.
  await box.click();
  await box.press("ArrowUp");
  const editor = mine.getByLabel("Edit message");
  await expect(editor).toBeFocused();
  await editor.fill("The Q4 deck is in the shared drive, folder Reviews");
  await editor.press("Enter");
  await expect(mine).toContainText("folder Reviews");
  await expect(mine.getByText("(edited)")).toBeVisible();

  // Pin: the header lists it.
  await mine.hover();
  await mine.getByRole("button", { name: "More actions" }).click();
  await page.getByRole("menuitem", { name: "Pin to channel" }).click();
  await expect(mine.getByText("Pinned by you")).toBeVisible();
  await page.getByRole("button", { name: "Pinned messages (1)" }).click();
  await expect(page.getByRole("dialog").getByText("folder Reviews")).toBeVisible();
  await page.keyboard.press("Escape");

  // Copy link: a URL that opens the channel at the message.
  await mine.hover();
  await mine.getByRole("button", { name: "More actions" }).click();
  await page.getByRole("menuitem", { name: "Copy link" }).click();
  const link = await page.evaluate(() => navigator.clipboard.readText());
  expect(link).toMatch(new RegExp(`/c/${thread.id}\\?event=`));

  // Mark unread from Lee's message: the divider goes above it.
  const lees = log.getByRole("article", { name: /^Message from Lee Member/ });
  await lees.hover();
  await lees.getByRole("button", { name: "More actions" }).click();
  await page.getByRole("menuitem", { name: "Mark unread" }).click();
  await expect(page.getByText("New", { exact: true })).toBeVisible();
  await look(page, info, "message-actions");

  // Delete: a tombstone; the log keeps the original.
  await mine.hover();
  await mine.getByRole("button", { name: "More actions" }).click();
  await page.getByRole("menuitem", { name: "Delete message" }).click();
  await page.getByRole("dialog", { name: "Delete this message?" }).getByRole("button", { name: "Delete" }).click();
  await expect(log.getByText("This message was deleted.")).toBeVisible();
  await expect(log.getByText("folder Reviews")).toHaveCount(0);
  expect(await seriousViolations(page), "channel with message actions: serious axe violations").toEqual([]);
});

test("mentions are drawn inline as one highlighted name; @channel notifies and starts nothing", async ({ page, request }) => {
  const thread = await createChannel(request, uniqueName("mentions-inline"));
  await openChannel(page, thread, "conversation");
  const box = page.getByRole("combobox", { name: `Message #${thread.name}` });
  await box.fill("@channel the review moves to 3pm");
  await expect(page.getByTestId("composer-mode")).toHaveText(`A message for everyone in #${thread.name}: no agent answers`);
  await box.press("Enter");
  const log = messageLog(page, thread.name);
  const msg = log.getByRole("article", { name: /^Message from / }).filter({ hasText: "the review moves to 3pm" });
  await expect(msg).toBeVisible();
  await expect(msg.getByText("@channel", { exact: true })).toHaveCount(1);
  // No run card: @channel asks no agent.
  await expect(log.getByRole("article", { name: /^Run: / })).toHaveCount(0);
});
