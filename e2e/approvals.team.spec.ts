/**
 * People approve what matters (Clutch Protocol §6, per-message policy), in #sales on the built-in
 * model with the example policy (examples/sales-analysis/clutch.policy.yaml holds pm-1's final
 * report to the person for an approval).
 *
 * 1. Approve from the channel card: while the report waits, the card says whose report it is and
 *    about what, who may decide, and shows the report (agent, tool and rule behind Details); the channel's banner and
 *    the sidebar badge say an approval waits; Approve sends the report and the card shows who
 *    approved it.
 * 2. Approve from the inbox with the keyboard: j/k to the approval, Enter opens it in its
 *    channel, back, a approves; the item leaves the list and the report arrives in #sales.
 * 3. Reject with a comment (r, the comment, Enter): the card shows the rejection and the
 *    comment, the report is never sent, and pm-1 is told (PERMISSION_DENIED with the comment)
 *    and carries on: its run still ends.
 * 4. Edit the arguments then approve (e): the editor refuses what is not a JSON object; the
 *    edited message is what pm-1 sends.
 *
 * The person's request and answer go through the API (the composer has its own tests); every
 * approval step goes through the UI. Every e2e test shares one database and #sales, so each
 * test finds its run by the message it posts, and its approval by that run. Screenshots of the
 * card and of the inbox (1280×800 and 390×844, light and dark) go to the test's output folder
 * only; the README's are taken on a clean workspace by scripts/screenshots.ts.
 */
import { expect, test, type APIRequestContext, type Locator, type Page, type TestInfo } from "@playwright/test";
import type { ApprovalSummary, ThreadSummary } from "../lib/api/types";
import type { StoredEvent } from "../lib/protocol";
import { askForRun, messageLog, openChannel, personContext, scrollToTop } from "./helpers";

const ASK = "Analyze last quarter's sales trends";
const ME = "Dana Whitfield";

const SIZES = [
  { name: "desktop", width: 1280, height: 800 },
  { name: "phone", width: 390, height: 844 },
] as const;

async function salesThread(request: APIRequestContext): Promise<ThreadSummary> {
  const res = await request.get("/api/threads");
  const sales = ((await res.json()).threads as ThreadSummary[]).find((t) => t.name === "sales");
  expect(sales, "the server creates #sales on start").toBeTruthy();
  return sales!;
}

/**
 * Asks #sales for the trends, answers pm-1's question (both through the API) and waits until
 * pm-1's report is held for an approval. Answers the run and its pending approval.
 */
async function runUntilReportHeld(request: APIRequestContext, thread: ThreadSummary): Promise<{ runId: string; approval: ApprovalSummary }> {
  const { runId } = await askForRun(request, thread.id, ASK);
  let question: StoredEvent | undefined;
  await expect
    .poll(
      async () => {
        const events = (await (await request.get(`/api/runs/${runId}/events?after=0&limit=1000`)).json()).events as StoredEvent[];
        question = events.find((e) => e.type === "chat.message" && (e.payload as { expects_reply?: boolean }).expects_reply === true);
        return Boolean(question);
      },
      { timeout: 30_000 },
    )
    .toBe(true);
  const answer = await request.post(`/api/threads/${thread.id}/messages`, {
    data: { text: "Regional breakdown by major market", reply_to: question!.id },
  });
  expect(answer.status()).toBe(201);
  let approval: ApprovalSummary | undefined;
  await expect
    .poll(
      async () => {
        const list = (await (await request.get(`/api/approvals?state=pending&thread_id=${thread.id}`)).json()).approvals as ApprovalSummary[];
        approval = list.find((a) => a.run_id === runId && a.rule === "approve-final-report");
        return Boolean(approval);
      },
      { timeout: 90_000, message: "pm-1's report is held for an approval" },
    )
    .toBe(true);
  return { runId, approval: approval! };
}

/** The approval's card in the channel. */
function card(page: Page, approvalId: string): Locator {
  return page.locator(`[data-approval-id="${approvalId}"]`);
}

/** pm-1's report in the channel. */
function report(page: Page): Locator {
  return messageLog(page, "sales").getByRole("article", { name: "Message from Project Manager" }).filter({ hasText: "Q4 2017 sales trends by region" });
}

/** Both sizes, both themes, into the test's output folder. */
async function shoot(page: Page, info: TestInfo, stage: string, frame: () => Promise<void>) {
  for (const size of SIZES) {
    await page.setViewportSize({ width: size.width, height: size.height });
    for (const scheme of ["light", "dark"] as const) {
      await page.emulateMedia({ colorScheme: scheme });
      await frame();
      await page.mouse.move(Math.round(size.width / 2), 20);
      await page.waitForTimeout(200);
      const file = info.outputPath(`${stage}-${size.name}-${scheme}.png`);
      await page.screenshot({ path: file });
      await info.attach(`${stage}-${size.name}-${scheme}`, { path: file, contentType: "image/png" });
    }
  }
  await page.setViewportSize({ width: 1280, height: 800 });
  await page.emulateMedia({ colorScheme: "light" });
}

/** In the inbox, presses j (or k) until the approval is the selected item. */
async function selectInInbox(page: Page, approvalId: string) {
  const item = page.locator(`[data-approval-item="${approvalId}"]`);
  await expect(item).toBeVisible();
  for (let i = 0; i < 50 && (await item.getAttribute("data-selected")) === null; i++) await page.keyboard.press("j");
  await expect(item).toHaveAttribute("data-selected", "true");
  await expect(item).toBeFocused();
  return item;
}

test.describe.configure({ mode: "serial" });

test("approve from the channel card: the held report is sent and the card says who approved it", async ({ page, request }, info) => {
  test.setTimeout(180_000);
  const thread = await salesThread(request);
  const { runId, approval } = await runUntilReportHeld(request, thread);

  // Every event inline: the held tool call is checked too.
  await openChannel(page, thread);
  const held = card(page, approval.approval_id);
  await expect(held).toBeVisible({ timeout: 30_000 });
  // What is held, in people's words: whose report, about what, who may decide, the report itself;
  // the agent, the tool, why the policy asks (the rule's id only as its tooltip) and the JSON
  // arguments behind Details.
  await expect(held.getByText("Approval needed")).toBeVisible();
  await expect(held.getByText("Approval: waiting for a decision", { exact: true }).first()).toBeVisible();
  await expect(held.getByRole("heading", { name: "Project Manager's report to the people in the channel: Q4 2017 sales trends by region" })).toBeVisible();
  await expect(held).toContainText("Who may decide: admins");
  await expect(held).not.toContainText("approve-final-report");
  await held.getByRole("button", { name: "Details" }).click();
  await expect(held).toContainText("reply");
  await expect(held.getByTitle("Policy rule approve-final-report")).toHaveText("the report reaches the channel only after an admin has read it");
  await expect(held).not.toContainText("approve-final-report");
  await expect(held.getByLabel(/^Who may approve: /)).toBeVisible();
  await expect(held.getByText(/^Expires in /)).toBeVisible();
  const preview = held.getByRole("region", { name: "The message, as it will be posted" });
  await expect(preview.getByRole("heading", { name: "Q4 2017 sales trends by region" })).toBeVisible();
  // The box is bounded: the long report scrolls inside it.
  expect(await preview.evaluate((el) => el.scrollHeight > el.clientHeight)).toBe(true);
  // The held call reads as waiting, not as running; the task, the run, the channel and the
  // sidebar say so too.
  const log = messageLog(page, "sales");
  const call = log.getByRole("article", { name: "Tool call reply" }).last();
  await expect(call).toContainText("Waiting for approval");
  await expect(log.getByText("State: Waiting on you").first()).toBeVisible();
  await expect(page.locator(`[data-run-id="${runId}"]`)).toContainText("Waiting for approval: Project Manager's report");
  await expect(page.getByRole("status", { name: "Runs in progress" })).toContainText("Project Manager is waiting on you");
  await expect(page.getByRole("link", { name: /^Approvals, \d+ pending$/ })).toBeVisible();
  const before = await report(page).count();

  // The card with its sender line at the top of the pane.
  const row = held.locator("xpath=ancestor::article[1]");
  await shoot(page, info, "approval-card", async () => {
    await scrollToTop(page, row);
  });

  await held.getByRole("button", { name: "Approve", exact: true }).click();
  await expect(held).toHaveAttribute("data-approval-state", "granted");
  await expect(held.getByLabel("Outcome")).toContainText(`Approved by ${ME}`);
  await expect(held.getByRole("button", { name: "Approve", exact: true })).toHaveCount(0);
  // The report goes out once approved (the held call reads approved), and the run ends.
  await expect(call).toContainText("Approved");
  await expect(report(page)).toHaveCount(before + 1, { timeout: 30_000 });
  await expect(page.locator(`[data-run-id="${runId}"]`).getByText("Run state: Succeeded")).toBeVisible({ timeout: 60_000 });
  const decided = (await (await request.get(`/api/approvals?state=decided&thread_id=${thread.id}`)).json()).approvals as ApprovalSummary[];
  const me = (await (await request.get("/api/me")).json()).principal as { agent_id: string };
  expect(decided.find((a) => a.approval_id === approval.approval_id)).toMatchObject({ state: "granted", decided_by: me.agent_id });
});

test("a member may not release the report: the card says who may decide and offers no buttons, and the API refuses", async ({ page, browser, request }) => {
  test.setTimeout(180_000);
  const thread = await salesThread(request);
  const { approval } = await runUntilReportHeld(request, thread);
  const member = await personContext(browser, request, "Morgan Lee");
  try {
    const theirs = await member.newPage();
    await openChannel(theirs, thread);
    const held = card(theirs, approval.approval_id);
    await expect(held).toBeVisible({ timeout: 30_000 });
    await expect(held).toContainText("Who may decide: admins");
    await expect(held).toContainText("Only admins may decide.");
    await expect(held.getByRole("button", { name: "Approve", exact: true })).toHaveCount(0);
    const refused = await member.request.post(`/api/approvals/${approval.approval_id}/decision`, { data: { decision: "approve" } });
    expect(refused.status()).toBe(403);
    await expect(held).toHaveAttribute("data-approval-state", "pending");
  } finally {
    await member.close();
  }
  // The admin still can.
  await openChannel(page, thread);
  await expect(card(page, approval.approval_id).getByRole("button", { name: "Approve", exact: true })).toBeVisible({ timeout: 30_000 });
});

test("approve from the inbox with the keyboard: j/k, Enter opens it in #sales, a approves", async ({ page, request }, info) => {
  test.setTimeout(180_000);
  const thread = await salesThread(request);
  const { approval } = await runUntilReportHeld(request, thread);

  await page.goto("/approvals");
  await expect(page.getByRole("heading", { level: 1, name: "Approvals" })).toBeVisible();
  await expect(page.getByRole("tab", { name: /Pending/ })).toHaveAttribute("aria-selected", "true");
  const item = await selectInInbox(page, approval.approval_id);
  await expect(item).toContainText("#sales");
  await expect(item).toContainText("Project Manager → reply to people");
  await expect(item.getByRole("region", { name: "Preview" })).toBeVisible();

  await shoot(page, info, "approvals-inbox", async () => {
    await item.evaluate((el) => el.scrollIntoView({ block: "start" }));
    await page.waitForTimeout(100);
  });

  // Enter opens it in its channel, scrolled to the card.
  await item.focus();
  await page.keyboard.press("Enter");
  await expect(page).toHaveURL(new RegExp(`/c/${thread.id}`));
  await expect(card(page, approval.approval_id)).toBeInViewport({ timeout: 15_000 });
  await page.goBack();
  await expect(page).toHaveURL(/\/approvals$/);
  await selectInInbox(page, approval.approval_id);

  const badge = page.getByRole("link", { name: /^Approvals, \d+ pending$/ });
  const pendingBefore = Number((await badge.getAttribute("aria-label"))!.match(/(\d+) pending/)![1]);
  await page.keyboard.press("a");
  await expect(page.locator(`[data-approval-item="${approval.approval_id}"]`)).toHaveCount(0);
  await expect(page.getByText(/^Approved: Project Manager.s report/)).toBeVisible();
  if (pendingBefore > 1) await expect(badge).toHaveAttribute("aria-label", `Approvals, ${pendingBefore - 1} pending`);
  else await expect(page.getByRole("link", { name: "Approvals", exact: true })).toBeVisible();
  // Focus stays in the list (on the next item) when one is left.
  if ((await page.locator("[data-approval-item]").count()) > 0) await expect(page.locator("[data-approval-item][data-selected]")).toBeFocused();

  // Recently decided lists it with who decided.
  await page.getByRole("tab", { name: "Recently decided" }).click();
  const done = page.locator(`[data-approval-item="${approval.approval_id}"]`);
  await expect(done).toContainText("Approved");
  await expect(done).toContainText(`${ME} (you)`);

  // In #sales the card shows the outcome and the report arrived.
  await openChannel(page, thread);
  await expect(card(page, approval.approval_id)).toHaveAttribute("data-approval-state", "granted");
  await expect(card(page, approval.approval_id).getByLabel("Outcome")).toContainText(`Approved by ${ME}`);
  await expect(report(page).last()).toBeVisible({ timeout: 30_000 });
});

test("reject with a comment: the report is not sent, pm-1 is told why and carries on", async ({ page, request }) => {
  test.setTimeout(180_000);
  const thread = await salesThread(request);
  const { runId, approval } = await runUntilReportHeld(request, thread);
  const comment = "Too long for the channel: send only the regional table and the key figures.";

  await page.goto("/approvals");
  await selectInInbox(page, approval.approval_id);
  await page.keyboard.press("r");
  const box = page.getByRole("textbox", { name: /^Why reject\?/ });
  await expect(box).toBeFocused();
  await box.fill(comment);
  await box.press("Enter");
  await expect(page.locator(`[data-approval-item="${approval.approval_id}"]`)).toHaveCount(0);

  await openChannel(page, thread);
  const held = card(page, approval.approval_id);
  await expect(held).toHaveAttribute("data-approval-state", "rejected");
  await expect(held.getByLabel("Outcome")).toContainText(`Rejected by ${ME}`);
  await expect(held.getByLabel("Outcome")).toContainText(comment);
  const log = messageLog(page, "sales");
  await expect(log.getByRole("article", { name: `Rejected by ${ME}` }).last()).toContainText(comment);
  // pm-1 is told: its call is refused with PERMISSION_DENIED and the comment, never sent.
  const refused = log.getByRole("article", { name: "Tool call refused reply" }).last();
  await expect(refused).toContainText("PERMISSION_DENIED");
  await expect(refused).toContainText(comment);
  await expect(refused).toContainText("A person rejected it");
  // …and reacts: it does not send the report, finishes its task, and the run ends.
  const events = async () => (await (await request.get(`/api/runs/${runId}/events?after=0&limit=2000`)).json()).events as StoredEvent[];
  await expect
    .poll(async () => {
      const ev = await events();
      const at = ev.findIndex((e) => e.type === "approval.rejected");
      return ev.slice(at + 1).some((e) => e.type === "task.result" && e.from.agent_id === "agent:pm-1");
    }, { timeout: 60_000, message: "pm-1 finishes its task after the rejection" })
    .toBe(true);
  const run = page.locator(`[data-run-id="${runId}"]`);
  await expect(run.getByText(/^Run state: (Succeeded|Failed)$/)).toBeVisible({ timeout: 60_000 });
  const sent = (await events()).filter((e) => e.type === "chat.message" && (e.payload as { text?: string }).text?.startsWith("# Q4 2017 sales trends by region"));
  expect(sent, "the rejected report is never posted").toHaveLength(0);
});

test("edit the arguments then approve: only a JSON object is accepted, and the edited message is sent", async ({ page, request }) => {
  test.setTimeout(180_000);
  const thread = await salesThread(request);
  const { approval } = await runUntilReportHeld(request, thread);

  await openChannel(page, thread);
  const held = card(page, approval.approval_id);
  await held.getByRole("button", { name: "Edit arguments…" }).click();
  const editor = held.getByRole("textbox", { name: /^Arguments/ });
  await expect(editor).toBeFocused();
  const original = JSON.parse(await editor.inputValue()) as { to: string; text: string };
  expect(original.to).toBe("user");
  const submit = held.getByRole("button", { name: "Approve with these arguments" });

  await editor.fill('["not", "an", "object"]');
  await expect(editor).toHaveAttribute("aria-invalid", "true");
  await expect(held.getByText("Arguments must be a JSON object ({ … }), not an array")).toBeVisible();
  await expect(submit).toBeDisabled();
  await editor.fill("{ oops");
  await expect(held.getByText(/^Not valid JSON/)).toBeVisible();
  await expect(submit).toBeDisabled();

  const short = "# Q4 2017 in one line\n\nSales rose 18.6% on Q4 2016; the West led.";
  await editor.fill(JSON.stringify({ ...original, text: short }, null, 2));
  await expect(editor).toHaveAttribute("aria-invalid", "false");
  await submit.click();
  await expect(held).toHaveAttribute("data-approval-state", "granted");
  await expect(held.getByLabel("Outcome")).toContainText("with edited arguments");
  const sent = messageLog(page, "sales").getByRole("article", { name: "Message from Project Manager" }).filter({ hasText: "Q4 2017 in one line" });
  await expect(sent.last()).toBeVisible({ timeout: 30_000 });
  await expect(sent.last()).toContainText("Sales rose 18.6% on Q4 2016; the West led.");
});
