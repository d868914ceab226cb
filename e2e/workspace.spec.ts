/**
 * Theme (toggle, remembered, no flash, follows the system), the display-name setting,
 * and the phone layout where the sidebar is a drawer.
 */
import { expect, test } from "@playwright/test";
import { createChannel, messageLog, openChannel, personContext, send, uniqueName } from "./helpers";

test("the theme toggle switches to dark, is remembered, and is in the first HTML", async ({ page, request }) => {
  const thread = await createChannel(request, uniqueName("theme"));
  await openChannel(page, thread);
  const html = page.locator("html");
  await page.getByRole("complementary", { name: "Workspace" }).getByRole("button", { name: "Switch to dark theme" }).click();
  await expect(html).toHaveClass(/\bdark\b/);

  // The server renders the remembered theme, so there is no light flash before scripts run.
  const res = await page.request.get(`/c/${thread.id}`);
  expect(await res.text()).toMatch(/<html[^>]*class="dark"/);
  await page.reload();
  await expect(html).toHaveClass(/\bdark\b/);
  await page.getByRole("complementary", { name: "Workspace" }).getByRole("button", { name: "Switch to light theme" }).click();
  await expect(html).toHaveClass(/\blight\b/);
});

test("with no choice the theme follows prefers-color-scheme", async ({ browser, request }) => {
  const thread = await createChannel(request, uniqueName("system-theme"));
  const ctx = await browser.newContext({ colorScheme: "dark" });
  try {
    const page = await ctx.newPage();
    await openChannel(page, thread);
    const bg = await page.locator("main").evaluate((el) => getComputedStyle(el).backgroundColor);
    expect(bg).toBe("rgb(24, 25, 29)");
    await expect(page.getByRole("complementary", { name: "Workspace" }).getByRole("button", { name: "Switch to light theme" })).toBeVisible();
  } finally {
    await ctx.close();
  }
});

test("a person's messages carry the name of their account, whatever they type; their account dialog says who they are", async ({ browser, request }) => {
  const thread = await createChannel(request, uniqueName("names"));
  const ada = await personContext(browser, request, "Ada Lovelace");
  try {
    const page = await ada.newPage();
    await openChannel(page, thread);
    await send(page, thread.name, "hello from Ada");
    await expect(messageLog(page, thread.name).getByRole("article", { name: "Message from Ada Lovelace" })).toContainText("hello from Ada");
    await page.getByRole("button", { name: "Your account (signed in as Ada Lovelace)" }).click();
    const dialog = page.getByRole("dialog", { name: "Your account" });
    await expect(dialog).toContainText("Ada Lovelace");
    await expect(dialog).toContainText("Member");
    await expect(dialog.getByRole("link", { name: /^Admin/ })).toHaveCount(0);
    await dialog.getByRole("button", { name: "Sign out" }).click();
    // Signed out: the sign-in page (a request the page had in flight may add where it was as ?next=).
    await expect(page).toHaveURL(/\/sign-in(\?next=.*)?$/);
    await page.goto(`/c/${thread.id}`);
    await expect(page).toHaveURL(/\/sign-in\?next=/);
  } finally {
    await ada.close();
  }
});

test.describe("on a phone", () => {
  test.use({ viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true });

  test("the sidebar is a drawer that opens from the header and closes on navigation", async ({ page, request }) => {
    const tag = uniqueName("phone");
    const a = await createChannel(request, `${tag}-a`);
    const b = await createChannel(request, `${tag}-b`);
    await openChannel(page, a);
    const nav = page.getByRole("navigation", { name: "Channels" });
    await expect(nav).toBeHidden();
    await page.getByRole("button", { name: "Open channel list" }).click();
    await expect(nav).toBeVisible();
    await nav.getByRole("link", { name: b.name }).click();
    await expect(page.getByRole("heading", { level: 1, name: b.name })).toBeVisible();
    await expect(nav).toBeHidden();
    // The composer is usable at this width.
    await send(page, b.name, "sent from a phone");
    await expect(messageLog(page, b.name).getByText("sent from a phone")).toBeVisible();
  });
});
