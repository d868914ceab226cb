/**
 * The runs page `/runs` (docs/channels.md "Runs"), in a channel of the test's own with three
 * runs told as events: one ended, one running, and one where agent ken asks the signed-in admin a
 * question (so it waits on them).
 *
 * 1. "Waiting on me" lists only the run that waits on the admin, badged "Waiting on you", with
 *    its "#3"; the view is in the URL, so a reload shows it again.
 * 2. j/k move the selection and Enter opens the selected run's view.
 * 3. axe-core finds no serious or critical violation on the list, light and dark, at 1280×800
 *    and 390×844; screenshots of it and of "Waiting on me" go to the test's output folder.
 *
 * Every e2e test shares one database, so the page is filtered to the test's channel.
 */
import AxeBuilder from "@axe-core/playwright";
import { expect, test, type Page } from "@playwright/test";
import { newId } from "../lib/protocol/ids";
import { createChannel, event, postEvents, uniqueName } from "./helpers";

const SIZES = [
  { name: "desktop", width: 1280, height: 800 },
  { name: "phone", width: 390, height: 844 },
] as const;

async function serious(page: Page, what: string) {
  const { violations } = await new AxeBuilder({ page }).analyze();
  const bad = violations.filter((v) => v.impact === "serious" || v.impact === "critical").map((v) => `${v.id}: ${v.nodes.map((n) => n.target.join(" ")).join(", ")}`);
  expect(bad, `${what}: serious axe violations`).toEqual([]);
}

test("the runs page lists what waits on me, opens runs with j/k/Enter, and passes axe in both themes and sizes", async ({ page, request }, info) => {
  // Eight axe passes and screenshots on a shared machine.
  test.setTimeout(240_000);
  const me = ((await (await request.get("/api/me")).json()) as { principal: { agent_id: string; name: string } }).principal;
  const channel = await createChannel(request, uniqueName("runs"));
  // An agent no server runs, so nothing but the test moves its tasks.
  const pm = { agent_id: "agent:ken", role: "worker", display_name: "Ken" } as const;
  const asMe = { agent_id: me.agent_id, role: "human", display_name: me.name } as const;
  const runs = { ended: newId("run"), running: newId("run"), waiting: newId("run") };
  const at = (run_id: string) => ({ run_id, task_id: newId("task") });

  const ended = at(runs.ended);
  await postEvents(request, [
    event(channel.id, "task.request", { title: "Summarise the churn survey" }, { ...ended, from: asMe, to: [pm] }),
    event(channel.id, "task.accept", {}, { ...ended, from: pm }),
    event(channel.id, "task.result", { summary: "Churn is down 2%" }, { ...ended, from: pm }),
  ]);
  const running = at(runs.running);
  await postEvents(request, [
    event(channel.id, "task.request", { title: "Clean the CRM export" }, { ...running, from: asMe, to: [pm] }),
    event(channel.id, "task.accept", {}, { ...running, from: pm }),
  ]);
  const waiting = at(runs.waiting);
  await postEvents(request, [
    event(channel.id, "task.request", { title: "Analyze last quarter's sales trends" }, { ...waiting, from: asMe, to: [pm] }),
    event(channel.id, "task.accept", {}, { ...waiting, from: pm }),
    event(channel.id, "chat.message", { text: "Regional breakdown, segments, or the overall trend?", expects_reply: true }, { ...waiting, from: pm, to: [asMe] }),
  ]);

  await page.goto(`/runs?channel=${channel.id}`);
  await expect(page.getByRole("heading", { level: 1, name: "Runs" })).toBeVisible();
  const list = page.getByRole("list", { name: "Runs" });
  await expect(list.getByRole("listitem")).toHaveCount(3);
  // Newest first, numbered in the channel.
  await expect(list.getByRole("listitem").first()).toContainText("#3");
  await expect(list.getByRole("listitem").first()).toContainText("Analyze last quarter's sales trends");
  await expect(list.getByRole("listitem").last()).toContainText("#1");

  // 1. Waiting on me: only the run whose question is to me.
  await page.getByRole("group", { name: "Show" }).getByRole("button", { name: "Waiting on me" }).click();
  await expect(page).toHaveURL(/[?&]show=waiting_on_me/);
  await expect(list.getByRole("listitem")).toHaveCount(1);
  const item = list.getByRole("listitem").first();
  await expect(item.getByText("Run state: Waiting on you")).toBeVisible();
  await expect(item.getByRole("link", { name: "Analyze last quarter's sales trends" })).toBeVisible();
  await expect(item.getByRole("link", { name: channel.name })).toHaveAttribute("href", `/c/${channel.id}?run=${runs.waiting}`);
  await page.reload();
  await expect(page.getByRole("button", { name: "Waiting on me" })).toHaveAttribute("aria-pressed", "true");
  await expect(list.getByRole("listitem")).toHaveCount(1);

  // 3. axe and screenshots, on this view and on All.
  for (const view of ["Waiting on me", "All"] as const) {
    await page.getByRole("button", { name: view, exact: true }).click();
    await expect(list.getByRole("listitem")).toHaveCount(view === "All" ? 3 : 1);
    for (const size of SIZES) {
      await page.setViewportSize({ width: size.width, height: size.height });
      for (const scheme of ["light", "dark"] as const) {
        await page.emulateMedia({ colorScheme: scheme });
        await page.mouse.move(size.width - 5, 5);
        await page.waitForTimeout(150);
        // axe on the full list (every badge, link and filter); the waiting view is only shot.
        if (view === "All") await serious(page, `${view}, ${size.name}, ${scheme}`);
        const file = info.outputPath(`runs-${view === "All" ? "all" : "mine"}-${size.name}-${scheme}.png`);
        await page.screenshot({ path: file });
        await info.attach(`runs-${view}-${size.name}-${scheme}`, { path: file, contentType: "image/png" });
      }
    }
    await page.setViewportSize({ width: 1280, height: 800 });
    await page.emulateMedia({ colorScheme: "light" });
  }

  // 2. j/k move the selection (the title link takes the focus); Enter opens the run.
  await page.keyboard.press("j");
  await expect(list.getByRole("link", { name: "Clean the CRM export" })).toBeFocused();
  await page.keyboard.press("j");
  await expect(list.getByRole("link", { name: "Summarise the churn survey" })).toBeFocused();
  await page.keyboard.press("k");
  await page.keyboard.press("k");
  await expect(list.getByRole("link", { name: "Analyze last quarter's sales trends" })).toBeFocused();
  await expect(list.locator("[data-selected]")).toContainText("#3");
  await page.keyboard.press("Enter");
  await expect(page).toHaveURL(new RegExp(`/runs/${runs.waiting}$`));

  // And back: "/" goes to the filters, Enter with the focus elsewhere opens the selected run.
  await page.goto(`/runs?channel=${channel.id}&show=running`);
  // Running is every run in progress: the waiting one too. (The other may have been ended by the
  // deadline sweep by now when agent:ken was registered and went offline earlier in the suite.)
  await expect(list.getByRole("link", { name: "Analyze last quarter's sales trends" })).toBeVisible({ timeout: 30_000 });
  await page.keyboard.press("/");
  await expect(page.getByRole("button", { name: "Running" })).toBeFocused();
  await page.keyboard.press("Escape");
  await page.evaluate(() => (document.activeElement as HTMLElement | null)?.blur());
  await page.keyboard.press("j");
  await page.evaluate(() => (document.activeElement as HTMLElement | null)?.blur());
  await page.keyboard.press("Enter");
  await expect(page).toHaveURL(new RegExp(`/runs/(${runs.running}|${runs.waiting})$`));
});
