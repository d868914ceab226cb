/**
 * The first visit (docs/channels.md "Welcome, drafts and reading"): a welcome introduces the
 * agents and the channels where they take requests; its Ask sends the suggested request and
 * drops the person into #sales on its run, where plain chat (Esc) starts none; later visits
 * return to the last channel. It starts a
 * run of the built-in team in #sales, so it runs with the other #sales specs, one at a time
 * (playwright.config.ts), and cancels that run when done.
 */
import { expect, test } from "@playwright/test";
import type { RunSummary } from "../lib/api/types";
import { ADMIN_STATE } from "../playwright.config";
import { messageLog, seriousViolations } from "./helpers";

const REQUEST = "Analyze last quarter's sales trends";

test("the welcome's Ask sends the request and opens #sales on its run", async ({ browser, request }) => {
  test.setTimeout(90_000);
  // A fresh browser profile (nothing visited yet), signed in as the admin.
  const context = await browser.newContext({ storageState: ADMIN_STATE });
  const page = await context.newPage();
  let runId: string | undefined;
  try {
    await page.goto("/");
    await expect(page.getByRole("heading", { name: /^Welcome to Clutch/ })).toBeVisible();
    await expect(page.getByRole("list").filter({ hasText: "Project Manager" }).first()).toBeVisible();
    expect(await seriousViolations(page), "welcome: serious axe violations").toEqual([]);
    await page.getByRole("button", { name: `Ask “${REQUEST}”` }).click();
    await expect(page.getByRole("heading", { level: 1, name: "sales", exact: true })).toBeVisible();
    // Sent, not left in the composer: the request is in the channel and its run has started.
    const log = messageLog(page, "sales");
    await expect(log.getByRole("article", { name: /^Message from / }).filter({ hasText: REQUEST }).last()).toBeVisible();
    await expect(log.getByRole("article", { name: `Run: ${REQUEST}` }).last()).toBeVisible({ timeout: 20_000 });
    const box = page.getByRole("combobox", { name: "Message #sales" });
    await expect(box).toHaveValue("");
    // #sales answers every message (its header says so); Esc makes the next one plain chat, which starts no run.
    await expect(page.getByRole("button", { name: "Project Manager answers every message" })).toBeVisible();
    await box.fill("Lunch at noon, anyone?");
    await expect(page.getByTestId("composer-mode")).toHaveText("Starts a run with Project Manager");
    await box.press("Escape");
    await expect(page.getByTestId("composer-mode")).toHaveText("Just chat: no agent answers");
    await box.press("Enter");
    await expect(log.getByRole("article", { name: /^Message from / }).filter({ hasText: "Lunch at noon, anyone?" })).toBeVisible();
    await page.waitForTimeout(2000);
    await expect(log.getByRole("article", { name: "Run: Lunch at noon, anyone?" })).toHaveCount(0);
    const threads = (await (await request.get("/api/threads")).json()).threads as { id: string; name: string }[];
    const sales = threads.find((t) => t.name === "sales")!;
    const runs = (await (await request.get(`/api/threads/${sales.id}/runs`)).json()).runs as RunSummary[];
    runId = runs.filter((r) => r.title === REQUEST).at(-1)?.run_id;
    // Later visits return to the last channel.
    await page.goto("/");
    await expect(page.getByRole("heading", { level: 1, name: "sales", exact: true })).toBeVisible();
  } finally {
    if (runId) await request.post(`/api/runs/${runId}/cancel`, { data: { reason: "the welcome spec is done" } });
    await context.close();
  }
});
