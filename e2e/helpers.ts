/**
 * Helpers for the UI's end-to-end tests: unique channel names, API calls to create
 * channels and post events, other people (through invites), and a ClutchMessage builder. Tests
 * make their own channels, so they run on a database that holds other data. `request` is the
 * signed-in admin's (playwright.config.ts). A test that needs a server of its own (a first run, another
 * workspace) starts one with `ownServer`.
 */
import { spawn, execFileSync, type ChildProcess } from "node:child_process";
import AxeBuilder from "@axe-core/playwright";
import { expect, request as apiRequest, type APIRequestContext, type Browser, type BrowserContext, type Locator, type Page, type TestInfo } from "@playwright/test";
import { BASE_URL } from "../playwright.config";
import type { ThreadSummary } from "../lib/api/types";
import { makeMessage, type MessageType, type PayloadOf, type StoredEvent, type ClutchMessage } from "../lib/protocol";

/** A channel name no other test run uses: `<prefix>-<time>-<random>`, lowercase. */
export function uniqueName(prefix: string): string {
  return `${prefix}-${Date.now().toString(36)}-${Math.random().toString(36).slice(2, 6)}`;
}

/** Creates a channel through the API. */
export async function createChannel(request: APIRequestContext, name: string, topic?: string): Promise<ThreadSummary> {
  const res = await request.post("/api/threads", { data: { name, ...(topic ? { topic } : {}) } });
  expect(res.status(), await res.text()).toBe(201);
  return (await res.json()).thread as ThreadSummary;
}

/**
 * Stores ClutchMessages from anyone (agents, the router, the policy kernel), as a fixture: the API
 * takes an event only from its sender's own credential and never Clutch's own types from outside
 * (docs/identity.md), so the admin restores them the way a run is restored, `POST
 * /api/runs/import` (one run at a time, in the order given). Answers the stored events.
 */
export async function postEvents(request: APIRequestContext, events: ClutchMessage | ClutchMessage[]): Promise<StoredEvent[]> {
  const list = Array.isArray(events) ? events : [events];
  const segments: ClutchMessage[][] = [];
  for (const m of list) {
    const last = segments[segments.length - 1];
    if (last && last[0]!.run_id === m.run_id) last.push(m);
    else segments.push([m]);
  }
  const stored: StoredEvent[] = [];
  for (const seg of segments) {
    const res = await request.post("/api/runs/import", { data: seg.map((m) => JSON.stringify(m)).join("\n"), headers: { "content-type": "application/x-ndjson" } });
    expect(res.status(), await res.text()).toBe(201);
    const page = await request.get(`/api/runs/${encodeURIComponent(seg[0]!.run_id)}/events?after=0&limit=5000`);
    const byId = new Map(((await page.json()).events as StoredEvent[]).map((e) => [e.id, e]));
    for (const m of seg) stored.push(byId.get(m.id)!);
  }
  return stored;
}

const people = new Map<string, Promise<APIRequestContext>>();

/**
 * An API client signed in as the person `name`: on first use in a worker the admin (`admin`)
 * invites them as a member and they sign up through the invite (POST /api/join/:token), or sign
 * in when another worker made them first (`joinAs`).
 */
export function personRequest(admin: APIRequestContext, name: string): Promise<APIRequestContext> {
  let ctx = people.get(name);
  if (!ctx) {
    ctx = (async () => {
      const person = await apiRequest.newContext({ baseURL: BASE_URL, storageState: { cookies: [], origins: [] } });
      await joinAs(admin, person, name);
      return person;
    })();
    people.set(name, ctx);
  }
  return ctx;
}

/**
 * A browser context signed in as the person `name`: new (invited by `admin` with `role`), or the
 * one of that name another worker, an earlier attempt of the test or an earlier run made (`joinAs`).
 */
export async function personContext(browser: Browser, admin: APIRequestContext, name: string, role: "admin" | "member" | "guest" = "member"): Promise<BrowserContext> {
  const context = await browser.newContext({ storageState: { cookies: [], origins: [] } });
  await joinAs(admin, context.request, name, role);
  return context;
}

/** The password of the people the helpers make. */
const PERSON_PASSWORD = "e2e-person-password";

/** The email of the person `name`: one per name, as a name is one person's (docs/identity.md "Names are unique"). */
function emailOf(name: string): string {
  return `${name.toLowerCase().replace(/[^a-z0-9]+/g, ".").replace(/^\.+|\.+$/g, "") || "person"}@people.clutch.test`;
}

/**
 * Signs `person` in as the person `name`. A name people see is one person's, so the helpers give
 * each name one account (`emailOf`): the first to ask signs up through an invite from `admin`;
 * whoever asks while the name is taken (another worker, a retry, an earlier run on the same server
 * database) waits until that account exists and signs in to it.
 */
async function joinAs(admin: APIRequestContext, person: APIRequestContext, name: string, role: "admin" | "member" | "guest" = "member"): Promise<void> {
  const email = emailOf(name);
  const invite = await admin.post("/api/invites", { data: { role, note: name } });
  expect(invite.status(), await invite.text()).toBe(201);
  const { token, invite: made } = (await invite.json()) as { token: string; invite: { id: string } };
  const joined = await person.post(`/api/join/${token}`, { data: { name, email, password: PERSON_PASSWORD } });
  if (joined.status() === 201) return;
  const refusal = await joined.text();
  expect([409], refusal).toContain(joined.status()); // name_taken or email_taken: someone made this person first
  await admin.delete(`/api/invites/${made.id}`);
  await expect
    .poll(async () => ((await (await admin.get("/api/people")).json()) as { people: { email: string }[] }).people.some((p) => p.email === email), {
      message: `${refusal}: the name “${name}” should be the account ${email} the e2e helpers made; on a database where someone else has it, give the test another name`,
      timeout: 15_000,
    })
    .toBe(true);
  const signedIn = await person.post("/api/auth/sign-in/email", { data: { email, password: PERSON_PASSWORD }, headers: { origin: BASE_URL } });
  expect(signedIn.status(), await signedIn.text()).toBe(200);
}

/** Posts a chat message to a channel as the admin, or as the person `as` (invited on first use). */
export async function postMessage(request: APIRequestContext, threadId: string, text: string, as?: string) {
  const sender = as ? await personRequest(request, as) : request;
  const res = await sender.post(`/api/threads/${threadId}/messages`, { data: { text } });
  expect(res.status(), await res.text()).toBe(201);
  return (await res.json()).event as StoredEvent;
}

/** A ClutchMessage of `type` in a thread; run and task ids default to fixed test ids. */
export function event<T extends MessageType>(
  threadId: string,
  type: T,
  payload: PayloadOf<T>,
  extra: Partial<ClutchMessage> = {},
): ClutchMessage {
  return makeMessage({
    thread_id: threadId,
    run_id: extra.run_id ?? "run_e2e",
    task_id: extra.task_id ?? "task_e2e",
    from: extra.from ?? { agent_id: "agent:ken", role: "worker", display_name: "Ken" },
    to: extra.to ?? [],
    ...extra,
    type,
    payload,
  });
}

/**
 * Opens a channel and waits for its message list. `view`: "all" (the default here: these tests
 * look at how each event renders) turns on the channel's All events toggle before the page loads;
 * "conversation" is what a person sees first (docs/channels.md).
 */
export async function openChannel(page: Page, thread: ThreadSummary, view: "all" | "conversation" = "all"): Promise<void> {
  await page.addInitScript(([key, value]) => window.localStorage.setItem(key!, JSON.stringify(value)), [`clutch:view:${thread.id}`, view]);
  await page.goto(`/c/${thread.id}`);
  // Exactly the channel's name (a message's own headings may contain it), "(private channel)" aside.
  const name = new RegExp(`^${thread.name.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}( \\(private channel\\))?$`);
  await expect(page.getByRole("heading", { level: 1, name })).toBeVisible();
  await expect(page.getByRole("log", { name: `Messages in #${thread.name}` })).toBeVisible();
}

/** The channel's message list. */
export function messageLog(page: Page, name: string) {
  return page.getByRole("log", { name: `Messages in #${name}` });
}

/** Sends a message with the composer (typing, then Enter). */
export async function send(page: Page, channel: string, text: string): Promise<void> {
  const box = page.getByRole("combobox", { name: `Message #${channel}` });
  await box.fill(text);
  await box.press("Enter");
  await expect(box).toHaveValue("");
}

/**
 * Waits until every message on the page is rendered as markdown: the renderer loads after the
 * page is interactive, and until then a message shows its text as written (components/markdown).
 */
export async function markdownRendered(page: Page): Promise<void> {
  await expect(page.locator("[data-markdown-pending]")).toHaveCount(0);
}

/** A Clutch server of a test's own, on its own database and data folder. */
export interface OwnServer {
  port: number;
  /** Stop the server (SIGTERM, at most 15 s) and drop its database. */
  stop(): Promise<void>;
}

/**
 * Start `server.ts` in production mode on port E2E_PORT + `offset`, on a new database of
 * DATABASE_URL's server (else an embedded one) named `clutch_e2e_<name>_<time>`, with `env` over
 * the test's environment; resolves once `/api/health` answers (at most 120 s).
 */
export async function ownServer(name: string, offset: number, env: Record<string, string>): Promise<OwnServer> {
  const port = Number(process.env.E2E_PORT ?? 3100) + offset;
  const db = `clutch_e2e_${name}_${Date.now()}`;
  const admin = process.env.DATABASE_URL ? new URL(process.env.DATABASE_URL) : null;
  const psql = (sql: string) => execFileSync("psql", ["-h", admin!.hostname, "-p", admin!.port || "5432", "-U", admin!.username || "postgres", "-d", "postgres", "-qc", sql]);
  let url = "";
  if (admin) {
    psql(`CREATE DATABASE "${db}"`);
    url = new URL(`/${db}`, admin).toString();
  }
  const server: ChildProcess = spawn(process.execPath, ["--import", "tsx", "server.ts"], {
    env: { ...process.env, DATABASE_URL: url, CLUTCH_DATA_DIR: `test-results/${name}-${Date.now()}`, PORT: String(port), NODE_ENV: "production", LOG_LEVEL: "warn", ...env },
    stdio: "ignore",
  });
  const stop = async () => {
    if (server.exitCode === null && server.signalCode === null) {
      const exited = new Promise((r) => server.once("exit", r));
      server.kill("SIGTERM");
      await Promise.race([exited, new Promise((r) => setTimeout(r, 15_000))]);
    }
    if (admin) psql(`DROP DATABASE IF EXISTS "${db}" WITH (FORCE)`);
  };
  const health = await apiRequest.newContext({ baseURL: `http://localhost:${port}` });
  try {
    await expect(async () => {
      expect(server.exitCode, `the ${name} server exited on start`).toBeNull();
      expect((await health.get("/api/health")).ok()).toBe(true);
    }).toPass({ timeout: 120_000 });
  } catch (err) {
    await stop();
    throw err;
  } finally {
    await health.dispose();
  }
  return { port, stop };
}

/**
 * Screenshots of the page as it is at 1280×800 and 390×844 (the mouse out of the way), written
 * to the test's output folder as `<stage>-desktop.png` / `<stage>-phone.png` and attached to the
 * report; the page is left at 1280×800.
 */
export async function screenshots(page: Page, info: TestInfo, stage: string): Promise<void> {
  for (const size of [
    { name: "desktop", width: 1280, height: 800 },
    { name: "phone", width: 390, height: 844 },
  ]) {
    await page.setViewportSize({ width: size.width, height: size.height });
    await page.mouse.move(size.width - 5, 5);
    const path = info.outputPath(`${stage}-${size.name}.png`);
    await page.screenshot({ path });
    await info.attach(`${stage}-${size.name}`, { path, contentType: "image/png" });
  }
  await page.setViewportSize({ width: 1280, height: 800 });
}

/** The axe rules that depend on colour: all a dark page needs beyond its light twin's full check. */
const COLOUR_RULES = ["color-contrast", "link-in-text-block"];

/**
 * The page's serious and critical axe violations as it is now, each as "<rule>: <targets>"; with
 * `colourOnly`, only the rules that depend on colour (a dark page's layout is the light one's,
 * checked with every rule).
 */
export async function seriousViolations(page: Page, opts: { colourOnly?: boolean } = {}): Promise<string[]> {
  const axe = new AxeBuilder({ page });
  const { violations } = await (opts.colourOnly ? axe.withRules(COLOUR_RULES) : axe).analyze();
  return violations.filter((v) => v.impact === "serious" || v.impact === "critical").map((v) => `${v.id}: ${v.nodes.map((n) => n.target.join(" ")).join(", ")}`);
}

/**
 * Click `target` until `opened` shows: again only when a click opened nothing (on a busy machine
 * a click on a run's graph can land while the graph is still being fitted into view).
 */
export async function clickUntilShown(target: Locator, opened: Locator): Promise<void> {
  await expect(async () => {
    if (!(await opened.isVisible())) await target.click();
    await expect(opened).toBeVisible({ timeout: 2_000 });
  }).toPass({ timeout: 15_000 });
}

/** Records every length the (first) streaming reply's text takes in the page, from now on. */
export async function recordStreamLengths(page: Page): Promise<() => Promise<number[]>> {
  await page.evaluate(() => {
    const w = window as unknown as { __lengths: number[] };
    w.__lengths = [];
    const look = () => {
      const el = document.querySelector('[data-testid="streaming-reply"] .text-msg');
      // What shows: a trailing space is drawn as written until the markdown renderer has loaded, then not.
      const n = el?.textContent?.trimEnd().length ?? 0;
      if (n && w.__lengths.at(-1) !== n) w.__lengths.push(n);
    };
    new MutationObserver(look).observe(document.body, { subtree: true, childList: true, characterData: true });
  });
  return () => page.evaluate(() => (window as unknown as { __lengths: number[] }).__lengths);
}

/**
 * Posts `text` in channel `threadId` as a new request (`reply_to: null`, even while an earlier run
 * of a shared channel waits for an answer) and waits for the run it starts. Resolves the posted
 * message and the new run's id.
 */
export async function askForRun(request: APIRequestContext, threadId: string, text: string): Promise<{ asked: StoredEvent; runId: string }> {
  const posted = await request.post(`/api/threads/${threadId}/messages`, { data: { text, reply_to: null } });
  expect(posted.status(), await posted.text()).toBe(201);
  const asked = (await posted.json()).event as StoredEvent;
  let runId = "";
  await expect
    .poll(async () => {
      const runs = (await (await request.get(`/api/threads/${threadId}/runs`)).json()).runs as { run_id: string; first_seq: number }[];
      runId = runs.find((r) => r.first_seq > asked.seq)?.run_id ?? "";
      return runId;
    })
    .not.toBe("");
  return { asked, runId };
}

/** Scrolls the message pane (the scrolling ancestor of `target`) so that `target` is at its top. */
export async function scrollToTop(page: Page, target: Locator): Promise<void> {
  await target.evaluate((el) => {
    let box = el.parentElement;
    while (box && getComputedStyle(box).overflowY !== "auto") box = box.parentElement;
    if (box) box.scrollTop += el.getBoundingClientRect().top - box.getBoundingClientRect().top - 8;
  });
  await page.waitForTimeout(150);
}

