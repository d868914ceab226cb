/**
 * Agents from other stacks in one run, in a real browser (docs/adapters.md): a server of its own
 * on examples/agents-from-anywhere, where planner-1 is a LangGraph graph and travel-1 an A2A agent
 * (its travel-agent.ts, started here). A person asks in #trips, answers the graph's question from
 * the run card, approves what it asks to approve, and sees the plan; the run view draws the graph's
 * subgraph and the A2A agent's subtask under planner-1's task. An A2A client's message to Clutch
 * itself then shows in the channel as a run like any other.
 */
import { expect, test, type Page } from "@playwright/test";
import type { ThreadSummary } from "../lib/api/types";
import { E2E_ADMIN } from "../playwright.config";
import { startA2AAgent } from "../examples/agents-from-anywhere/travel-agent";
import { markdownRendered, messageLog, openChannel, ownServer, send } from "./helpers";

/** The node button of an agent's task in the run view: "<agent>: <title> — <state>". */
const taskNode = (page: Page, agent: string, state: string) => page.getByRole("button", { name: new RegExp(`^${agent.replace("/", "\\/")}: .* — ${state}`) });

test("a LangGraph agent and an A2A agent work one request: asked, answered, approved, drawn", async ({ browser }, info) => {
  test.setTimeout(240_000);
  const travel = await startA2AAgent();
  const server = await ownServer("anywhere", 19, {
    CLUTCH_WORKSPACE: "examples/agents-from-anywhere",
    CLUTCH_ADMIN_EMAIL: E2E_ADMIN.email,
    CLUTCH_ADMIN_PASSWORD: E2E_ADMIN.password,
    CLUTCH_ADMIN_NAME: E2E_ADMIN.name,
    TRAVEL_AGENT_CARD_URL: travel.card_url,
    TRAVEL_AGENT_TOKEN: "e2e-token",
  });
  const context = await browser.newContext({ storageState: { cookies: [], origins: [] }, baseURL: `http://localhost:${server.port}` });
  try {
    const signedIn = await context.request.post("/api/auth/sign-in/email", { data: { email: E2E_ADMIN.email, password: E2E_ADMIN.password } });
    expect(signedIn.ok(), await signedIn.text()).toBe(true);
    const threads = (await (await context.request.get("/api/threads")).json()).threads as ThreadSummary[];
    const trips = threads.find((t) => t.name === "trips")!;

    const page = await context.newPage();
    await openChannel(page, trips, "conversation");
    await send(page, "trips", "Plan my trip to the Lisbon office");
    const card = messageLog(page, "trips").getByRole("article", { name: "Run: Plan my trip to the Lisbon office" });
    // The graph's question, asked by planner-1 after its policy subgraph ran.
    await expect(card).toContainText("planner-1 asks: Where and when are you travelling?", { timeout: 30_000 });
    const box = card.getByRole("textbox", { name: "Answer planner-1" });
    await box.fill("Lisbon on Monday");
    await box.press("Enter");
    await expect(box).toBeHidden({ timeout: 15_000 });

    // travel-1 books over A2A; then the graph asks for an approval, which the person gives.
    const approval = page.locator("[data-approval-id]").filter({ hasText: "Send the trip plan to finance" });
    await expect(approval).toBeVisible({ timeout: 30_000 });
    await expect(approval).toContainText("Flight booked for Monday");
    await approval.getByRole("button", { name: "Approve", exact: true }).click();
    await expect(card).toContainText("Succeeded", { timeout: 30_000 });
    await expect(card).toContainText("Your trip (Lisbon on Monday) is planned: the flight is booked and the plan is with finance.");

    // The run view: planner-1's task, its subgraph's subtask and travel-1's, all done.
    const href = await card.getByRole("link", { name: /^Open run/ }).getAttribute("href");
    await page.goto(href!);
    await markdownRendered(page);
    await expect(taskNode(page, "planner-1", "Succeeded")).toBeVisible({ timeout: 15_000 });
    await expect(taskNode(page, "planner-1/policy", "Succeeded")).toBeVisible();
    await expect(taskNode(page, "travel-1", "Succeeded")).toBeVisible();
    const file = info.outputPath("run-langgraph-a2a.png");
    await page.screenshot({ path: file });
    await info.attach("run-langgraph-a2a", { path: file, contentType: "image/png" });

    // The directory says where travel-1 is reached: its A2A card, as the manifest names it.
    await page.goto(`/agents/${encodeURIComponent("agent:travel-1")}`);
    await expect(page.getByText("${TRAVEL_AGENT_CARD_URL}")).toBeVisible();

    // Clutch as an A2A agent: a v0.3 client's message/send with the person's API key runs in #trips,
    // where it shows like any other run (here it goes on to travel-1, over A2A again).
    const made = await context.request.post("/api/keys", { data: { name: "a2a client" } });
    expect(made.status(), await made.text()).toBe(201);
    const { key } = (await made.json()) as { key: string };
    await openChannel(page, trips, "conversation");
    const sent = await context.request.post("/a2a", {
      headers: { authorization: `Bearer ${key}` },
      data: { jsonrpc: "2.0", id: 1, method: "message/send", params: { message: { kind: "message", role: "user", messageId: `m-${Date.now()}`, parts: [{ kind: "text", text: "@travel-1 Book a flight to Oslo on Tuesday" }] } } },
    });
    const answer = (await sent.json()) as { result?: { status: { state: string } } };
    expect(answer.result?.status.state, JSON.stringify(answer)).toBe("completed");
    const a2aCard = messageLog(page, "trips").getByRole("article", { name: "Run: Book a flight to Oslo on Tuesday" });
    await expect(a2aCard).toContainText("Succeeded");
    await expect(a2aCard).toContainText("Flight booked for Tuesday");
    await markdownRendered(page);
    const channelShot = info.outputPath("channel-a2a-run.png");
    await page.screenshot({ path: channelShot });
    await info.attach("channel-a2a-run", { path: channelShot, contentType: "image/png" });
  } finally {
    await context.close();
    await travel.close();
    await server.stop();
  }
});
