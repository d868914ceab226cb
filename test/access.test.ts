/**
 * Refusals that store nothing (docs/identity.md): an agent key cannot finish a task the router gave
 * to another agent, post Clutch's own event types, or post as someone else; private channels stay
 * private over REST and lose a removed member's live subscription at once; a guest sees only the
 * channels they were added to; a disabled agent's key stops working; too many writes get 429 with
 * Retry-After; a cookie write from another site gets 403.
 */
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { io as connect } from "socket.io-client";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { newId, type StoredEvent } from "@/lib/protocol";
import type { Clutch } from "@/server/clutch";
import { RealtimeGateway } from "@/server/realtime/gateway";
import * as eventsRoute from "@/app/api/events/route";
import * as threadsRoute from "@/app/api/threads/route";
import * as meRoute from "@/app/api/me/route";
import * as messagesRoute from "@/app/api/threads/[thread_id]/messages/route";
import * as authRoute from "@/app/api/auth/[...all]/route";
import { chat, msg, requestAs, taskRow, testAgent, testClutch, testPerson, type TestPrincipal } from "./helpers";

let rt: Clutch;
let admin: TestPrincipal;
beforeAll(async () => {
  rt = await testClutch();
  admin = await testPerson(rt, "admin", "Ada Admin");
});
afterAll(() => rt.stop());

const post = (as: TestPrincipal | null, body: unknown, headers: Record<string, string> = {}) =>
  requestAs(as, "http://localhost:3000/api/events", { method: "POST", headers: { "content-type": "application/json", ...headers }, body: JSON.stringify(body) });
const params = <T>(p: T) => ({ params: Promise.resolve(p) });
const errorOf = async (res: Response) => ((await res.json()) as { error: { code: string; message: string } }).error;
const channel = async (visibility: "public" | "private" = "public") =>
  (await rt.store.createThread({ name: `acc-${newId("thread").slice(-10).toLowerCase()}`, visibility }, { agent_id: admin.agent_id, display_name: "Ada Admin" })).id;

describe("an agent key speaks only for its agent", () => {
  it("a task.result for a task the router gave to another agent is refused with 403 not_your_task; the task and its run are unchanged", async () => {
    const thread_id = await channel();
    const mallory = await testAgent(rt, `agent:mallory-${newId("user").slice(-6).toLowerCase()}`);
    const run_id = newId("run");
    const task_id = newId("task");
    await rt.store.append(msg("task.request", { title: "Close the books" }, { thread_id, run_id, task_id, from: { agent_id: admin.agent_id, role: "human" }, to: [{ agent_id: "agent:ken" }] }));
    const before = (await rt.store.read({ run_id })).events.length;
    const res = await eventsRoute.POST(post(mallory, msg("task.result", { summary: "done" }, { thread_id, run_id, task_id, from: { agent_id: mallory.agent_id, role: "worker" } })));
    expect(res.status).toBe(403);
    expect(await errorOf(res)).toMatchObject({ code: "not_your_task", message: expect.stringContaining("assigned to agent:ken") });
    expect((await rt.store.read({ run_id })).events.length).toBe(before);
    expect((await taskRow(rt, task_id)).state).toBe("pending");
    expect((await rt.store.queries.run(run_id))?.state).toBe("running");
  });

  it("Clutch's own types (here a routing.decision) are refused with 403 reserved_type", async () => {
    const thread_id = await channel();
    const agent = await testAgent(rt, `agent:router-wannabe-${newId("user").slice(-6).toLowerCase()}`);
    const res = await eventsRoute.POST(post(agent, msg("routing.decision", { selected: agent.agent_id, candidates: [agent.agent_id], reason: "me", scores: { [agent.agent_id]: 1 } }, { thread_id, run_id: newId("run"), from: { agent_id: agent.agent_id, role: "router" } })));
    expect(res.status).toBe(403);
    expect((await errorOf(res)).code).toBe("reserved_type");
  });

  it("a disabled agent's key stops working at once, and works again once enabled", async () => {
    const agent = await testAgent(rt, `agent:flaky-${newId("user").slice(-6).toLowerCase()}`);
    expect((await meRoute.GET(requestAs(agent, "http://t/api/me"))).status).toBe(200);
    await rt.identity.setAgentDisabled({ kind: "system", agent_id: "system" }, agent.agent_id, true, "misbehaving");
    expect((await meRoute.GET(requestAs(agent, "http://t/api/me"))).status).toBe(401);
    await rt.identity.setAgentDisabled({ kind: "system", agent_id: "system" }, agent.agent_id, false);
    expect((await meRoute.GET(requestAs(agent, "http://t/api/me"))).status).toBe(200);
  });
});

describe("channels", () => {
  it("a guest sees only the channels they were added to", async () => {
    const guest = await testPerson(rt, "guest", "Gus Guest");
    const open = await channel();
    const theirs = await channel();
    await rt.identity.addMember({ kind: "system", agent_id: "system" }, theirs, guest.agent_id);
    const listed = ((await (await threadsRoute.GET(requestAs(guest, "http://t/api/threads"))).json()) as { threads: { id: string }[] }).threads.map((t) => t.id);
    expect(listed).toContain(theirs);
    expect(listed).not.toContain(open);
    const res = await messagesRoute.POST(requestAs(guest, `http://t/api/threads/${open}/messages`, { method: "POST", body: JSON.stringify({ text: "hi" }) }), params({ thread_id: open }));
    expect(res.status).toBe(404);
  });

  it("a member removed from a private channel stops receiving its live events at once", async () => {
    const thread_id = await channel("private");
    const member = await testPerson(rt, "member", "Remy Removed");
    await rt.identity.addMember({ kind: "system", agent_id: "system" }, thread_id, member.agent_id);
    const http: Server = createServer();
    const gateway = new RealtimeGateway(http, rt.store, rt.tail, rt.identity);
    await new Promise<void>((r) => http.listen(0, "127.0.0.1", r));
    const socket = connect(`http://127.0.0.1:${(http.address() as AddressInfo).port}`, { transports: ["websocket"], reconnection: false, forceNew: true, auth: { token: member.key, frames: true } });
    const received: StoredEvent[] = [];
    socket.on("events", (evs: StoredEvent[]) => received.push(...evs));
    try {
      const ack = await new Promise<{ ok: boolean }>((resolve) => socket.emit("subscribe", { thread_id }, resolve));
      expect(ack.ok).toBe(true);
      const run_id = newId("run");
      await rt.store.append(chat("while a member", { thread_id, run_id }));
      await expect.poll(() => received.some((e) => e.payload.text === "while a member")).toBe(true);
      await rt.identity.removeMember({ kind: "system", agent_id: "system" }, thread_id, member.agent_id);
      await expect.poll(() => received.some((e) => e.type === "audit.change" && e.payload.action === "channel.member_removed"), { timeout: 5000 }).toBe(true);
      await new Promise((r) => setTimeout(r, 200)); // the gateway re-checks its subscriptions
      await rt.store.append(chat("after removal", { thread_id, run_id }));
      await new Promise((r) => setTimeout(r, 500));
      expect(received.some((e) => e.payload.text === "after removal")).toBe(false);
    } finally {
      socket.disconnect();
      await gateway.close();
    }
  });
});

describe("abuse", () => {
  it("writes past the per-principal limit get 429 with Retry-After, and store nothing", async () => {
    const thread_id = await channel();
    const agent = await testAgent(rt, `agent:chatty-${newId("user").slice(-6).toLowerCase()}`);
    const from = { agent_id: agent.agent_id, role: "worker" };
    process.env.CLUTCH_AGENT_WRITES_PER_MIN = "3";
    try {
      for (let i = 0; i < 3; i++) expect((await eventsRoute.POST(post(agent, chat(`m${i}`, { thread_id, run_id: newId("run"), from })))).status).toBe(201);
      const extra = chat("one too many", { thread_id, run_id: newId("run"), from });
      const res = await eventsRoute.POST(post(agent, extra));
      expect(res.status).toBe(429);
      expect(Number(res.headers.get("retry-after"))).toBeGreaterThan(0);
      expect((await errorOf(res)).code).toBe("rate_limited");
      expect((await rt.store.read({ run_id: extra.run_id })).events).toEqual([]);
      // Someone else is not held up by it.
      const other = await testAgent(rt, `agent:calm-${newId("user").slice(-6).toLowerCase()}`);
      expect((await eventsRoute.POST(post(other, chat("calm", { thread_id, run_id: newId("run"), from: { agent_id: other.agent_id, role: "worker" } })))).status).toBe(201);
    } finally {
      delete process.env.CLUTCH_AGENT_WRITES_PER_MIN;
    }
  });

  it("a write limit set to anything but a whole number from 1 to 10,000,000 stops the start with a message naming it, and so does an image host that is not a host name", async () => {
    const { loadConfig } = await import("@/server/config");
    const env = (vars: Record<string, string>): NodeJS.ProcessEnv => ({ NODE_ENV: "test", ...vars });
    expect(() => loadConfig(env({ CLUTCH_WRITES_PER_MIN: "1200" }))).not.toThrow();
    expect(() => loadConfig(env({ CLUTCH_WRITES_PER_MIN: "" }))).not.toThrow();
    expect(() => loadConfig(env({ CLUTCH_WRITES_PER_MIN: "lots" }))).toThrow(/CLUTCH_WRITES_PER_MIN must be a whole number of writes a minute from 1 to 10000000, e\.g\. 3000 \(got "lots"\)/);
    expect(() => loadConfig(env({ CLUTCH_AGENT_WRITES_PER_MIN: "0" }))).toThrow(/CLUTCH_AGENT_WRITES_PER_MIN must be a whole number of writes a minute/);
    expect(() => loadConfig(env({ CLUTCH_AGENT_WRITES_PER_MIN: "2.5" }))).toThrow(/CLUTCH_AGENT_WRITES_PER_MIN/);
    // So does an image host given as a URL, which would match no image.
    expect(() => loadConfig(env({ CLUTCH_IMAGE_HOSTS: "images.example.com" }))).not.toThrow();
    expect(() => loadConfig(env({ CLUTCH_IMAGE_HOSTS: "https://images.example.com" }))).toThrow(/CLUTCH_IMAGE_HOSTS: "https:\/\/images\.example\.com" is not a host name/);
  });

  it("an agent that streams progress is held to its own, larger limit: 60,000 writes a minute by default, people to 3,000", async () => {
    const { AGENT_WRITES_PER_MIN, PERSON_WRITES_PER_MIN, countWrite } = await import("@/server/http/write-limit");
    expect([AGENT_WRITES_PER_MIN, PERSON_WRITES_PER_MIN]).toEqual([60_000, 3000]);
    // A person's limit does not hold an agent back: 200 writes a second of a streaming agent pass.
    process.env.CLUTCH_WRITES_PER_MIN = "100";
    try {
      const streamer = `agent:streamer-${newId("user").slice(-6).toLowerCase()}`;
      for (let i = 0; i < 200; i++) expect(await countWrite(streamer)).toBeNull();
      const person = `user:${newId("user")}`;
      for (let i = 0; i < 100; i++) expect(await countWrite(person)).toBeNull();
      expect(await countWrite(person)).toMatchObject({ per_minute: 100 });
    } finally {
      delete process.env.CLUTCH_WRITES_PER_MIN;
    }
  });

  it("a write with a session cookie from another site gets 403 cross_site_request and stores nothing; from Clutch's own pages it works", async () => {
    const thread_id = await channel();
    const email = `csrf-${newId("user").slice(-8).toLowerCase()}@test.local`;
    const { token } = await rt.identity.invite({ kind: "system", agent_id: "system" }, "member");
    await rt.identity.acceptInvite(token, { name: "Cookie Person", email, password: "a long enough password" });
    const signIn = await authRoute.POST(new Request("http://localhost:3000/api/auth/sign-in/email", { method: "POST", headers: { "content-type": "application/json", origin: "http://localhost:3000" }, body: JSON.stringify({ email, password: "a long enough password" }) }));
    const cookie = signIn.headers.getSetCookie().map((c) => c.split(";")[0]).join("; ");
    const send = (site: string, text: string) =>
      messagesRoute.POST(new Request(`http://localhost:3000/api/threads/${thread_id}/messages`, { method: "POST", headers: { cookie, "sec-fetch-site": site, "content-type": "application/json" }, body: JSON.stringify({ text }) }), params({ thread_id }));
    const forged = await send("cross-site", "from evil.example");
    expect(forged.status).toBe(403);
    expect((await errorOf(forged)).code).toBe("cross_site_request");
    expect((await send("same-origin", "from Clutch")).status).toBe(201);
    const texts = (await rt.store.read({ thread_id })).events.map((e) => e.payload.text);
    expect(texts).toContain("from Clutch");
    expect(texts).not.toContain("from evil.example");
  });

  it("sign-in attempts are limited: wrong passwords for one account back off to 429 (docs/identity.md; test/sign-in.test.ts has the whole policy)", async () => {
    const email = `brute-${newId("user").slice(-8).toLowerCase()}@test.local`;
    const attempt = () =>
      authRoute.POST(new Request("http://localhost:3000/api/auth/sign-in/email", { method: "POST", headers: { "content-type": "application/json", origin: "http://localhost:3000", "x-forwarded-for": "203.0.113.9" }, body: JSON.stringify({ email, password: "wrong password" }) }));
    const statuses: number[] = [];
    for (let i = 0; i < 11; i++) statuses.push((await attempt()).status);
    expect(statuses.slice(0, 2)).toEqual([401, 401]);
    expect(statuses.at(-1)).toBe(429);
  });
});
