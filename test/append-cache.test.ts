/**
 * The append authorizer's cache (server/auth/append-cache.ts) never lets through what the
 * database would refuse, and never refuses what it would let through: a person removed from a
 * private channel, or shut out of a channel made private, is refused at once; another node
 * learns of it from its tail; an agent whose task was given to another stops at once; a run stays
 * in the channel it started in; a cached "no" is asked of the database again.
 */
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { newId, type ClutchMessage } from "@/lib/protocol";
import type { Clutch } from "@/server/clutch";
import type { Principal } from "@/server/auth/principal";
import * as eventsRoute from "@/app/api/events/route";
import { AppendCache } from "@/server/auth/append-cache";
import { EventTail } from "@/server/events/tail";
import { pgTransactor } from "@/server/events/sql";
import { chat, msg, requestAs, testAgent, testClutch, testPerson, type TestPrincipal } from "./helpers";

const SYSTEM = { kind: "system", agent_id: "system" } as const;

let rt: Clutch;
/** A second node on the same database (a deployment of its own, like every test's Clutch). */
let other: Clutch;
let admin: TestPrincipal;
beforeAll(async () => {
  other = await testClutch();
  rt = await testClutch(); // the last one made serves the routes (server/instance.ts)
  admin = await testPerson(rt, "admin", "Ada Cache");
});
afterAll(async () => {
  await other.stop();
  await rt.stop();
});

const post = (as: TestPrincipal, body: unknown) =>
  eventsRoute.POST(requestAs(as, "http://localhost:3000/api/events", { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) }));
const errorOf = async (res: Response) => ((await res.json()) as { error: { code: string; message: string } }).error;
const channel = async (visibility: "public" | "private") =>
  (await rt.store.createThread({ name: `cache-${newId("thread").slice(-10).toLowerCase()}`, visibility }, { agent_id: admin.agent_id, display_name: admin.person!.name })).id;
const said = (p: TestPrincipal, text: string, thread_id: string, run_id = newId("run")) => chat(text, { thread_id, run_id, from: { agent_id: p.agent_id, role: "human" } });
const stored = async (thread_id: string, text: string) => (await rt.store.read({ thread_id })).events.some((e) => e.payload.text === text);

/** Append `m` on node `node` as `p`'s key would: through that node's authorizer. */
async function appendOn(node: Clutch, p: TestPrincipal, m: ClutchMessage): Promise<string> {
  const principal = (await node.identity.authenticate(new Headers(p.headers))) as Principal;
  try {
    await node.store.append(m, { authorize: node.identity.authorizer(principal) });
    return "stored";
  } catch (err) {
    return (err as { code?: string }).code ?? String(err);
  }
}

describe("channels", () => {
  it("a person removed from a private channel is refused at once, with the answer for a channel that does not exist", async () => {
    const thread_id = await channel("private");
    const member = await testPerson(rt, "member", "Rita Removed");
    await rt.identity.addMember(SYSTEM, thread_id, member.agent_id);
    expect((await post(member, said(member, "while a member", thread_id))).status).toBe(201);
    await rt.identity.removeMember(SYSTEM, thread_id, member.agent_id);
    const res = await post(member, said(member, "after removal", thread_id));
    expect(res.status).toBe(422);
    expect(await errorOf(res)).toEqual({ code: "unknown_thread", message: `message 0: thread ${thread_id} does not exist`, issues: expect.any(Array) });
    expect(await stored(thread_id, "after removal")).toBe(false);
  });

  it("a membership deleted without an audit event (ChannelAccess alone) is refused at once too", async () => {
    const thread_id = await channel("private");
    const member = await testPerson(rt, "member", "Quinn Quiet");
    await rt.identity.channels.add(thread_id, member.agent_id, "system");
    expect((await post(member, said(member, "in", thread_id))).status).toBe(201);
    await rt.identity.channels.remove(thread_id, member.agent_id);
    expect((await post(member, said(member, "out", thread_id))).status).toBe(422);
  });

  it("a channel made private shuts out those who are not its members at once", async () => {
    const thread_id = await channel("public");
    const passer = await testPerson(rt, "member", "Pat Passer");
    expect((await post(passer, said(passer, "public still", thread_id))).status).toBe(201);
    await rt.identity.setVisibility(SYSTEM, thread_id, "private");
    expect((await post(passer, said(passer, "private now", thread_id))).status).toBe(422);
    expect(await stored(thread_id, "private now")).toBe(false);
  });

  it("another node refuses a removed member as soon as the removal's audit event reaches its tail", async () => {
    const thread_id = await channel("private");
    const member = await testPerson(rt, "member", "Nora Node");
    await rt.identity.addMember(SYSTEM, thread_id, member.agent_id);
    expect(await appendOn(other, member, said(member, "on the other node", thread_id))).toBe("stored");
    await rt.identity.removeMember(SYSTEM, thread_id, member.agent_id);
    await expect.poll(() => appendOn(other, member, said(member, `refused ${newId("message")}`, thread_id)), { timeout: 3000, interval: 20 }).toBe("unknown_thread");
  });

  it("a cached refusal is asked of the database again: a person added on another node may post here at once", async () => {
    const thread_id = await channel("private");
    const joiner = await testPerson(rt, "member", "Jo Joiner");
    expect((await post(joiner, said(joiner, "not yet", thread_id))).status).toBe(422);
    await other.identity.addMember(SYSTEM, thread_id, joiner.agent_id);
    expect((await post(joiner, said(joiner, "now a member", thread_id))).status).toBe(201);
  });
});

describe("runs and tasks", () => {
  it("an agent whose task was given to another agent is refused at once (403 not_your_task)", async () => {
    const thread_id = await channel("public");
    const first = await testAgent(rt, `agent:first-${newId("user").slice(-6).toLowerCase()}`);
    const second = `agent:second-${newId("user").slice(-6).toLowerCase()}`;
    const run_id = newId("run");
    const task_id = newId("task");
    const request = (to: string) => msg("task.request", { title: "Count the beans" }, { thread_id, run_id, task_id, from: { agent_id: admin.agent_id, role: "human" }, to: [{ agent_id: to }] });
    await rt.store.append(request(first.agent_id));
    const progress = (note: string) => msg("task.progress", { message: note }, { thread_id, run_id, task_id, from: { agent_id: first.agent_id, role: "worker" } });
    expect((await post(first, progress("mine"))).status).toBe(201);
    await rt.store.append(request(second));
    const res = await post(first, progress("still mine?"));
    expect(res.status).toBe(403);
    expect(await errorOf(res)).toMatchObject({ code: "not_your_task", message: expect.stringContaining(`assigned to ${second}`) });
  });

  it("a task given to another agent is forgotten when the commit is handed over, even while the tail holds it behind another node's commit", async () => {
    const thread_id = await channel("public");
    const run_id = newId("run");
    const task_id = newId("task");
    const request = (to: string) => msg("task.request", { title: "Weigh the beans" }, { thread_id, run_id, task_id, from: { agent_id: admin.agent_id, role: "human" }, to: [{ agent_id: to }] });
    // A tail that reads nothing by itself: an event it is not handed stays a gap before the rest.
    const sql = pgTransactor(inject("databaseUrl"));
    const held = new EventTail(sql, { gapWaitMs: 3_600_000, pollMs: 0 });
    const cache = new AppendCache(rt.store.queries, rt.identity.channels);
    const unfollow = cache.follow(held);
    try {
      await rt.store.append(request("agent:first"));
      await held.start();
      expect((await cache.appendScopes([], [task_id])).tasks.get(task_id)?.assignee).toBe("agent:first");
      await other.store.append(said(admin, "another node's commit", thread_id)); // never handed to `held`
      const { events } = await rt.store.append(request("agent:second"));
      held.offer(events);
      expect(held.head).toBeLessThan(events[0]!.seq); // still held back behind the gap
      expect((await cache.appendScopes([], [task_id])).tasks.get(task_id)?.assignee).toBe("agent:second");
    } finally {
      unfollow();
      held.stop();
      await sql.close();
    }
  });

  it("a run stays in the channel of its first write: the same run named in another channel is refused (422 unknown_run)", async () => {
    const home = await channel("public");
    const elsewhere = await channel("public");
    const agent = await testAgent(rt, `agent:mover-${newId("user").slice(-6).toLowerCase()}`);
    const run_id = newId("run");
    const task_id = newId("task");
    const from = { agent_id: agent.agent_id, role: "worker" };
    expect((await post(agent, msg("task.request", { title: "Stay home" }, { thread_id: home, run_id, task_id, from, to: [{ agent_id: agent.agent_id }] }))).status).toBe(201);
    expect((await post(agent, msg("task.progress", { message: "at home" }, { thread_id: home, run_id, task_id, from }))).status).toBe(201);
    const res = await post(agent, msg("task.progress", { message: "moved" }, { thread_id: elsewhere, run_id, task_id, from }));
    expect(res.status).toBe(422);
    expect((await errorOf(res)).code).toBe("unknown_run");
    expect((await rt.store.read({ run_id })).events.map((e) => e.thread_id)).toEqual([home, home]);
  });
});
