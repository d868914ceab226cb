/**
 * Who is who, in a real browser (docs/identity.md): the first visit to a new workspace sets up its
 * admin; an admin invites a second person, who signs up in a second browser; a private channel is
 * invisible to a person who is not a member; only the named approver is offered Approve.
 */
import AxeBuilder from "@axe-core/playwright";
import { expect, test } from "@playwright/test";
import { newId } from "../lib/protocol";
import type { ThreadSummary } from "../lib/api/types";
import { E2E_ADMIN } from "../playwright.config";
import { createChannel, event, messageLog, openChannel, ownServer, personContext, postEvents, uniqueName } from "./helpers";

test("the first visit to a new workspace sets up its admin, who lands in the app", async ({ browser }) => {
  test.setTimeout(180_000);
  // A server of its own on an empty database: the shared test server already has its admin.
  const server = await ownServer("setup", 17, { CLUTCH_WORKSPACE: "none", CLUTCH_ADMIN_EMAIL: "", CLUTCH_ADMIN_PASSWORD: "", CLUTCH_ADMIN_NAME: "" });
  const context = await browser.newContext({ storageState: { cookies: [], origins: [] }, baseURL: `http://localhost:${server.port}` });
  try {
    const page = await context.newPage();
    await page.goto("/");
    await expect(page).toHaveURL(/\/setup$/);
    await expect(page.getByRole("heading", { name: "Set up your workspace" })).toBeVisible();
    await page.getByLabel("Your name").fill("Ada Admin");
    await page.getByLabel("Email").fill("ada@clutch.test");
    await page.getByLabel("Password").fill("short");
    await page.getByRole("button", { name: "Create admin account" }).click();
    await expect(page).toHaveURL(/\/setup$/); // the browser refuses a password under 10 characters
    await page.getByLabel("Password").fill("a long enough password");
    await page.getByRole("button", { name: "Create admin account" }).click();
    await expect(page.getByRole("button", { name: "Your account (signed in as Ada Admin)" })).toBeVisible({ timeout: 30_000 });
    await expect(page.getByRole("link", { name: "Admin" })).toBeVisible();
    // Setup is done: the page now sends people to sign in.
    const other = await browser.newContext({ storageState: { cookies: [], origins: [] }, baseURL: `http://localhost:${server.port}` });
    const p2 = await other.newPage();
    await p2.goto("/setup");
    await expect(p2).toHaveURL(/\/sign-in$/);
    await other.close();
  } finally {
    await context.close();
    await server.stop();
  }
});

test("an admin invites a person, who signs up in another browser and is greeted by name", async ({ page, browser }) => {
  await page.goto("/admin");
  await page.getByLabel("Role", { exact: true }).selectOption("member");
  await page.getByLabel("Note (optional)").fill("for Lee");
  await page.getByRole("button", { name: "Create invite link" }).click();
  const link = (await page.getByTestId("invite-link").textContent())!;
  expect(link).toMatch(/\/join\/[\w-]+$/);

  const lee = await browser.newContext({ storageState: { cookies: [], origins: [] } });
  // Names are unique across people (docs/identity.md "Names are unique"): a name of this attempt's own.
  const name = `Lee Park ${Date.now().toString(36)}`;
  try {
    const p = await lee.newPage();
    await p.goto(link);
    await expect(p.getByText("You are invited as a member (for Lee).")).toBeVisible();
    // An agent's name is taken, whatever its case or spacing: the form says whose it is, and the link still works.
    await p.getByLabel("Your name").fill("  project   MANAGER ");
    await p.getByLabel("Email").fill(`lee.${Date.now()}@clutch.test`);
    await p.getByLabel("Password").fill("lee's long password");
    await p.getByRole("button", { name: "Create account" }).click();
    await expect(p.getByText("“project MANAGER” is the name of agent pm-1; choose another name")).toBeVisible();
    await p.getByLabel("Your name").fill(name);
    await p.getByRole("button", { name: "Create account" }).click();
    await expect(p.getByRole("button", { name: `Your account (signed in as ${name})` })).toBeVisible({ timeout: 30_000 });
    await expect(p.getByRole("link", { name: "Admin" })).toHaveCount(0);
    // The link worked once.
    const again = await browser.newContext({ storageState: { cookies: [], origins: [] } });
    const p2 = await again.newPage();
    await p2.goto(link);
    await expect(p2.getByRole("heading", { name: "This invite link does not work" })).toBeVisible();
    await again.close();

    await page.reload();
    await expect(page.getByRole("list", { name: "Invite links" }).getByText("accepted").first()).toBeVisible();

    // Lee leaves: the admin deactivates them from People, after a confirmation, and Lee's session
    // stops working at once; the row says who did it, and Activate lets Lee sign in again.
    const people = page.getByRole("region", { name: "People" });
    const row = people.getByRole("row").filter({ hasText: name });
    await row.getByRole("button", { name: `Deactivate ${name}` }).click();
    await expect(row.getByRole("group", { name: `Deactivate ${name}?` })).toContainText("Their sessions and keys stop at once.");
    await row.getByRole("button", { name: "Cancel" }).click();
    expect((await p.request.get("/api/me")).status()).toBe(200);
    await row.getByRole("button", { name: `Deactivate ${name}` }).click();
    await row.getByRole("button", { name: `Deactivate ${name} now` }).click();
    await expect(row).toContainText(`Deactivated by ${E2E_ADMIN.name}`);
    await expect(row.getByRole("button", { name: `Message ${name}` })).toHaveCount(0);
    expect((await p.request.get("/api/me")).status()).toBe(401);
    await row.getByRole("button", { name: `Activate ${name} again` }).click();
    await expect(row.getByRole("button", { name: `Deactivate ${name}` })).toBeVisible();
    await expect(row).not.toContainText("Deactivated");
    await expect(row.getByRole("button", { name: `Message ${name}` })).toBeVisible();
  } finally {
    await lee.close();
  }
});

test("a private channel is invisible to a person who is not a member, in the sidebar and by its URL", async ({ page, browser, request }) => {
  const name = uniqueName("secret");
  const res = await request.post("/api/threads", { data: { name, topic: "board only", visibility: "private" } });
  expect(res.status()).toBe(201);
  const secret = (await res.json()).thread as ThreadSummary;
  await openChannel(page, secret);
  await expect(page.getByRole("navigation", { name: "Channels" }).getByRole("link", { name: `${name} (private)` })).toBeVisible();

  const outsider = await personContext(browser, request, "Olive Outsider");
  try {
    const p = await outsider.newPage();
    await p.goto("/");
    await expect(p.getByRole("button", { name: "Your account (signed in as Olive Outsider)" })).toBeVisible();
    await expect(p.getByRole("navigation", { name: "Channels" }).getByText(name)).toHaveCount(0);
    await p.goto(`/c/${secret.id}`);
    await expect(p.getByText(/does not exist|not found/i).first()).toBeVisible();
    expect((await outsider.request.get(`/api/threads/${secret.id}/events`)).status()).toBe(404);
  } finally {
    await outsider.close();
  }
});

test("only the named approver is offered Approve; another member sees who decides and is refused", async ({ page, browser, request }) => {
  const me = (await (await request.get("/api/me")).json()).principal as { agent_id: string };
  const thread = await createChannel(request, uniqueName("approve"));
  const approval_id = newId("approval");
  const run_id = newId("run");
  const task_id = newId("task");
  await postEvents(request, [
    event(thread.id, "task.request", { title: "Pay the invoice" }, { run_id, task_id, from: { agent_id: me.agent_id, role: "human" }, to: [{ agent_id: "agent:payer" }] }),
    event(
      thread.id,
      "approval.requested",
      {
        approval_id,
        subject: { kind: "tool_call", agent: "agent:payer", tool: "pay" },
        approvers: [me.agent_id],
        summary: "payer will pay invoice 42",
        expires_at: new Date(Date.now() + 3_600_000).toISOString(),
        rule: "pay-needs-dana",
        reason: "Payments need Dana",
      },
      { run_id, task_id, from: { agent_id: "agent:policy", role: "system" }, meta: { gate: `e2e:${approval_id}` } },
    ),
  ]);
  await openChannel(page, thread);
  const card = messageLog(page, thread.name).getByRole("article", { name: /approval/i }).filter({ hasText: "payer will pay invoice 42" });
  await expect(card.getByRole("button", { name: "Approve" })).toBeVisible();

  const member = await personContext(browser, request, "Mo Member");
  try {
    const p = await member.newPage();
    await openChannel(p, thread);
    const theirs = messageLog(p, thread.name).getByRole("article", { name: /approval/i }).filter({ hasText: "payer will pay invoice 42" });
    await expect(theirs.getByText(/Only .* may decide/)).toBeVisible();
    await expect(theirs.getByRole("button", { name: "Approve" })).toHaveCount(0);
    const refused = await member.request.post(`/api/approvals/${approval_id}/decision`, { data: { decision: "approve" } });
    expect(refused.status()).toBe(403);
    expect((await refused.json()).error.code).toBe("not_an_approver");
  } finally {
    await member.close();
  }
});

test("the sign-in, admin, API keys and channel settings pages have no serious accessibility violations", async ({ page, browser, request }) => {
  const serious = async (p: import("@playwright/test").Page, what: string) => {
    const { violations } = await new AxeBuilder({ page: p }).analyze();
    const bad = violations.filter((v) => v.impact === "serious" || v.impact === "critical").map((v) => `${v.id}: ${v.nodes.map((n) => n.target.join(" ")).join(", ")}`);
    expect(bad, `${what}: serious axe violations`).toEqual([]);
  };
  const signedOut = await browser.newContext({ storageState: { cookies: [], origins: [] } });
  const out = await signedOut.newPage();
  await out.goto("/sign-in");
  await expect(out.getByRole("heading", { name: "Sign in" })).toBeVisible();
  await serious(out, "/sign-in");
  await signedOut.close();

  await page.goto("/admin");
  await expect(page.getByRole("heading", { name: "People" })).toBeVisible();
  await serious(page, "/admin");
  await page.goto("/settings/keys");
  await expect(page.getByRole("heading", { name: "Your keys" })).toBeVisible();
  await serious(page, "/settings/keys");
  const thread = await createChannel(request, uniqueName("a11y"));
  await openChannel(page, thread);
  await page.getByRole("button", { name: "Channel settings" }).click();
  await expect(page.getByRole("dialog", { name: `#${thread.name} settings` })).toBeVisible();
  await serious(page, "channel settings");
});
