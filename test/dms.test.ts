/**
 * Direct messages (docs/channels.md "Direct messages"): a person opens a DM with pm-1, which is
 * a private thread of the two where pm-1 takes every message as a request; opening it again finds
 * the same one; nobody else can read it; a DM with a disabled agent is refused. A DM between two
 * people: both read it, no agent takes its messages, a third person cannot see it. Real
 * PostgreSQL, the built-in model.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ThreadSummary } from "@/lib/api/types";
import type { Clutch } from "@/server/clutch";
import * as dmsRoute from "@/app/api/dms/route";
import * as threadRoute from "@/app/api/threads/[thread_id]/route";
import * as messagesRoute from "@/app/api/threads/[thread_id]/messages/route";
import * as agentRoute from "@/app/api/agents/[agent_id]/route";
import { registerAgent } from "@/server/router/registration";
import { asAdmin, requestAs, testPerson } from "./helpers";
import { scratchWorkspace, startAgents, waitFor } from "./agents";

let rt: Clutch;
beforeAll(async () => {
  rt = await startAgents(scratchWorkspace().dir);
});
afterAll(async () => {
  await rt?.stop();
});

const json = (body: unknown) => ({ method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) });
const openDm = async (withWhom: string) => {
  const res = await dmsRoute.POST(await asAdmin("http://t/api/dms", json({ with: withWhom })), undefined as never);
  return { status: res.status, body: (await res.json()) as { thread: ThreadSummary; error?: { code: string; message: string } } };
};

describe("a direct message with a person", () => {
  it("is a private thread of the two, readable by both, with no agent, closed to a third", async () => {
    const ada = await testPerson(rt, "member", "Ada DM");
    const res = await dmsRoute.POST(requestAs(ada, "http://t/api/dms", json({ with: ada.agent_id })), undefined as never);
    expect(res.status).toBe(400);
    const first = await openDm(ada.agent_id);
    expect(first.status).toBe(201);
    expect(first.body.thread).toMatchObject({ kind: "dm", visibility: "private", entry_agent: null });
    expect(first.body.thread.dm_between).toContain(ada.agent_id);
    const thread_id = first.body.thread.id;

    // Ada opens it from her side: the same thread.
    const hers = await dmsRoute.POST(requestAs(ada, "http://t/api/dms", json({ with: first.body.thread.dm_between.find((id) => id !== ada.agent_id) })), undefined as never);
    expect(hers.status).toBe(200);
    expect(((await hers.json()) as { thread: ThreadSummary }).thread.id).toBe(thread_id);

    const sent = await messagesRoute.POST(await asAdmin(`http://t/api/threads/${thread_id}/messages`, json({ text: "Hi Ada" })), { params: Promise.resolve({ thread_id }) });
    expect(sent.status).toBe(201);
    const read = await threadRoute.GET(requestAs(ada, `http://t/api/threads/${thread_id}`), { params: Promise.resolve({ thread_id }) });
    expect(read.status).toBe(200);
    const third = await testPerson(rt, "member", "Third DM");
    expect((await threadRoute.GET(requestAs(third, `http://t/api/threads/${thread_id}`), { params: Promise.resolve({ thread_id }) })).status).toBe(404);
    expect((await openDm("user:nobody-at-all")).body.error?.code).toBe("unknown_person");
  });
});

describe("a direct message with an agent", () => {
  it("is answered by the deployment it was opened on: another deployment on the same database leaves it alone", async () => {
    // Opened on deployment "elsewhere" (whose nodes are not running), with the same agent as here.
    const dana = await testPerson(rt, "member", "Dana");
    const { thread } = await rt.store.directMessage([dana.agent_id, "agent:pm-1"], { entry_agent: "agent:pm-1", with_name: "Project Manager", deployment: `elsewhere-${Date.now()}` }, { agent_id: dana.agent_id, display_name: dana.person!.name });
    const sent = await messagesRoute.POST(requestAs(dana, `http://t/api/threads/${thread.id}/messages`, json({ text: "What can you do?" })), { params: Promise.resolve({ thread_id: thread.id }) });
    expect(sent.status).toBe(201);
    await new Promise((r) => setTimeout(r, 2000));
    // This deployment's orchestrator started nothing: the message is the last thing in the DM.
    expect((await rt.store.readAll({ thread_id: thread.id })).map((e) => e.type)).toEqual(["chat.system", "chat.message"]);
  });

  it("is a private thread of the two where the agent takes every message, found again, and closed to others", async () => {
    const first = await openDm("pm-1");
    expect(first.status).toBe(201);
    expect(first.body.thread).toMatchObject({ kind: "dm", visibility: "private", entry_agent: "agent:pm-1" });
    expect(first.body.thread.dm_between).toContain("agent:pm-1");
    const again = await openDm("agent:pm-1");
    expect(again.status).toBe(200);
    expect(again.body.thread.id).toBe(first.body.thread.id);
    const thread_id = first.body.thread.id;

    // Any message is a request of pm-1: on the built-in model it answers and declines.
    const sent = await messagesRoute.POST(await asAdmin(`http://t/api/threads/${thread_id}/messages`, json({ text: "What can you do?" })), { params: Promise.resolve({ thread_id }) });
    expect(sent.status).toBe(201);
    const request = await waitFor(rt, thread_id, "pm-1's task", (evs) => evs.find((e) => e.type === "task.request" && e.to[0]?.agent_id === "agent:pm-1"));
    expect(request.thread_id).toBe(thread_id);
    await waitFor(rt, thread_id, "pm-1's answer", (evs) => evs.find((e) => e.type === "chat.message" && e.from.agent_id === "agent:pm-1"));

    // Someone else cannot see it.
    const other = await testPerson(rt, "member", "Riley");
    const res = await threadRoute.GET(requestAs(other, `http://t/api/threads/${thread_id}`), { params: Promise.resolve({ thread_id }) });
    expect(res.status).toBe(404);
  });

  it("refuses an unknown agent and a disabled one", async () => {
    expect((await openDm("agent:nobody-at-all")).body.error?.code).toBe("unknown_agent");
    await registerAgent(rt.store, rt.registry, { v: "clutch/0.1", agent_id: "agent:dm-off", display: { name: "Off" }, capabilities: [{ id: "skill:dm-off", version: "1.0" }] });
    const disabled = await agentRoute.PATCH(await asAdmin("http://t/api/agents/agent:dm-off", { ...json({ disabled: true }), method: "PATCH" }), { params: Promise.resolve({ agent_id: "agent:dm-off" }) });
    expect(disabled.status).toBe(200);
    const refused = await openDm("agent:dm-off");
    expect(refused.status).toBe(409);
    expect(refused.body.error?.code).toBe("agent_disabled");
  });
});
