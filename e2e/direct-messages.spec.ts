/**
 * Direct messages (docs/channels.md "Direct messages"): from pm-1's card in the sidebar, "Message
 * pm-1" opens a private conversation with it, listed under Direct messages by its name; anything
 * written there is a request of pm-1. On the built-in model pm-1 says plainly what it cannot do
 * and the run reads "Not done". axe finds no serious violation in the DM. (The tab title is set
 * by the thread screen but races the layout's metadata title on a client navigation: not asserted.)
 */
import AxeBuilder from "@axe-core/playwright";
import { expect, test } from "@playwright/test";

test("message pm-1 from its card: a direct message where pm-1 answers, and a declined request reads Not done", async ({ page }) => {
  test.setTimeout(120_000);
  await page.goto("/");
  const agents = page.getByRole("region", { name: "Agents" });
  await agents.getByRole("button", { name: /^pm-1, / }).click();
  await page.getByRole("button", { name: "Message pm-1" }).click();

  await expect(page.getByRole("heading", { level: 1, name: "Project Manager (direct message)" })).toBeVisible({ timeout: 15_000 });
  const dms = page.getByRole("navigation", { name: "Direct messages" });
  await expect(dms.getByRole("link", { name: "Project Manager" })).toHaveAttribute("aria-current", "page");

  const box = page.getByRole("combobox", { name: "Message Project Manager" });
  await box.fill("What's on the roadmap for next week?");
  await box.press("Enter");
  await expect(box).toHaveValue("");
  const log = page.getByRole("log", { name: "Messages in Project Manager" });
  await expect(log.getByRole("article", { name: "Message from pm-1" }).last()).toContainText("I can't answer that", { timeout: 60_000 });
  await expect(log.getByRole("article", { name: /^Run: / }).last().getByLabel("Run state: Not done")).toBeVisible({ timeout: 30_000 });

  const { violations } = await new AxeBuilder({ page }).analyze();
  expect(violations.filter((v) => v.impact === "serious" || v.impact === "critical").map((v) => v.id)).toEqual([]);
});
