/**
 * A reload shows the identical thread (same events, same order, same text), and older
 * history loads when scrolling to the top.
 */
import { expect, test, type Page } from "@playwright/test";
import { createChannel, event, markdownRendered, messageLog, openChannel, postEvents, postMessage, send, uniqueName } from "./helpers";

async function rendered(page: Page, name: string) {
  await markdownRendered(page);
  // The events' rows (a run's card is an article too, without a seq).
  const articles = messageLog(page, name).locator("article[data-seq]");
  const seqs = await articles.evaluateAll((els) => els.map((e) => Number(e.getAttribute("data-seq"))));
  const texts = await articles.allInnerTexts();
  return { seqs, texts };
}

test("after a reload the thread is identical", async ({ page, request }) => {
  const thread = await createChannel(request, uniqueName("reload"));
  await openChannel(page, thread);
  await send(page, thread.name, "typed in the browser");
  await postMessage(request, thread.id, "posted by **API**", "Grace");
  const run_id = uniqueName("run_reload");
  const task_id = uniqueName("task_reload");
  await postEvents(request, [
    event(thread.id, "task.request", { title: "Check the numbers" }, { run_id, task_id }),
    event(thread.id, "tool.call", { call_id: "c1", tool: "calc", arguments: { x: 1 } }, { run_id, task_id }),
    event(thread.id, "tool.result", { call_id: "c1", tool: "calc", result: 2, duration_ms: 5 }, { run_id, task_id }),
    event(thread.id, "task.result", { summary: "All good" }, { run_id, task_id }),
  ]);
  const log = messageLog(page, thread.name);
  await expect(log.getByRole("article", { name: /^Result/ })).toContainText("All good");
  // The run's card has caught up with its four events (the reload draws it from the start).
  await expect(log.getByRole("button", { name: /^Open the thread of .*: 4 events$/ })).toBeVisible();

  const before = await rendered(page, thread.name);
  expect(before.seqs.length).toBeGreaterThanOrEqual(6);
  expect([...before.seqs].sort((a, b) => a - b)).toEqual(before.seqs);
  expect(new Set(before.seqs).size).toBe(before.seqs.length);

  await page.reload();
  await expect(log.getByRole("article", { name: /^Result/ })).toContainText("All good");
  const after = await rendered(page, thread.name);
  expect(after).toEqual(before);
});

test("scrolling to the top loads older history", async ({ page, request }) => {
  const thread = await createChannel(request, uniqueName("history"));
  const batch = Array.from({ length: 260 }, (_, i) =>
    event(thread.id, "chat.message", { text: `history message ${i + 1}` }, { from: { agent_id: "agent:echo", display_name: "Echo" } }),
  );
  await postEvents(request, batch);
  await openChannel(page, thread);
  const log = messageLog(page, thread.name);
  await expect(log.getByText("history message 260", { exact: true })).toBeVisible();
  await expect(log.getByText("history message 1", { exact: true })).toHaveCount(0);

  // Scroll up until the very beginning of the channel shows.
  await expect(async () => {
    await log.hover();
    await page.mouse.wheel(0, -50_000);
    await expect(page.getByRole("heading", { name: `Welcome to #${thread.name}` })).toBeVisible({ timeout: 1000 });
    // Older pages may still be arriving: a person keeps scrolling until the first message shows.
    await expect(log.getByText("history message 1", { exact: true })).toBeVisible({ timeout: 1000 });
  }).toPass({ timeout: 20_000 });
  const { seqs } = await rendered(page, thread.name);
  expect(new Set(seqs).size).toBe(seqs.length);
  expect([...seqs].sort((a, b) => a - b)).toEqual(seqs);
});
