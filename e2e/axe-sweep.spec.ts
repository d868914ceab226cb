/**
 * axe-core on every route (every page.tsx under app/), light and dark, 1280×800 and 390×844: no serious or
 * critical violation. Each page is loaded once and checked in the four looks (the system's colour
 * scheme, which a browser with no theme chosen follows, and the viewport); dark checks only the
 * rules that depend on colour (its layout is light's at the same size), so the sweep stays cheap. The agent page is pm-1's,
 * with its recent tasks when the sales run of agents.team.spec has run; the sign-in and invite pages
 * are checked signed out.
 */
import { expect, test, type Page } from "@playwright/test";
import { newId } from "../lib/protocol";
import { createChannel, event, postEvents, postMessage, seriousViolations, uniqueName } from "./helpers";

const lead = { agent_id: "agent:lead-1", role: "worker", display_name: "lead-1" };
const orchestrator = { agent_id: "agent:orchestrator", role: "orchestrator", display_name: "Orchestrator" };

/** Until the page's CSS transitions have finished (colours fading to the new scheme); endless animations (a pulse) are left running. */
const settled = (page: Page) =>
  page.evaluate(() => Promise.all(document.getAnimations().filter((a) => a.effect?.getTiming().iterations !== Infinity).map((a) => a.finished.catch(() => null))));

/** The four looks of the loaded page, each violation prefixed by the route and look. */
async function sweep(page: Page, route: string): Promise<string[]> {
  const found: string[] = [];
  for (const theme of ["light", "dark"] as const) {
    // No theme chosen (a fresh browser): the page follows the system's scheme.
    await page.emulateMedia({ colorScheme: theme });
    await expect.poll(() => page.evaluate(() => getComputedStyle(document.body).backgroundColor)).toBe(theme === "dark" ? "rgb(24, 25, 29)" : "rgb(255, 255, 255)");
    for (const size of [
      { name: "desktop", width: 1280, height: 800 },
      { name: "phone", width: 390, height: 844 },
    ]) {
      await page.setViewportSize({ width: size.width, height: size.height });
      await settled(page);
      // Every rule in light, at both sizes (their layouts differ); dark differs from light only in
      // colour, so in dark the colour rules are what is left to check.
      for (const v of await seriousViolations(page, { colourOnly: theme === "dark" })) found.push(`${route} ${theme} ${size.name}: ${v}`);
    }
  }
  await page.setViewportSize({ width: 1280, height: 800 });
  return found;
}

test("every route passes axe in light and dark, on desktop and phone", async ({ page, browser, request }) => {
  // 15 routes in four looks each: about 2.5 min alone on this 2-core machine, and well over 4 min
  // while the sales-team specs' agents work beside it in CI.
  test.setTimeout(480_000);
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
    [`/c/${thread.id}`, "Revenue grew"],
    [`/c/${thread.id}?run=${run_id}`, "Which quarter?"],
    ["/runs", "Runs"],
    [`/runs/${run_id}`, "Axe sweep review"],
    [`/runs/${forked}/compare`, "Axe sweep review"],
    ["/approvals", "Approvals"],
    ["/inbox", "For you"],
    ["/agents", "Agents"],
    [`/agents/${encodeURIComponent("agent:pm-1")}`, "pm-1"],
    ["/schemas", "Schemas"],
    ["/workflows", "Workflows"],
    ["/search?q=revenue", "Revenue grew"],
    ["/settings/keys", "API keys"],
    ["/admin", "Admin"],
  ];
  const found: string[] = [];
  for (const [route, landmark] of routes) {
    await page.goto(route);
    await expect(page.getByRole("main")).toBeVisible();
    if (landmark !== "main") await expect(page.getByRole("main").getByText(landmark, { exact: false }).first()).toBeVisible();
    await page.waitForTimeout(300); // what loads beside the first paint (counts, presence)
    found.push(...(await sweep(page, route)));
  }

  // Signed out: the sign-in page, and an invite link that is no good.
  const out = await browser.newContext({ storageState: { cookies: [], origins: [] } });
  try {
    const p = await out.newPage();
    for (const route of ["/sign-in", "/join/not-a-real-invite"]) {
      await p.goto(route);
      await expect(p.getByRole("main")).toBeVisible();
      found.push(...(await sweep(p, route)));
    }
  } finally {
    await out.close();
  }
  expect(found, "serious axe violations").toEqual([]);
});
