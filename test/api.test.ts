/**
 * The HTTP API's route handlers, called with real Requests against real PostgreSQL: status
 * codes, the error shape, cursors.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { newId, PROTOCOL_VERSION } from "@/lib/protocol";
import type { Clutch } from "@/server/clutch";
import { databaseOf } from "@/server/events/testing";
import * as eventsRoute from "@/app/api/events/route";
import * as threadsRoute from "@/app/api/threads/route";
import * as threadEventsRoute from "@/app/api/threads/[thread_id]/events/route";
import * as messagesRoute from "@/app/api/threads/[thread_id]/messages/route";
import * as runEventsRoute from "@/app/api/runs/[run_id]/events/route";
import * as healthRoute from "@/app/api/health/route";
import * as agentsRoute from "@/app/api/agents/route";
import * as heartbeatRoute from "@/app/api/agents/[agent_id]/heartbeat/route";
import type { AgentSummary } from "@/lib/api/types";
import { chat, requestAs, testAgent, testClutch, testPerson, type TestPrincipal } from "./helpers";

let rt: Clutch;
/** The person most calls are made as, and the external agent that sends `chat()` messages. */
let renee: TestPrincipal;
let tester: TestPrincipal;
beforeAll(async () => {
  rt = await testClutch();
  renee = await testPerson(rt, "admin", "Renée Smith");
  tester = await testAgent(rt);
});
afterAll(() => rt.stop());

const post = (body: unknown, as: TestPrincipal = renee) =>
  requestAs(as, "http://test/api", {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: typeof body === "string" ? body : JSON.stringify(body),
  });
const get = (query = "") => requestAs(renee, `http://test/api${query}`);
const params = <T>(p: T) => ({ params: Promise.resolve(p) });

async function newChannel(name = `api-${newId("thread").slice(-8).toLowerCase()}`) {
  const res = await threadsRoute.POST(post({ name, topic: "testing" }), undefined as never);
  expect(res.status).toBe(201);
  return ((await res.json()) as { thread: { id: string; name: string } }).thread;
}

describe("threads", () => {
  it("creates a thr_ channel, lists it, and refuses a duplicate or bad name", async () => {
    const thread = await newChannel();
    expect(thread.id).toMatch(/^thr_[0-9A-HJKMNP-TV-Z]{26}$/);
    const first = (await rt.store.read({ thread_id: thread.id })).events[0]!;
    expect(first.payload.text).toBe(`${renee.person!.name} created #${thread.name}: testing`);
    const list = (await (await threadsRoute.GET(get(), undefined as never)).json()) as { threads: { id: string; read: { seq: number; count: number } | null }[] };
    expect(list.threads.map((t) => t.id)).toContain(thread.id);
    // Its creator has it read up to its start: what is said from now on is unread for them.
    expect(list.threads.find((t) => t.id === thread.id)!.read).toEqual({ seq: first.seq, count: 0 });

    const dup = await threadsRoute.POST(post({ name: thread.name }), undefined as never);
    expect(dup.status).toBe(409);
    expect(await dup.json()).toEqual({ error: { code: "name_taken", message: `#${thread.name} already exists` } });

    const bad = await threadsRoute.POST(post({ name: "Not Valid!" }), undefined as never);
    expect(bad.status).toBe(400);
    const body = (await bad.json()) as { error: { code: string; message: string; issues: unknown[] } };
    expect(body.error.code).toBe("invalid_thread");
    expect(body.error.message).toMatch(/lowercase letters/);
    expect(body.error.issues.length).toBeGreaterThan(0);
  });
});

describe("events", () => {
  it("POST /api/events: 201 with seq, 200 with the originals on repeat, 400 with issues, 422 unknown thread", async () => {
    const { id: thread_id } = await newChannel();
    const run_id = newId("run");
    const batch = [chat("one", { thread_id, run_id }), chat("two", { thread_id, run_id })];
    const res = await eventsRoute.POST(post(batch, tester), undefined as never);
    expect(res.status).toBe(201);
    const stored = ((await res.json()) as { events: { seq: number; id: string }[] }).events;
    expect(stored.map((e) => e.id)).toEqual(batch.map((m) => m.id));
    expect(stored[1]!.seq).toBe(stored[0]!.seq + 1);

    const again = await eventsRoute.POST(post(batch, tester), undefined as never);
    expect(again.status).toBe(200);
    expect(((await again.json()) as { events: unknown[] }).events).toEqual(stored);

    const invalid = await eventsRoute.POST(post({ ...batch[0], id: newId("message"), type: "chat.shout" }, tester), undefined as never);
    expect(invalid.status).toBe(400);
    const err = (await invalid.json()) as { error: { code: string; issues: { path: unknown[] }[] } };
    expect(err.error.code).toBe("invalid_event");
    expect(err.error.issues[0]!.path).toEqual(["type"]);

    const notJson = await eventsRoute.POST(post("{oops", tester), undefined as never);
    expect(notJson.status).toBe(400);
    expect(((await notJson.json()) as { error: { code: string } }).error.code).toBe("invalid_json");

    const orphan = await eventsRoute.POST(post(chat("x", { thread_id: newId("thread"), run_id }), tester), undefined as never);
    expect(orphan.status).toBe(422);
  });

  it("pages a thread and a run by cursor, oldest first, the newest page with before=end, and a slice between two cursors", async () => {
    const { id: thread_id } = await newChannel();
    const run_id = newId("run");
    await rt.store.append(Array.from({ length: 7 }, (_, i) => chat(`m${i}`, { thread_id, run_id })));

    const page1 = (await (await threadEventsRoute.GET(get("?limit=3"), params({ thread_id }))).json()) as {
      events: { seq: number; payload: { text: string } }[];
      next_after: number | null;
    };
    expect(page1.events.map((e) => e.payload.text)).toEqual([expect.stringMatching(/created/), "m0", "m1"]);
    const page2 = (await (await threadEventsRoute.GET(get(`?after=${page1.next_after}&limit=100`), params({ thread_id }))).json()) as typeof page1;
    expect(page2.events.map((e) => e.payload.text)).toEqual(["m2", "m3", "m4", "m5", "m6"]);
    expect(page2.next_after).toBeNull();

    const newest = (await (await threadEventsRoute.GET(get("?before=end&limit=2"), params({ thread_id }))).json()) as typeof page1 & {
      has_more_before: boolean;
    };
    expect(newest.events.map((e) => e.payload.text)).toEqual(["m5", "m6"]);
    expect(newest.has_more_before).toBe(true);

    const run = (await (await runEventsRoute.GET(get("?after=0"), params({ run_id }))).json()) as typeof page1;
    expect(run.events).toHaveLength(7);

    // A slice between two cursors, paged forward: how a long run loads in parallel.
    const seqs = run.events.map((e) => e.seq);
    const slice = (await (await runEventsRoute.GET(get(`?after=${seqs[1]}&before=${seqs[5]}&limit=2`), params({ run_id }))).json()) as typeof page1;
    expect(slice.events.map((e) => e.payload.text)).toEqual(["m2", "m3"]);
    const rest = (await (await runEventsRoute.GET(get(`?after=${slice.next_after}&before=${seqs[5]}&limit=2`), params({ run_id }))).json()) as typeof page1;
    expect(rest.events.map((e) => e.payload.text)).toEqual(["m4"]);
    expect(rest.next_after).toBeNull();
    const empty = await runEventsRoute.GET(get(`?after=${seqs[3]}&before=${seqs[3]! + 1}`), params({ run_id }));
    expect(empty.status).toBe(400);
    expect(((await empty.json()) as { error: { message: string } }).error.message).toMatch(/must be greater than after \+ 1/);

    const bad = await threadEventsRoute.GET(get("?after=-1"), params({ thread_id }));
    expect(bad.status).toBe(400);
    const missing = await threadEventsRoute.GET(get(), params({ thread_id: newId("thread") }));
    expect(missing.status).toBe(404);
  });

  it("POST /api/threads/:id/messages stores the signed-in person's chat.message, named by their profile", async () => {
    const { id: thread_id } = await newChannel();
    const res = await messagesRoute.POST(post({ text: "Hi *team*" }), params({ thread_id }));
    expect(res.status).toBe(201);
    const { event } = (await res.json()) as { event: Record<string, unknown> };
    expect(event).toMatchObject({
      v: PROTOCOL_VERSION,
      type: "chat.message",
      thread_id,
      from: { agent_id: renee.agent_id, role: "human", display_name: renee.person!.name },
      payload: { text: "Hi *team*" },
    });
    const named = await messagesRoute.POST(post({ text: "as someone else", display_name: "Mallory" }), params({ thread_id }));
    expect(named.status).toBe(400);
    expect(((await named.json()) as { error: { message: string } }).error.message).toMatch(/display_name/);
    const empty = await messagesRoute.POST(post({ text: "   " }), params({ thread_id }));
    expect(empty.status).toBe(400);
    expect(((await empty.json()) as { error: { message: string } }).error.message).toMatch(/needs text/);
  });
});

describe("health", () => {
  it("reports the database, the version, and where the agents work", async () => {
    const res = await healthRoute.GET(new Request("http://test/api/health"), undefined as never);
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({ ok: true, version: expect.any(String), database: { ok: true }, agents: "none" });
  });
});

describe("agents", () => {
  const card = (agent_id: string) => ({
    v: "clutch/0.1",
    agent_id,
    display: { name: "Ken", desc: "Research specialist" },
    capabilities: [{ id: "skill:research", version: "1.0", tags: ["market"] }],
    limits: { max_concurrency: 2 },
  });

  it("registers an AgentCard (201), updates it (200), changes nothing on a repeat, and lists it online", async () => {
    const id = `agent:ken-${newId("task").slice(-6).toLowerCase()}`;
    const first = await agentsRoute.POST(post(card(id)), undefined as never);
    expect(first.status).toBe(201);
    const body = (await first.json()) as { agent: AgentSummary; result: string };
    expect(body).toMatchObject({ result: "registered", agent: { agent_id: id, name: "Ken", source: "external", status: "online", max_concurrency: 2, success_rate: null, recent_tasks: [] } });
    const again = await agentsRoute.POST(post(card(id)), undefined as never);
    expect(again.status).toBe(200);
    expect(((await again.json()) as { result: string }).result).toBe("unchanged");
    const changed = await agentsRoute.POST(post({ ...card(id), display: { name: "Ken 2" } }), undefined as never);
    expect(((await changed.json()) as { result: string; agent: AgentSummary }).agent.name).toBe("Ken 2");
    const listed = (await (await agentsRoute.GET(get(), undefined as never)).json()) as { agents: AgentSummary[] };
    expect(listed.agents.find((a) => a.agent_id === id)).toMatchObject({ name: "Ken 2", status: "online" });
    const types = (await databaseOf(rt.store).event.findMany({ where: { from_agent_id: id }, orderBy: { seq: "asc" } })).map((e) => e.type);
    expect(types).toEqual(["agent.register", "agent.update"]);
  });

  it("refuses an invalid card with the fields at fault and stores nothing", async () => {
    const res = await agentsRoute.POST(post({ v: "clutch/0.1", agent_id: "ken", display: {}, capabilities: [{ version: "1" }] }), undefined as never);
    expect(res.status).toBe(400);
    const { error } = (await res.json()) as { error: { code: string; message: string } };
    expect(error.code).toBe("invalid_card");
    expect(error.message).toMatch(/agent_id: agent_id must look like agent:<name>/);
    expect(error.message).toMatch(/display\.name/);
    expect(error.message).toMatch(/capabilities\.0\.id/);
    expect(await databaseOf(rt.store).event.count({ where: { from_agent_id: "ken" } })).toBe(0);
  });

  it("records heartbeats of registered agents only", async () => {
    const id = `agent:beat-${newId("task").slice(-6).toLowerCase()}`;
    const unknown = await heartbeatRoute.POST(post({}), params({ agent_id: encodeURIComponent(id) }));
    expect(unknown.status).toBe(404);
    expect(((await unknown.json()) as { error: { message: string } }).error.message).toMatch(/POST its AgentCard to \/api\/agents first/);
    await agentsRoute.POST(post(card(id)), undefined as never);
    const ok = await heartbeatRoute.POST(post({ status: "busy", active_tasks: 1 }), params({ agent_id: encodeURIComponent(id) }));
    expect(ok.status).toBe(202);
    const bad = await heartbeatRoute.POST(post({ status: "sleepy" }), params({ agent_id: encodeURIComponent(id) }));
    expect(bad.status).toBe(400);
    const beats = await databaseOf(rt.store).event.findMany({ where: { from_agent_id: id, type: "agent.heartbeat" } });
    expect(beats.map((b) => b.payload)).toEqual([{ agent_id: id, status: "busy", active_tasks: 1 }]);
    const thread = await rt.store.getThread(beats[0]!.thread_id);
    expect(thread!.name).toBe("_agents");
    const channels = (await (await threadsRoute.GET(get(), undefined as never)).json()) as { threads: { name: string }[] };
    expect(channels.threads.map((t) => t.name)).not.toContain("_agents");
  });
});
