/**
 * For you (docs/channels.md "Mentions" and "For you"): the admin @mentions a second person with
 * the composer's completion; that person sees the mention in For you, the count in the sidebar
 * and in the tab's title, opens it in its channel, and the count goes down. axe-core finds no
 * serious or critical violation on /inbox in light and dark, desktop and phone.
 */
import AxeBuilder from "@axe-core/playwright";
import { expect, test, type APIRequestContext, type BrowserContext, type Page } from "@playwright/test";
import type { InboxAnswer } from "../lib/api/types";
import { createChannel, personContext, postMessage, screenshots, uniqueName } from "./helpers";

/** Serious and critical axe violations of the page as it is now. */
async function serious(page: Page, what: string) {
  const { violations } = await new AxeBuilder({ page }).analyze();
  const bad = violations.filter((v) => v.impact === "serious" || v.impact === "critical").map((v) => `${v.id}: ${v.nodes.map((n) => n.target.join(" ")).join(", ")}`);
  expect(bad, `${what}: serious axe violations`).toEqual([]);
}

/** A person's name no other run uses, and the handle it is mentioned by. */
function newPerson(): { name: string; handle: string } {
  const last = Math.random().toString(36).replace(/[^a-z]/g, "").slice(0, 6) || "abcdef";
  const name = `Lee ${last[0]!.toUpperCase()}${last.slice(1)}`;
  return { name, handle: name.replace(" ", "_") };
}

async function openCount(request: APIRequestContext): Promise<number> {
  const res = await request.get("/api/inbox");
  expect(res.status()).toBe(200);
  return ((await res.json()) as InboxAnswer).open;
}

test("a person @mentioned by the admin sees it in For you, with the count in the sidebar and the tab title", async ({ page, browser, request }, info) => {
  test.setTimeout(180_000);
  const lee = newPerson();
  const context: BrowserContext = await personContext(browser, request, lee.name);
  try {
    const first = await createChannel(request, uniqueName("fy-plan"));
    const second = await createChannel(request, uniqueName("fy-ops"));

    // The admin mentions Lee with the completion: People in this channel, then Enter.
    await page.goto(`/c/${first.id}`);
    const box = page.getByRole("combobox", { name: `Message #${first.name}` });
    await box.fill(`@${lee.handle.slice(0, 6)}`);
    const option = page.getByRole("option", { name: new RegExp(`^@${lee.handle}, ${lee.name}, person`) });
    await expect(option).toBeVisible();
    await box.press("Enter");
    await expect(box).toHaveValue(`@${lee.handle} `);
    await box.pressSequentially("can you check the Q4 plan?");
    await expect(page.getByText(`A message for ${lee.name}: no agent answers`)).toBeVisible();
    await box.press("Enter");
    await expect(box).toHaveValue("");
    // And once more in another channel, through the API.
    await postMessage(request, second.id, `@${lee.handle} the ops review is tomorrow`);

    const leePage = await context.newPage();
    await leePage.goto("/inbox");
    await expect(leePage.getByRole("heading", { level: 1, name: "For you" })).toBeVisible();
    const items = leePage.getByTestId("for-you-item");
    const planItem = items.filter({ hasText: "can you check the Q4 plan?" });
    await expect(planItem).toContainText(`Dana Whitfield mentioned you in #${first.name}`);
    await expect(items.filter({ hasText: "the ops review is tomorrow" })).toContainText(`#${second.name}`);
    // The offer to notify is the app's own; no browser prompt on load.
    await expect(leePage.getByRole("region", { name: "Notifications" }).getByRole("button", { name: "Enable" })).toBeVisible();

    const open = await openCount(context.request);
    expect(open).toBeGreaterThanOrEqual(2);
    const link = leePage.getByRole("navigation", { name: "Views" }).getByRole("link", { name: `For you, ${open} open` });
    await expect(link).toBeVisible();
    await expect(leePage.getByTestId("for-you-badge")).toHaveText(String(open));
    await expect(leePage).toHaveTitle(`(${open}) For you · Clutch`);
    await screenshots(leePage, info, "for-you");

    // Opening the mention shows it in its channel; reading it takes it off the count.
    await planItem.click();
    // The channel, scrolled to the message (its `?event=` leaves the URL once it is shown).
    await expect(leePage).toHaveURL(new RegExp(`/c/${first.id}`));
    await expect(leePage.getByRole("log", { name: `Messages in #${first.name}` })).toContainText("can you check the Q4 plan?");
    // The count went down; the title and the badge say what the server counts now (the specs that
    // drive #sales beside this one may open or close a question to every member meanwhile).
    await expect.poll(() => openCount(context.request)).toBeLessThan(open);
    await expect
      .poll(async () => {
        const now = await openCount(context.request);
        return [await leePage.title(), await leePage.getByTestId("for-you-badge").textContent()].join(" | ") === `(${now}) #${first.name} · Clutch | ${now}`;
      })
      .toBe(true);
    await screenshots(leePage, info, "channel-after");
    await leePage.goto("/inbox");
    await expect(items.filter({ hasText: "can you check the Q4 plan?" })).toBeVisible();
    await expect(leePage.getByRole("region", { name: /^Done/ })).toContainText("can you check the Q4 plan?");
  } finally {
    await context.close();
  }
});

for (const scheme of ["light", "dark"] as const) {
  for (const size of [{ width: 1280, height: 800 }, { width: 390, height: 844 }]) {
    const where = `${scheme}, ${size.width}px`;
    test(`/inbox has no serious accessibility violations (${where})`, async ({ browser, request }, info) => {
      test.setTimeout(120_000);
      const lee = newPerson();
      const context = await personContext(browser, request, lee.name);
      try {
        const channel = await createChannel(request, uniqueName("fy-axe"));
        await postMessage(request, channel.id, `@${lee.handle} please review the forecast`);
        await postMessage(request, channel.id, `@${lee.handle} and the budget`);
        const page = await context.newPage();
        await page.setViewportSize(size);
        await page.emulateMedia({ colorScheme: scheme });
        // One mention read, one not: both kinds of rows.
        const summary = (await (await context.request.get("/api/threads")).json()).threads.find((t: { id: string }) => t.id === channel.id);
        const inbox = (await (await context.request.get("/api/inbox")).json()) as InboxAnswer;
        const older = inbox.items.find((i) => i.text.includes("forecast"))!;
        await context.request.put(`/api/threads/${channel.id}/read`, { data: { seq: older.seq, count: summary.message_count - 1 } });
        await page.goto("/inbox");
        await expect(page.getByTestId("for-you-item").filter({ hasText: "and the budget" })).toBeVisible();
        await expect(page.getByTestId("for-you-item").filter({ hasText: "forecast" })).toBeVisible();
        await serious(page, `/inbox ${where}`);
        const path = info.outputPath(`inbox-${scheme}-${size.width}.png`);
        await page.screenshot({ path });
        await info.attach(`inbox-${scheme}-${size.width}`, { path, contentType: "image/png" });
        if (size.width > 800) {
          await serious(page, `/inbox with the sidebar ${where}`);
        } else {
          await page.getByRole("button", { name: "Open channel list" }).click();
          await expect(page.getByRole("link", { name: /^For you, \d+ open$/ })).toBeVisible();
          await serious(page, `/inbox with the channel list open ${where}`);
          const drawer = info.outputPath(`inbox-${scheme}-${size.width}-sidebar.png`);
          await page.screenshot({ path: drawer });
          await info.attach(`inbox-${scheme}-${size.width}-sidebar`, { path: drawer, contentType: "image/png" });
        }
      } finally {
        await context.close();
      }
    });
  }
}
