/**
 * The agent directory `/agents`, live.
 *
 * 1. The example workspace's agents (pm-1, analyst-1, qa-1) are listed online with their
 *    capabilities; the search box narrows the list by capability; opening analyst-1 shows its
 *    card at a deep link: the capability table (skill:data-analysis 1.2, tool:mcp with its
 *    servers' allowed tools), its CAP delegation (may delegate to qa-1, overseen by qa-1, both
 *    links), limits, heartbeat settings and the raw card; the overseer link opens qa-1; the
 *    keyboard reaches an agent (/ to search, ↓, Enter).
 * 2. An external agent registered with `POST /api/agents` appears on the open page without a
 *    reload, online; with no heartbeats it turns offline by itself (the e2e server runs with
 *    `CLUTCH_HEARTBEAT_INTERVAL_SEC=1`: offline 3 s after the last heartbeat); one heartbeat
 *    brings it back online, in the list and in its open card.
 * 3. On a phone the sidebar drawer leads to the directory; the list gives way to the card,
 *    which has a link back, and nothing scrolls sideways.
 *
 * Every e2e test shares one database, so the external agent's id is unique per run and the
 * assertions look at that agent's row only. Screenshots of the directory and the card (1280×800
 * and 390×844) go to the test's output folder.
 */
import { expect, test, type Locator, type Page } from "@playwright/test";
import { screenshots } from "./helpers";

/** The directory's list of agents. */
function directory(page: Page): Locator {
  return page.getByRole("list", { name: "Registered agents" });
}

/** The row of one agent in the directory, by its full id. */
function row(page: Page, agentId: string): Locator {
  return directory(page).getByRole("listitem").filter({ has: page.getByText(agentId, { exact: true }) });
}

/** The status word of a row or card: "Online", "Busy" or "Offline". */
function statusOf(scope: Locator, word: "Online" | "Busy" | "Offline"): Locator {
  return scope.getByText(word, { exact: true }).first();
}

test("the directory lists the workspace's agents live, and analyst-1's card shows its capabilities and CAP delegation", async ({ page }, info) => {
  await page.goto("/agents");
  await expect(page.getByRole("heading", { level: 1, name: "Agents" })).toBeVisible();

  const expected = {
    "agent:pm-1": "skill:planning",
    "agent:analyst-1": "skill:data-analysis@1.2",
    "agent:qa-1": "skill:review",
  };
  for (const [id, skill] of Object.entries(expected)) {
    const r = row(page, id);
    await expect(r).toBeVisible();
    // Heartbeats keep the workspace's agents present: online, or busy should another test's
    // run still be going in this shared database; never offline.
    await expect(r.getByText(/^(Online|Busy)$/).first()).toBeVisible();
    await expect(r).toContainText(skill);
    await expect(r).toContainText("tool:mcp");
    await expect(r).toContainText("Workspace");
    await expect(r).toContainText(/seen (just now|\d+ s ago)/);
    await expect(r.getByRole("meter", { name: "Load" })).toBeVisible();
  }

  // Search by capability: only analyst-1 offers data analysis.
  const search = page.getByRole("searchbox", { name: "Search agents" });
  await search.fill("data-analysis");
  await expect(row(page, "agent:analyst-1")).toBeVisible();
  await expect(row(page, "agent:pm-1")).toHaveCount(0);
  await search.fill("");
  await expect(row(page, "agent:pm-1")).toBeVisible();

  // The sidebar links to the directory too.
  await expect(page.getByRole("complementary", { name: "Workspace" }).getByRole("link", { name: "Agent directory" })).toHaveAttribute("aria-current", "page");

  // Open analyst-1: a deep link to its card.
  await row(page, "agent:analyst-1").getByRole("link").click();
  await expect(page).toHaveURL(/\/agents\/agent%3Aanalyst-1$/);
  const card = page.getByRole("article");
  await expect(card.getByText("agent:analyst-1", { exact: true })).toBeVisible();

  const caps = card.getByRole("table", { name: "Capabilities" });
  const analysis = caps.getByRole("row", { name: /^skill:data-analysis / });
  await expect(analysis).toContainText("1.2");
  await expect(analysis).toContainText("medium");
  await expect(caps.getByRole("row", { name: /^tool:mcp / })).toContainText("mcp:DataServer");
  await expect(caps.getByRole("list", { name: "MCP servers of tool:mcp" })).toContainText("query_data");

  const delegation = card.getByRole("region", { name: "Delegation" });
  await expect(delegation.getByRole("list", { name: "Allowed agents" }).getByRole("link", { name: /^qa-1 / })).toBeVisible();
  const overseer = delegation.getByRole("group", { name: "Overseer" }).getByRole("link", { name: /^qa-1 / });
  await expect(overseer).toBeVisible();
  await expect(card.getByRole("region", { name: "Limits" })).toContainText("Max concurrency");
  await expect(card).toContainText("every 1 s");
  await expect(card).toContainText("offline after 3 s");

  await card.getByRole("button", { name: "Raw AgentCard (JSON)" }).click();
  await expect(card.getByLabel("AgentCard JSON")).toContainText('"agent_id": "agent:analyst-1"');

  await screenshots(page, info, "analyst-1-card");

  // The deep link survives a reload; the overseer link opens qa-1.
  await page.reload();
  await expect(page.getByRole("article").getByRole("table", { name: "Capabilities" })).toContainText("skill:data-analysis");
  await page.getByRole("article").getByRole("group", { name: "Overseer" }).getByRole("link").click();
  await expect(page).toHaveURL(/\/agents\/agent%3Aqa-1$/);
  await expect(page.getByRole("article").getByRole("table", { name: "Capabilities" })).toContainText("skill:review");

  // By keyboard: / to the search box, ↓ to the first match, Enter opens it.
  await page.keyboard.press("/");
  await expect(search).toBeFocused();
  await search.fill("planning");
  await search.press("ArrowDown");
  const pm = row(page, "agent:pm-1").getByRole("link");
  await expect(pm).toBeFocused();
  await pm.press("Enter");
  await expect(page).toHaveURL(/\/agents\/agent%3Apm-1$/);
  await expect(page.getByRole("article").getByRole("table", { name: "Capabilities" })).toContainText("skill:planning");
});

test("an external agent registered by POST /api/agents appears live, goes offline without heartbeats and comes back with one", async ({ page, request }, info) => {
  test.setTimeout(60_000);
  const agentId = `agent:e2e-research-${Date.now()}`;
  const name = `E2E Research ${Date.now().toString(36)}`;
  await page.goto("/agents");
  await expect(row(page, "agent:pm-1")).toBeVisible();
  await expect(row(page, agentId)).toHaveCount(0);

  const res = await request.post("/api/agents", {
    data: {
      v: "clutch/0.1",
      agent_id: agentId,
      display: { name, desc: "Finds market research for e2e tests." },
      capabilities: [{ id: "skill:research", version: "1.0", tags: ["market"] }],
      limits: { max_concurrency: 2 },
    },
  });
  expect(res.status(), await res.text()).toBe(201);

  // On the open page, no reload: online, external, its capability and its load.
  const r = row(page, agentId);
  await expect(r).toBeVisible({ timeout: 5_000 });
  await expect(r).toContainText(name);
  await expect(r).toContainText("External");
  await expect(r).toContainText("skill:research@1.0");
  await expect(r.getByRole("meter", { name: "Load" })).toHaveAttribute("aria-valuemax", "2");
  await expect(r).toContainText("no history");

  // The search box finds it by its tag.
  await page.getByRole("searchbox", { name: "Search agents" }).fill("market");
  await expect(r).toBeVisible();
  await expect(row(page, "agent:pm-1")).toHaveCount(0);

  // Open its card; both the row and the card follow its presence.
  await r.getByRole("link").click();
  await expect(page).toHaveURL(new RegExp(`/agents/${encodeURIComponent(agentId)}$`));
  const card = page.getByRole("article", { name });
  await expect(card).toContainText("Finds market research for e2e tests.");
  await expect(card.getByRole("table", { name: "Capabilities" }).getByRole("row", { name: /skill:research/ })).toContainText("market");

  // No heartbeats: offline within a few seconds, in the list and the card, live.
  await expect(statusOf(r, "Offline")).toBeVisible({ timeout: 8_000 });
  await expect(statusOf(card, "Offline")).toBeVisible();
  await expect(r).toContainText(/seen \d+ s ago/);
  await screenshots(page, info, "external-offline");

  // One heartbeat: online again.
  const beat = await request.post(`/api/agents/${encodeURIComponent(agentId)}/heartbeat`, { data: {} });
  expect(beat.ok(), await beat.text()).toBe(true);
  await expect(statusOf(r, "Online")).toBeVisible({ timeout: 5_000 });
  await expect(statusOf(card, "Online")).toBeVisible();
});

test("on a phone the directory opens from the drawer and shows the list, then the card with a way back", async ({ page }) => {
  await page.setViewportSize({ width: 390, height: 844 });
  await page.goto("/");
  await page.getByRole("button", { name: "Open channel list" }).click();
  await page.getByRole("complementary", { name: "Workspace" }).getByRole("link", { name: "Agent directory" }).click();
  await expect(page).toHaveURL(/\/agents$/);
  await expect(page.getByRole("complementary", { name: "Workspace" })).toBeHidden();
  await row(page, "agent:pm-1").getByRole("link").click();
  await expect(page).toHaveURL(/\/agents\/agent%3Apm-1$/);
  const card = page.getByRole("article");
  await expect(card.getByRole("table", { name: "Capabilities" })).toContainText("skill:planning");
  await expect(directory(page)).toBeHidden();
  // The page never scrolls sideways.
  const widths = await page.evaluate(() => ({ page: document.documentElement.scrollWidth, view: window.innerWidth }));
  expect(widths.page).toBeLessThanOrEqual(widths.view);
  await card.getByRole("link", { name: "All agents" }).click();
  await expect(page).toHaveURL(/\/agents$/);
  await expect(row(page, "agent:pm-1")).toBeVisible();
});
