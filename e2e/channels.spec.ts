/**
 * Creating channels from the sidebar (Slack-style name normalising, taken names),
 * the Ctrl/Cmd+K switcher, and unread badges per channel.
 */
import { expect, test } from "@playwright/test";
import { createChannel, openChannel, postMessage, uniqueName } from "./helpers";

test("a person creates a channel from the sidebar", async ({ page }) => {
  const base = uniqueName("New Channel");
  const expected = base.toLowerCase().replace(/ /g, "-");
  await page.goto("/");
  await page.getByRole("navigation", { name: "Channels" }).getByRole("button", { name: "New channel" }).click();

  const dialog = page.getByRole("dialog", { name: "Create a channel" });
  await dialog.getByLabel("Name").fill(base);
  await expect(dialog.getByLabel("Name")).toHaveValue(expected);
  await dialog.getByLabel("Topic").fill("Made by the e2e test");
  await dialog.getByRole("button", { name: "Create channel" }).click();

  await expect(dialog).toBeHidden();
  await expect(page).toHaveURL(/\/c\/thr_/);
  await expect(page.getByRole("heading", { level: 1, name: expected })).toBeVisible();
  await expect(page.getByText("Made by the e2e test").first()).toBeVisible();
  await expect(page.getByRole("link", { name: expected })).toHaveAttribute("aria-current", "page");

  // The same name again is refused with a clear message.
  await page.getByRole("navigation", { name: "Channels" }).getByRole("button", { name: "New channel" }).click();
  await dialog.getByLabel("Name").fill(expected);
  await dialog.getByRole("button", { name: "Create channel" }).click();
  await expect(dialog.getByRole("alert")).toContainText("already exists");
  await dialog.getByRole("button", { name: "Cancel" }).click();
  await expect(dialog).toBeHidden();
});

test("Ctrl/Cmd+K switches channels by typing, arrows and Enter", async ({ page, request }) => {
  const tag = uniqueName("switch");
  const first = await createChannel(request, `${tag}-alpha`);
  const second = await createChannel(request, `${tag}-beta`);
  const third = await createChannel(request, `${tag}-gamma`);
  await openChannel(page, first);

  await page.keyboard.press("ControlOrMeta+k");
  const dialog = page.getByRole("dialog", { name: "Jump to a channel or search" });
  const input = dialog.getByRole("combobox", { name: "Jump to a channel or search" });
  await expect(input).toBeFocused();
  await input.fill(tag);
  const options = dialog.getByRole("option");
  // Three channels, then "Search everything" (no message says the tag).
  await expect(options).toHaveCount(4);
  await expect(options.last()).toHaveText(`Search everything for “${tag}”`);
  await expect(options.first()).toHaveAttribute("aria-selected", "true");
  await input.press("ArrowDown");
  await expect(dialog.getByRole("option", { name: new RegExp(second.name) })).toHaveAttribute("aria-selected", "true");
  await input.press("Enter");
  await expect(dialog).toBeHidden();
  await expect(page.getByRole("heading", { level: 1, name: second.name })).toBeVisible();
  await expect(page).toHaveURL(new RegExp(`/c/${second.id}$`));

  // Typing narrows the list; Escape closes without moving.
  await page.keyboard.press("ControlOrMeta+k");
  await input.fill(`${tag}-gam`);
  await expect(options).toHaveCount(2);
  await input.press("Enter");
  await expect(page.getByRole("heading", { level: 1, name: third.name })).toBeVisible();
  await page.keyboard.press("ControlOrMeta+k");
  await expect(dialog).toBeVisible();
  await page.keyboard.press("Escape");
  await expect(dialog).toBeHidden();
  await expect(page.getByRole("heading", { level: 1, name: third.name })).toBeVisible();
});

test("a message in another channel raises that channel's unread badge; opening it clears it", async ({ page, request }) => {
  const tag = uniqueName("unread");
  const here = await createChannel(request, `${tag}-here`);
  const there = await createChannel(request, `${tag}-there`);
  // Open "there" once so it starts read, then sit in "here".
  await openChannel(page, there);
  await page.getByRole("link", { name: here.name }).click();
  await expect(page.getByRole("heading", { level: 1, name: here.name })).toBeVisible();
  const link = page.getByRole("navigation", { name: "Channels" }).getByRole("link", { name: new RegExp(`^${there.name}`) });
  await expect(link.getByLabel(/unread/)).toHaveCount(0);

  await postMessage(request, there.id, "ping from elsewhere", "Grace");
  await expect(link.getByLabel("1 unread")).toBeVisible();
  await postMessage(request, there.id, "and another", "Grace");
  await expect(link.getByLabel("2 unread")).toBeVisible();
  // The open channel never shows a badge for its own messages.
  await postMessage(request, here.id, "in the open channel", "Grace");
  await expect(page.getByText("in the open channel")).toBeVisible();
  await expect(page.getByRole("link", { name: new RegExp(`^${here.name}`) }).getByLabel(/unread/)).toHaveCount(0);

  await link.click();
  await expect(page.getByRole("heading", { level: 1, name: there.name })).toBeVisible();
  await expect(page.getByText("and another")).toBeVisible();
  await expect(link.getByLabel(/unread/)).toHaveCount(0);
  // Still read after a reload (kept in localStorage).
  await page.goto(`/c/${here.id}`);
  await expect(page.getByRole("heading", { level: 1, name: here.name })).toBeVisible();
  await expect(link).toBeVisible();
  await expect(link.getByLabel(/unread/)).toHaveCount(0);
});
