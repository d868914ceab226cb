/**
 * Security regressions from the limits and direct-message drill (docs/limits.md,
 * docs/channels.md "Direct messages"). Each test failed before its fix:
 *
 * - past the write limit every door answers 429 with Retry-After (whole seconds) and a message
 *   saying when to retry, also when the limiter the doors share (on globalThis) was built by
 *   another copy of rate-limiter-flexible, as Next's route bundles carry one of their own:
 *   `POST /api/events` served beside Next (server/http/direct-routes.ts, over real HTTP), the
 *   A2A endpoint `/a2a` (HTTP 429 with a JSON-RPC error body, over real HTTP) and a Next route
 *   handler (`POST /api/threads/:id/messages`). Before, the first two answered 500 (the A2A one
 *   Express's HTML page) and the route handler 500 when the other copy built the limiter;
 * - a direct message stays between its two people: neither of them, an admin included, makes it
 *   public, adds someone, removes the other or leaves it; each is 409 direct_message, saying what
 *   to do instead, and nothing is stored.
 *
 * Real PostgreSQL; the A2A endpoint and `POST /api/events` on real HTTP servers.
 */
import fs from "node:fs";
import http, { type Server } from "node:http";
import { createRequire } from "node:module";
import os from "node:os";
import path from "node:path";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ThreadSummary } from "@/lib/api/types";
import { newId } from "@/lib/protocol";
import type { Clutch } from "@/server/clutch";
import { a2aApp } from "@/server/adapters/a2a/server";
import { directRoutes } from "@/server/http/direct-routes";
import { contentSecurityPolicy, frontDoor } from "@/server/http/front-door";
import * as eventsRoute from "@/app/api/events/route";
import * as dmsRoute from "@/app/api/dms/route";
import * as threadRoute from "@/app/api/threads/[thread_id]/route";
import * as membersRoute from "@/app/api/threads/[thread_id]/members/route";
import * as memberRoute from "@/app/api/threads/[thread_id]/members/[member]/route";
import * as messagesRoute from "@/app/api/threads/[thread_id]/messages/route";
import { chat, newThread, requestAs, testAgent, testClutch, testPerson, type TestPrincipal } from "./helpers";

let rt: Clutch;
let a2aBase: string;
let eventsBase: string;
const servers: Server[] = [];

beforeAll(async () => {
  // A workspace with one channel, so the A2A endpoints have somewhere to run requests.
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "clutch-ws-"));
  fs.mkdirSync(path.join(dir, "agents"));
  fs.writeFileSync(
    path.join(dir, "agents", "pm-1.json"),
    JSON.stringify({ id: "pm-1", system_prompt: "Plans.", allowed_agents: [], delegate_rules: {}, overseer: null, mcp_bindings: [], capabilities: [{ id: "skill:planning" }] }),
  );
  fs.writeFileSync(path.join(dir, "mcp.json"), JSON.stringify({ mcpServers: {} }));
  fs.writeFileSync(path.join(dir, "workspace.json"), JSON.stringify({ channels: [{ name: `limits-${newId("thread").slice(-8).toLowerCase()}`, entry_agent: "pm-1", answers: "every_message" }] }));
  rt = await testClutch({ workspaceDir: dir, dataDir: fs.mkdtempSync(path.join(os.tmpdir(), "clutch-data-")), modelFor: () => ({}) as never });

  const listen = async (server: Server) => {
    servers.push(server);
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
    return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  };
  // POST /api/events as server.ts serves it: the front door, then the direct route, beside Next.
  const direct = directRoutes({ "POST /api/events": eventsRoute.POST });
  const csp = contentSecurityPolicy([]);
  eventsBase = await listen(
    http.createServer((req, res) => {
      if (frontDoor(req, res, csp)) return;
      if (direct(req, res)) return;
      res.writeHead(404).end("left to Next");
    }),
  );
  const a2aServer = http.createServer();
  a2aBase = await listen(a2aServer);
  a2aServer.on("request", a2aApp(rt, a2aBase));
});
afterAll(async () => {
  for (const s of servers) {
    s.closeAllConnections();
    await new Promise<void>((r) => s.close(() => r()));
  }
  await rt?.stop();
});

const params = <T>(p: T) => ({ params: Promise.resolve(p) }) as never;
const send = (method: string, body?: unknown) => (body === undefined ? { method } : { method, headers: { "content-type": "application/json" }, body: JSON.stringify(body) });

/**
 * The write limiters of `points` writes a minute, built by a second copy of rate-limiter-flexible,
 * as when a Next route bundle (which carries its own) counts the process's first write at that
 * limit. The limiters live on globalThis under `clutch.write-limiters`, one per limit
 * (server/http/write-limit.ts), so every module graph of the process counts the same writes.
 */
function limiterFromAnotherCopy(points: number): void {
  const original = path.dirname(createRequire(import.meta.url).resolve("rate-limiter-flexible/package.json"));
  const copy = path.join(fs.mkdtempSync(path.join(os.tmpdir(), "clutch-rlf-")), "rate-limiter-flexible");
  fs.cpSync(original, copy, { recursive: true });
  const other = createRequire(path.join(copy, "package.json"))(copy) as typeof import("rate-limiter-flexible");
  const g = globalThis as { [k: symbol]: Map<number, unknown> | undefined };
  (g[Symbol.for("clutch.write-limiters")] ??= new Map()).set(points, new other.RateLimiterMemory({ points, duration: 60 }));
}

/** Runs `fn` with the environment variable `name` set to `value`, then removes it. */
async function withEnv(name: string, value: string, fn: () => Promise<void>): Promise<void> {
  process.env[name] = value;
  try {
    await fn();
  } finally {
    delete process.env[name];
  }
}

/** Asserts a 429 a person can act on: Retry-After in whole seconds, the wait named in the message. */
function expectRetryAfter(res: Response): number {
  expect(res.status).toBe(429);
  expect(res.headers.get("content-type")).toContain("application/json");
  const retryAfter = res.headers.get("retry-after");
  expect(retryAfter).toMatch(/^[1-9]\d*$/);
  return Number(retryAfter);
}

describe("past the write limit, every door answers 429 with Retry-After", () => {
  it("POST /api/events served beside Next: an agent's write past its limit is a 429 rate_limited, and stores nothing", async () => {
    limiterFromAnotherCopy(2);
    const agent = await testAgent(rt, `agent:limits-${newId("user").slice(-6).toLowerCase()}`);
    const thread_id = await newThread(rt, "limits");
    const from = { agent_id: agent.agent_id, role: "worker" };
    const post = (text: string, run_id: string) =>
      fetch(`${eventsBase}/api/events`, { method: "POST", headers: { "content-type": "application/json", ...agent.headers }, body: JSON.stringify(chat(text, { thread_id, run_id, from })) });
    await withEnv("CLUTCH_AGENT_WRITES_PER_MIN", "2", async () => {
      expect((await post("one", newId("run"))).status).toBe(201);
      expect((await post("two", newId("run"))).status).toBe(201);
      const run_id = newId("run");
      const res = await post("one too many", run_id);
      const wait = expectRetryAfter(res);
      const { error } = (await res.json()) as { error: { code: string; message: string } };
      expect(error.code).toBe("rate_limited");
      expect(error.message).toContain("at most 2 a minute");
      expect(error.message).toContain(`retry in ${wait} s`);
      expect((await rt.store.readAll({ run_id })).length).toBe(0);
    });
  });

  it("the A2A endpoint: a call past the key's limit is an HTTP 429 with Retry-After and a JSON-RPC error, not an HTML 500", async () => {
    limiterFromAnotherCopy(3);
    const lee = await testPerson(rt, "member", "Lee");
    const call = () =>
      fetch(`${a2aBase}/a2a`, { method: "POST", headers: { "content-type": "application/json", ...lee.headers }, body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tasks/get", params: { id: "nope" } }) });
    await withEnv("CLUTCH_WRITES_PER_MIN", "3", async () => {
      for (let i = 0; i < 3; i++) expect((await call()).status).toBe(200);
      const res = await call();
      const wait = expectRetryAfter(res);
      const body = (await res.json()) as { jsonrpc: string; error: { code: number; message: string } };
      expect(body.jsonrpc).toBe("2.0");
      expect(body.error.code).toBe(-32001);
      expect(body.error.message).toContain("at most 3 writes a minute");
      expect(body.error.message).toContain(`retry in ${wait} s`);
    });
  });

  it("a Next route handler (POST /api/threads/:id/messages): a person's message past the limit is a 429 rate_limited, and is not posted", async () => {
    limiterFromAnotherCopy(4);
    const kim = await testPerson(rt, "member", "Kim");
    const thread_id = await newThread(rt, "limits");
    const say = (text: string) => messagesRoute.POST(requestAs(kim, `http://localhost:3000/api/threads/${thread_id}/messages`, send("POST", { text })), params({ thread_id }));
    await withEnv("CLUTCH_WRITES_PER_MIN", "4", async () => {
      for (let i = 0; i < 4; i++) expect((await say(`message ${i}`)).status).toBe(201);
      const res = await say("one too many");
      const wait = expectRetryAfter(res);
      const { error } = (await res.json()) as { error: { code: string; message: string } };
      expect(error).toMatchObject({ code: "rate_limited", message: expect.stringContaining(`retry in ${wait} s`) });
      const texts = (await rt.store.readAll({ thread_id })).map((e) => e.payload.text);
      expect(texts).toContain("message 3");
      expect(texts).not.toContain("one too many");
    });
  });
});

describe("a direct message stays between its two people", () => {
  let ada: TestPrincipal; // an admin
  let bo: TestPrincipal;
  let cy: TestPrincipal;
  let dm: ThreadSummary;

  beforeAll(async () => {
    ada = await testPerson(rt, "admin", "Ada");
    bo = await testPerson(rt, "member", "Bo");
    cy = await testPerson(rt, "member", "Cy");
    const res = await dmsRoute.POST(requestAs(ada, "http://localhost:3000/api/dms", send("POST", { with: bo.agent_id })), undefined as never);
    expect(res.status).toBe(201);
    dm = ((await res.json()) as { thread: ThreadSummary }).thread;
    expect(dm).toMatchObject({ kind: "dm", visibility: "private" });
  });

  const url = (tail = "") => `http://localhost:3000/api/threads/${dm.id}${tail}`;
  const makePublic = (as: TestPrincipal) => threadRoute.PATCH(requestAs(as, url(), send("PATCH", { visibility: "public" })), params({ thread_id: dm.id }));
  const add = (as: TestPrincipal, member: string) => membersRoute.POST(requestAs(as, url("/members"), send("POST", { member })), params({ thread_id: dm.id }));
  const remove = (as: TestPrincipal, member: string) => memberRoute.DELETE(requestAs(as, url(`/members/${encodeURIComponent(member)}`), send("DELETE")), params({ thread_id: dm.id, member }));

  /** Asserts the 409 direct_message refusal, its message saying what the DM is and what to do. */
  async function refused(res: Response, says: RegExp) {
    expect(res.status).toBe(409);
    const { error } = (await res.json()) as { error: { code: string; message: string } };
    expect(error.code).toBe("direct_message");
    expect(error.message).toContain("a direct message stays between its two people");
    expect(error.message).toMatch(says);
  }

  /** The DM is as it was opened: private, its two people its only members, no change in its log. */
  async function unchanged() {
    const thread = ((await (await threadRoute.GET(requestAs(ada, url()), params({ thread_id: dm.id }))).json()) as { thread: ThreadSummary }).thread;
    expect(thread.visibility).toBe("private");
    const members = ((await (await membersRoute.GET(requestAs(bo, url("/members")), params({ thread_id: dm.id }))).json()) as { members: { member: string }[] }).members;
    expect(members.map((m) => m.member).sort()).toEqual([ada.agent_id, bo.agent_id].sort());
    expect((await rt.store.readAll({ thread_id: dm.id })).filter((e) => e.type === "audit.change")).toEqual([]);
    expect((await threadRoute.GET(requestAs(cy, url()), params({ thread_id: dm.id }))).status).toBe(404);
  }

  it("neither of the two, an admin included, makes it public", async () => {
    await refused(await makePublic(bo), /cannot be made public; start a channel to include others/);
    await refused(await makePublic(ada), /cannot be made public; start a channel to include others/);
    await unchanged();
  });

  it("neither of the two, an admin included, adds someone to it", async () => {
    await refused(await add(bo, cy.agent_id), /nobody can be added to it; start a channel to include others/);
    await refused(await add(ada, cy.agent_id), /nobody can be added to it; start a channel to include others/);
    await refused(await add(ada, "agent:pm-1"), /nobody can be added/);
    await unchanged();
  });

  it("neither of the two removes the other or leaves it", async () => {
    await refused(await remove(ada, bo.agent_id), /nobody can be removed from it or leave it/);
    await refused(await remove(bo, ada.agent_id), /nobody can be removed from it or leave it/);
    await refused(await remove(bo, bo.agent_id), /nobody can be removed from it or leave it/);
    await unchanged();
  });
});
