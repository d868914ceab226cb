/**
 * Long threads (docs/channels.md "Threads"): a channel and a run's thread with thousands of
 * events show the newest (the channel) or the first (the thread) events at once, keep only a
 * window of rows in the page, scroll to either end, and a jump to a message that is not drawn
 * scrolls to it and flashes it.
 */
import { expect, test, type Locator, type Page } from "@playwright/test";
import { newId, type ClutchMessage } from "../lib/protocol";
import { createChannel, event, messageLog, openChannel, postEvents, postMessage, uniqueName } from "./helpers";

const COUNT = 3000;

/**
 * Record, from the next page load on, every message row that gets the `flash` class: the flash
 * lasts 1.7 s, which a busy machine can spend before an assertion looks at the row.
 */
async function recordFlashes(page: Page) {
  await page.addInitScript(() => {
    const flashed: string[] = [];
    (window as unknown as { __flashed: string[] }).__flashed = flashed;
    new MutationObserver((changes) => {
      for (const c of changes) {
        const el = c.target as Element;
        const id = el.classList?.contains("flash") ? el.getAttribute("data-msg-id") : null;
        if (id) flashed.push(id);
      }
    }).observe(document, { subtree: true, attributes: true, attributeFilter: ["class"] });
  });
}

/** Until message `id` has been flashed since the page loaded (recordFlashes). */
const expectFlashed = (page: Page, id: string) =>
  expect.poll(() => page.evaluate((msg) => (window as unknown as { __flashed?: string[] }).__flashed?.includes(msg) ?? false, id), { message: `message ${id} flashed` }).toBe(true);

test.describe.configure({ timeout: 120_000 });

/** A run of COUNT messages to people, a minute apart, the last one answering step COUNT - 50. */
function longRun(threadId: string, runId: string): ClutchMessage[] {
  const t0 = Date.now() - COUNT * 60_000;
  const agents = [
    { agent_id: "agent:ken", role: "worker", display_name: "Ken" },
    { agent_id: "agent:ada", role: "worker", display_name: "Ada" },
  ] as const;
  const out: ClutchMessage[] = [];
  for (let i = 1; i < COUNT; i++) {
    out.push(
      event(threadId, "chat.message", { text: `Step ${i} of the long run` }, {
        run_id: runId,
        task_id: `task_${runId.slice(4)}`,
        from: agents[Math.floor(i / 7) % 2],
        to: [{ agent_id: "user", role: "human" }],
        ts: new Date(t0 + i * 60_000).toISOString(),
      }),
    );
  }
  out.push(
    event(threadId, "chat.message", { text: `Step ${COUNT}: about an earlier step`, reply_to: out[COUNT - 51]!.id }, {
      run_id: runId,
      task_id: `task_${runId.slice(4)}`,
      to: [{ agent_id: "user", role: "human" }],
      ts: new Date(t0 + COUNT * 60_000).toISOString(),
    }),
  );
  return out;
}

/** The element that scrolls `list` (a role=log inside a virtualized box). */
async function scrollTo(list: Locator, where: "top" | "bottom"): Promise<void> {
  await list.evaluate((el, to) => {
    let box = el.parentElement;
    while (box && getComputedStyle(box).overflowY !== "auto") box = box.parentElement;
    if (box) box.scrollTop = to === "top" ? 0 : box.scrollHeight;
  }, where);
}

/**
 * Scroll `list` to its top or bottom until `row` is in view: while older pages load or rows are
 * measured, the list's end can move after one scroll, and a person would scroll again.
 */
async function scrollToSee(list: Locator, where: "top" | "bottom", row: Locator): Promise<void> {
  await expect(async () => {
    await scrollTo(list, where);
    await expect(row).toBeInViewport({ timeout: 1000 });
  }).toPass({ timeout: 20_000 });
}

async function rowsInDom(list: Locator): Promise<number> {
  return list.locator("[data-msg-id]").count();
}

async function seed(page: Page, request: Parameters<typeof postEvents>[0]) {
  const thread = await createChannel(request, uniqueName("long"));
  const runId = newId("run");
  const stored = await postEvents(request, longRun(thread.id, runId));
  return { thread, runId, stored, page };
}

test("a channel with thousands of events shows the newest, draws a window of rows, and jumps to one that is not drawn", async ({ page, request }) => {
  const { thread, stored } = await seed(page, request);
  await recordFlashes(page);
  await openChannel(page, thread, "all");
  const log = messageLog(page, thread.name);
  await expect(log.getByText(`Step ${COUNT}: about an earlier step`)).toBeInViewport();
  // Scrolled up, older pages (100 events each) load until 300 events are in; back at the bottom,
  // only the rows near the view are in the page.
  await expect(async () => {
    await log.hover();
    await page.mouse.wheel(0, -4000);
    const top = await log.locator("[data-msg-id]").first().innerText();
    expect(Number(/Step (\d+)/.exec(top)?.[1])).toBeLessThanOrEqual(COUNT - 250);
  }).toPass({ timeout: 30_000 });
  await scrollToSee(log, "bottom", log.getByText(`Step ${COUNT}: about an earlier step`));
  const drawn = await rowsInDom(log);
  expect(drawn).toBeGreaterThan(5);
  expect(drawn).toBeLessThan(90);
  await expect(log.getByText(`Step ${COUNT - 50} of the long run`, { exact: true })).toHaveCount(0);

  // The reply's quote jumps to the message it answers, 50 rows up: scrolled to and flashed.
  await log.getByRole("button", { name: new RegExp(`^In reply to \\w+: Step ${COUNT - 50} of the long run`) }).click();
  const target = log.locator(`[data-msg-id="${stored[COUNT - 51]!.id}"]`);
  await expect(target).toBeInViewport();
  await expectFlashed(page, stored[COUNT - 51]!.id);
  // Scrolled up: a new message shows the pill instead of moving the view; the pill goes down to it.
  await postMessage(request, thread.id, "A new message at the end");
  const pill = page.getByRole("button", { name: "1 new message" });
  await expect(pill).toBeVisible();
  await expect(target).toBeInViewport();
  await pill.click();
  await expect(log.getByText("A new message at the end")).toBeInViewport();
});

test("a run's thread of thousands of events opens at its start, scrolls to its end and back, and a search hit in it is scrolled to and flashed", async ({ page, request }) => {
  const { thread, runId, stored } = await seed(page, request);
  await page.goto(`/c/${thread.id}?run=${runId}`);
  const pane = page.getByRole("complementary", { name: /^Thread of run/ });
  const log = pane.getByRole("log");
  await expect(log.getByText("Step 1 of the long run", { exact: true })).toBeInViewport({ timeout: 20_000 });
  expect(await rowsInDom(log)).toBeLessThan(150);

  await scrollToSee(log, "bottom", log.getByText(`Step ${COUNT}: about an earlier step`));
  expect(await rowsInDom(log)).toBeLessThan(150);
  await scrollToSee(log, "top", log.getByText("Step 1 of the long run", { exact: true }));

  // A run's history travels gzipped: the run page's stream and the export download alike.
  for (const path of [`/api/runs/${runId}/events/stream?after=0`, `/api/runs/${runId}/export`]) {
    const res = await page.request.get(path);
    expect(res.headers()["content-encoding"], path).toBe("gzip");
    expect((await res.text()).trim().split("\n")).toHaveLength(COUNT);
  }

  // A search hit deep in the run (`?event=`): drawn, scrolled to the middle and flashed.
  const hit = stored[1499]!;
  await recordFlashes(page);
  await page.goto(`/c/${thread.id}?run=${runId}&event=${hit.id}`);
  const row = page.getByRole("complementary", { name: /^Thread of run/ }).locator(`[data-msg-id="${hit.id}"]`);
  await expect(row).toBeInViewport({ timeout: 20_000 });
  await expectFlashed(page, hit.id);
  await expect(row).toContainText("Step 1500 of the long run");
});
