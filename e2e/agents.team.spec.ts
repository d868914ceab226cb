/**
 * The person's whole path in #sales on the built-in model. They ask for last quarter's
 * sales trends, see pm-1's clarifying question marked as waiting for their answer, answer it
 * with its Answer button, and watch the run finish in the channel as request, question, answer
 * and report plus one run card that goes to succeeded with 3 of 3 tasks and its result; the
 * machinery (qa-1's review of analyst-1's work, agents' questions to each other) is in the run's
 * thread. The agents are in the sidebar with their status and card.
 *
 * Every e2e test shares one database and #sales, so assertions are about this run: the last
 * run card, the last question, the last report. Screenshots of the channel during the run
 * (question waiting) and after it (report) at 1280×800 and 390×844, light and dark, are written
 * to this test's output directory (test-results/…) and attached to the report.
 */
import { expect, test, type Locator, type Page, type TestInfo } from "@playwright/test";
import type { ThreadSummary } from "../lib/api/types";
import { messageLog, recordStreamLengths, scrollToTop } from "./helpers";

const SIZES = [
  { name: "desktop", width: 1280, height: 800 },
  { name: "phone", width: 390, height: 844 },
] as const;

/** Screenshots of the page at both sizes in both themes; restores 1280×800 light. */
async function shoot(page: Page, info: TestInfo, stage: string, frame: (size: (typeof SIZES)[number]) => Promise<void>) {
  for (const size of SIZES) {
    await page.setViewportSize({ width: size.width, height: size.height });
    for (const scheme of ["light", "dark"] as const) {
      await page.emulateMedia({ colorScheme: scheme });
      await frame(size);
      // No hover state in the picture.
      await page.mouse.move(Math.round(size.width / 2), 20);
      const path = info.outputPath(`${stage}-${size.name}-${scheme}.png`);
      await page.screenshot({ path });
      await info.attach(`${stage}-${size.name}-${scheme}`, { path, contentType: "image/png" });
    }
  }
  await page.setViewportSize({ width: 1280, height: 800 });
  await page.emulateMedia({ colorScheme: "light" });
}

/** Scrolls the message pane (the scrolling ancestor of `inside`) to its end. */
async function scrollToBottom(page: Page, inside: Locator) {
  await inside.evaluate((el) => {
    let box = el.parentElement;
    while (box && getComputedStyle(box).overflowY !== "auto") box = box.parentElement;
    if (box) box.scrollTop = box.scrollHeight;
  });
  await page.waitForTimeout(150);
}

test("a person asks #sales for last quarter's trends, answers pm-1's question, and gets the reviewed report", async ({ page, request }, info) => {
  test.setTimeout(150_000);
  const res = await request.get("/api/threads");
  const sales = ((await res.json()).threads as ThreadSummary[]).find((t) => t.name === "sales");
  expect(sales, "the server creates #sales on start").toBeTruthy();
  const thread = sales!;
  await page.goto(`/c/${thread.id}`);
  const log = messageLog(page, "sales");
  await expect(log).toBeVisible();

  // The agents are in the sidebar with their status; a click shows an agent's card.
  const agents = page.getByRole("list", { name: "Agents" });
  for (const id of ["analyst-1", "pm-1", "qa-1"]) {
    await expect(agents.getByRole("button", { name: new RegExp(`^${id}, `) })).toBeVisible();
  }
  await agents.getByRole("button", { name: /^pm-1, Project Manager/ }).click();
  const card = page.getByRole("dialog", { name: "Project Manager" });
  await expect(card).toContainText("Break down incoming tasks and delegate to specialists.");
  await expect(card).toContainText("mcp:DocsServer");
  await expect(card).toContainText("read_file");
  await card.getByRole("button", { name: "Close" }).click();
  await expect(card).toBeHidden();

  // The request: a plain message is always a new request (docs/channels.md).
  const box = page.getByRole("combobox", { name: "Message #sales" });
  const lengths = await recordStreamLengths(page);
  await box.fill("Analyze last quarter's sales trends");
  await box.press("Enter");
  await expect(box).toHaveValue("");

  // pm-1 asks a clarifying question: marked as waiting for this person's answer, with Answer.
  const question = log.getByRole("article", { name: "Question from Project Manager" }).last();
  await expect(question).toContainText("regional breakdowns, customer segments, or overall trend", { timeout: 30_000 });
  await expect(question.getByText("Waiting for your answer", { exact: true }).first()).toBeVisible();
  // It was written as it streamed: the question grew in the channel in several lengths before it was stored.
  const grew = await lengths();
  expect(new Set(grew).size, `lengths seen: ${grew.join(", ")}`).toBeGreaterThanOrEqual(3);
  await expect(question.getByRole("button", { name: "Answer" })).toBeVisible();
  // One run card for the run, live: who works on what, and the question it waits on.
  const run = log.getByRole("article", { name: "Run: Analyze last quarter's sales trends" }).last();
  await expect(run.getByText("Run state: Waiting on you")).toBeVisible();
  await expect(run).toContainText("Project Manager asks:");
  await expect(page.getByRole("status", { name: "Runs in progress" })).toContainText("Project Manager is waiting on you");
  // The composer never answers on its own: it says the next message starts a new run; the question's Answer answers.
  await expect(page.getByTestId("composer-mode")).toHaveText("Starts a run with Project Manager");
  await expect(page.getByRole("group", { name: /^Answering / })).toHaveCount(0);
  await expect(agents.getByRole("button", { name: /^pm-1, .*waiting for an answer/ })).toBeVisible({ timeout: 15_000 });

  // During: the question waiting, the banner above.
  await shoot(page, info, "sales-question", async () => {
    await scrollToBottom(page, question);
  });

  // The answer, through the question's Answer button: the composer names the question and its run.
  await question.getByRole("button", { name: "Answer" }).click();
  await expect(box).toBeFocused();
  await expect(page.getByRole("group", { name: "Answering Project Manager" })).toContainText("“Analyze last quarter's sales trends”");
  await expect(page.getByTestId("composer-mode")).toHaveText("Answers Project Manager’s question");
  await box.fill("Regional breakdown by major market");
  await box.press("Enter");
  await expect(box).toHaveValue("");
  await expect(question.getByText("Answered", { exact: true }).first()).toBeVisible();
  const answer = log.getByRole("article", { name: "Message from Dana Whitfield" }).last();
  await expect(answer).toContainText("Regional breakdown by major market");
  await expect(answer.getByRole("button", { name: /^In reply to Project Manager/ })).toBeVisible();
  await expect(page.getByRole("group", { name: /^Answering / })).toHaveCount(0);

  // The team works: analyst-1 and pm-1 talk, qa-1 inquires and approves. The example policy
  // (examples/sales-analysis/clutch.policy.yaml) holds pm-1's report for a person: approve it.
  type Pending = { approval_id: string; rule: string | null; thread_name: string | null; run_id: string; run_title: string | null };
  const runId = await run.getAttribute("data-run-id");
  const held = async () =>
    ((await (await request.get("/api/approvals?state=pending")).json()) as { approvals: Pending[] }).approvals.filter(
      (a) => a.rule === "approve-final-report" && a.thread_name === "sales" && (!runId || a.run_id === runId),
    );
  await expect.poll(async () => (await held()).length, { timeout: 60_000 }).toBeGreaterThan(0);
  const hold = (await held()).at(-1)!;
  expect(hold.run_title).toBe("Analyze last quarter's sales trends");
  await expect(run).toContainText("Waiting for approval", { timeout: 15_000 });
  const decided = await request.post(`/api/approvals/${hold.approval_id}/decision`, { data: { decision: "approve" } });
  expect(decided.status()).toBe(200);
  await expect(run.getByText("Run state: Succeeded")).toBeVisible({ timeout: 60_000 });
  await expect(run).toContainText("3 of 3 tasks done");
  await expect(run.getByRole("progressbar", { name: "Tasks done" })).toHaveAttribute("aria-valuenow", "3");
  await expect(run).toContainText("Result · Project Manager");
  await expect(page.getByRole("status", { name: "Runs in progress" })).toBeHidden();

  // The report: headings and tables, figures right-aligned, Central among the regions.
  const report = log.getByRole("article", { name: "Message from Project Manager" }).filter({ hasText: "Q4 2017 sales trends by region" }).last();
  await expect(report.getByRole("heading", { name: "Q4 2017 sales trends by region" })).toBeVisible();
  const central = report.getByRole("row", { name: /^Central / }).first();
  await expect(central).toBeVisible();
  await expect(central.getByRole("cell").nth(1)).toHaveCSS("text-align", "right");
  expect(await report.getByRole("table").count()).toBeGreaterThanOrEqual(4);

  // The machinery is not in the channel: agents talking to each other and the review are in the run's thread.
  await expect(log.getByRole("article", { name: "Question from Analyst Agent" })).toHaveCount(0);
  await run.getByRole("button", { name: /^Open the thread of / }).click();
  const pane = page.getByRole("complementary", { name: "Thread of run Analyze last quarter's sales trends" });
  const toPm = pane.getByRole("article", { name: "Question from Analyst Agent" }).last();
  await expect(toPm).toContainText("→ Project Manager");
  await expect(toPm.getByText("Answered", { exact: true }).first()).toBeVisible();
  const inquiry = pane.getByRole("article", { name: "Oversight inquiry from QA Agent" }).last();
  await expect(inquiry.getByText("Oversight inquiry", { exact: true }).first()).toBeVisible();
  await expect(inquiry).toContainText("→ Analyst Agent");
  const review = pane.getByRole("article", { name: /^Review decision: / }).last();
  await expect(review.getByText("Decision: Approved", { exact: true }).first()).toBeVisible();
  await expect(review).toContainText("No blocking issues");
  const approved = pane.getByRole("article", { name: "Result: Q4 2017 sales analysis by region" }).last();
  await expect(approved.getByText("Approved by QA Agent", { exact: true }).first()).toBeVisible();
  await expect(pane.getByRole("article", { name: /^Submitted for review/ }).last()).toContainText("Reviewed by QA Agent");
  await pane.getByRole("button", { name: "Close thread" }).click();

  // Agents are free again.
  await expect(agents.getByRole("button", { name: /^pm-1, Project Manager: online$/ })).toBeVisible({ timeout: 15_000 });

  // After: the run card with its result, and pm-1's report (on a phone, from its first table).
  await shoot(page, info, "sales-report", async (size) => {
    await scrollToTop(page, size.width < 768 ? report.getByRole("heading", { name: "Sales and profit by region" }) : run);
  });

  // On a phone the wide tables scroll inside the message; the page itself never scrolls sideways.
  await page.setViewportSize({ width: 390, height: 844 });
  await scrollToTop(page, report);
  const widths = await page.evaluate(() => ({ page: document.documentElement.scrollWidth, view: window.innerWidth }));
  expect(widths.page).toBeLessThanOrEqual(widths.view);
  const overflow = await report.evaluate((el) => el.scrollWidth - el.clientWidth);
  expect(overflow).toBeLessThanOrEqual(1);
  const table = report.getByRole("region", { name: "Table" }).first();
  expect(await table.evaluate((el) => el.scrollWidth > el.clientWidth)).toBe(true);

  // A follow-up in the run's thread, as in Slack: pm-1 carries on with the conversation so far
  // and answers for the period agreed above, by customer segment.
  await page.setViewportSize({ width: 1280, height: 800 });
  await run.getByRole("button", { name: /^Open the thread of / }).click();
  const runThread = page.getByRole("complementary", { name: "Thread of run Analyze last quarter's sales trends" });
  await expect(runThread.getByRole("group", { name: "Follow-up for Project Manager" })).toContainText("it carries on with this conversation");
  const reply = runThread.getByRole("combobox", { name: "Follow-up for Project Manager" });
  await reply.fill("Now break it down by customer segment");
  await reply.press("Enter");
  await expect(reply).toHaveValue("");
  // The answer stays in the thread, as in Slack; the channel's card lists the follow-up under the first result.
  const segments = runThread.getByRole("article", { name: "Message from Project Manager" }).filter({ hasText: "Q4 2017 by customer segment" }).last();
  await expect(segments).toBeVisible({ timeout: 60_000 });
  for (const segment of ["Consumer", "Corporate", "Home Office"]) await expect(segments.getByRole("row", { name: new RegExp(`^${segment} `) }).first()).toBeVisible();
  await expect(log.getByRole("article", { name: /^Message from / }).filter({ hasText: "Now break it down by customer segment" })).toHaveCount(0);
  await expect(run.getByText("Run state: Succeeded")).toBeVisible({ timeout: 60_000 });
  await expect(run).toContainText("4 of 4 tasks done");
  await expect(run.getByRole("list", { name: "Follow-ups" })).toContainText("Now break it down by customer segment");
});
