/**
 * Direct messages (docs/channels.md "Direct messages"): from pm-1's card in the sidebar, "Message
 * Project Manager" opens a private conversation with it, listed under Direct messages by its name; anything
 * written there is a request of pm-1. On the built-in model pm-1 says plainly what it cannot do
 * and the run reads "Not done". axe finds no serious violation in the DM. (The tab title is set
 * by the thread screen but races the layout's metadata title on a client navigation: not asserted.)
 *
 * With a person (docs/channels.md "Presence"): the admin opens a DM with a second person from
 * Admin → People, sends a message; the second person finds it under Direct messages with the
 * admin shown online, reads it, and opens the admin's card from the name (Esc closes it); when
 * the second person's tab closes, the admin sees them go offline.
 */
import AxeBuilder from "@axe-core/playwright";
import { expect, test, type Page } from "@playwright/test";
import { E2E_ADMIN } from "../playwright.config";
import { personContext } from "./helpers";

async function noSeriousViolations(page: Page) {
  const { violations } = await new AxeBuilder({ page }).analyze();
  expect(violations.filter((v) => v.impact === "serious" || v.impact === "critical").map((v) => `${v.id}: ${v.nodes.map((n) => n.target.join(" ")).join(", ")}`)).toEqual([]);
}

test("message pm-1 from its card: a direct message where pm-1 answers, and a declined request reads Not done", async ({ page }) => {
  test.setTimeout(120_000);
  await page.goto("/");
  const agents = page.getByRole("region", { name: "Agents" });
  await agents.getByRole("button", { name: /^pm-1, / }).click();
  await page.getByRole("button", { name: "Message Project Manager" }).click();

  await expect(page.getByRole("heading", { level: 1, name: "Project Manager (direct message)" })).toBeVisible({ timeout: 15_000 });
  const dms = page.getByRole("navigation", { name: "Direct messages" });
  await expect(dms.getByRole("link", { name: "Project Manager" })).toHaveAttribute("aria-current", "page");

  const box = page.getByRole("combobox", { name: "Message Project Manager" });
  await box.fill("What's on the roadmap for next week?");
  await box.press("Enter");
  await expect(box).toHaveValue("");
  const log = page.getByRole("log", { name: "Messages in Project Manager" });
  await expect(log.getByRole("article", { name: "Message from Project Manager" }).last()).toContainText("I can't answer that", { timeout: 60_000 });
  await expect(log.getByRole("article", { name: /^Run: / }).last().getByText("Run state: Not done")).toBeVisible({ timeout: 30_000 });

  const { violations } = await new AxeBuilder({ page }).analyze();
  expect(violations.filter((v) => v.impact === "serious" || v.impact === "critical").map((v) => v.id)).toEqual([]);
});

test("a DM between two people: the second person sees it under Direct messages with the admin online", async ({ page, browser, request }) => {
  test.setTimeout(120_000);
  const name = `Grace ${Date.now().toString(36)}`;
  const context = await personContext(browser, request, name);
  const grace = await context.newPage();
  await grace.goto("/");
  await expect(grace.getByRole("navigation", { name: "Channels" }).or(grace.getByRole("heading", { level: 1 })).first()).toBeVisible({ timeout: 15_000 });

  // The admin opens the DM from Admin → People, where Grace shows online.
  await page.goto("/admin");
  const row = page.getByRole("row").filter({ hasText: name });
  await expect(row.getByRole("img", { name: "Online" })).toBeVisible({ timeout: 15_000 });
  await noSeriousViolations(page);
  await row.getByRole("button", { name: `Message ${name}` }).click();
  await expect(page.getByRole("heading", { level: 1, name: `${name} (direct message)` })).toBeVisible({ timeout: 15_000 });
  const dms = page.getByRole("navigation", { name: "Direct messages" });
  await expect(dms.getByRole("link", { name: `${name}, online` })).toHaveAttribute("aria-current", "page");
  const box = page.getByRole("combobox", { name: `Message ${name}` });
  await box.fill("Lunch at noon?");
  await box.press("Enter");
  await expect(box).toHaveValue("");

  // Grace sees it in her sidebar, with the admin online, and reads it.
  const herDms = grace.getByRole("navigation", { name: "Direct messages" });
  const link = herDms.getByRole("link", { name: `${E2E_ADMIN.name}, online` });
  await expect(link).toBeVisible({ timeout: 15_000 });
  await link.click();
  const log = grace.getByRole("log", { name: `Messages in ${E2E_ADMIN.name}` });
  const message = log.getByRole("article", { name: `Message from ${E2E_ADMIN.name}` }).filter({ hasText: "Lunch at noon?" });
  await expect(message).toBeVisible({ timeout: 15_000 });

  // The admin's card from the name: presence and Message; Escape closes it and gives focus back.
  const nameButton = message.getByRole("button", { name: E2E_ADMIN.name, exact: true });
  await nameButton.click();
  const card = grace.getByRole("dialog", { name: E2E_ADMIN.name });
  await expect(card).toContainText("Online");
  await expect(card.getByRole("button", { name: `Message ${E2E_ADMIN.name}` })).toBeVisible();
  await noSeriousViolations(grace);
  await grace.keyboard.press("Escape");
  await expect(card).toHaveCount(0);
  await expect(nameButton).toBeFocused();

  // Grace's last tab closes: the admin sees her offline.
  await context.close();
  await expect(dms.getByRole("link", { name: `${name}, offline` })).toBeVisible({ timeout: 15_000 });
});
