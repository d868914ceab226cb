/**
 * axe-core on every route (app/**/page.tsx), light and dark, 1280×800 and 390×844: no serious or
 * critical violation. Each page is loaded once and checked in the four looks (the theme is the
 * sidebar's toggle, the size the viewport), so the sweep stays cheap. The agent page is pm-1's,
 * with its recent tasks when the sales run of agents.spec has run; the sign-in and invite pages
 * are checked signed out.
 */
import AxeBuilder from "@axe-core/playwright";
import { expect, test, type Page } from "@playwright/test";
import { newId } from "../lib/protocol";
import { createChannel, event, postEvents, postMessage, uniqueName } from "./helpers";

const lead = { agent_id: "agent:lead-1", role: "worker", display_name: "lead-1" };
const orchestrator = { agent_id: "agent:orchestrator", role: "orchestrator", display_name: "Orchestrator" };

/** Serious and critical violations of the page as it is now. */
async function serious(page: Page): Promise<string[]> {
  const { violations } = await new AxeBuilder({ page }).analyze();
  return violations.filter((v) => v.impact === "serious" || v.impact === "critical").map((v) => `${v.id}: ${v.nodes.map((n) => n.target.join(" ")).join(", ")}`);
}

/** The four looks of the loaded page, each violation prefixed by the route and look. */
async function sweep(page: Page, route: string, signedIn: boolean): Promise<string[]> {
  const found: string[] = [];
  for (const theme of ["light", "dark"] as const) {
    if (signedIn) {
      await page.setViewportSize({ width: 1280, height: 800 });
      const toggle = page.getByRole("complementary", { name: "Workspace" }).getByRole("button", { name: `Switch to ${theme} theme` });
      if (await toggle.count()) await toggle.click();
      await expect(page.locator("html")).toHaveClass(new RegExp(`\\b${theme}\\b`));
    } else {
      await page.emulateMedia({ colorScheme: theme });
    }
    for (const size of [
      { name: "desktop", width: 1280, height: 800 },
      { name: "phone", width: 390, height: 844 },
    ]) {
      await page.setViewportSize({ width: size.width, height: size.height });
      for (const v of await serious(page)) found.push(`${route} ${theme} ${size.name}: ${v}`);
    }
  }
  await page.setViewportSize({ width: 1280, height: 800 });
  return found;
}

test("every route passes axe in light and dark, on desktop and phone", async ({ page, browser, request }) => {
  test.setTimeout(240_000);
  const thread = await createChannel(request, uniqueName("axe"));
  await postMessage(request, thread.id, "Revenue grew **12.5%** — see [the brief](https://example.com/brief)", "Grace");
  const run_id = newId("run");
  const at = { run_id, task_id: newId("task") };
  const stored = await postEvents(request, [
    event(thread.id, "task.request", { title: "Axe sweep review", instructions: "Review it" }, { ...at, from: orchestrator, to: [lead] }),
    event(thread.id, "task.accept", {}, { ...at, from: lead }),
    event(thread.id, "chat.message", { text: "Which quarter?", expects_reply: true }, { ...at, from: lead, to: [{ agent_id: "user", role: "human" }] }),
  ]);
  const fork = await request.post(`/api/runs/${run_id}/fork`, { data: { at_seq: stored[1]!.seq } });
  expect(fork.status()).toBe(201);
  const forked = ((await fork.json()) as { run: { run_id: string } }).run?.run_id ?? ((await fork.json()) as { run_id: string }).run_id;

  const routes: [string, string][] = [
    ["/", "main"],
    [`/c/${thread.id}`, `Messages in #${thread.name}`],
    [`/c/${thread.id}?run=${run_id}`, "Thread of run"],
    ["/runs", "Runs"],
    [`/runs/${run_id}`, "Axe sweep review"],
    [`/runs/${forked}/compare`, "main"],
    ["/approvals", "Approvals"],
    ["/inbox", "For you"],
    ["/agents", "Agents"],
    [`/agents/${encodeURIComponent("agent:pm-1")}`, "pm-1"],
    ["/schemas", "Schemas"],
    ["/workflows", "Workflows"],
    ["/search?q=revenue", "Search results"],
    ["/settings/keys", "API keys"],
    ["/admin", "Admin"],
  ];
  const found: string[] = [];
  for (const [route, landmark] of routes) {
    await page.goto(route);
    await expect(page.getByRole("main")).toBeVisible();
    if (landmark !== "main") await expect(page.getByRole("main").getByText(landmark, { exact: false }).first()).toBeVisible();
    await page.waitForLoadState("networkidle").catch(() => {});
    found.push(...(await sweep(page, route, true)));
  }

  // Signed out: the sign-in page, and an invite link that is no good.
  const out = await browser.newContext({ storageState: { cookies: [], origins: [] } });
  try {
    const p = await out.newPage();
    for (const route of ["/sign-in", "/join/not-a-real-invite"]) {
      await p.goto(route);
      await expect(p.getByRole("main")).toBeVisible();
      found.push(...(await sweep(p, route, false)));
    }
  } finally {
    await out.close();
  }
  expect(found, "serious axe violations").toEqual([]);
});
