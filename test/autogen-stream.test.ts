/**
 * Watching a running AutoGen team live (Clutch Protocol §7.3 `autogen`; docs/adapters.md
 * "AutoGen"): recorded AgentChat streams (test/fixtures/autogen/streams, each naming the AutoGen
 * test or doc it comes from) posted through the routes as the forwarder posts them become the
 * channel's events in order: turns, tool calls, handoffs as delegations, a question a person
 * answers and the forwarder fetches, the result with its stop reason. Retries store nothing
 * new; unknown types pass through; bad items are refused with their index. Real PostgreSQL.
 */
import fs from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { newId, type StoredEvent } from "@/lib/protocol";
import type { Clutch } from "@/server/clutch";
import { checkBatch, runStateOf, translate, type AutogenRunState } from "@/server/adapters/autogen/translate";
import * as runsRoute from "@/app/api/autogen/runs/route";
import * as messagesRoute from "@/app/api/autogen/runs/[run_id]/messages/route";
import * as inputRoute from "@/app/api/autogen/runs/[run_id]/input/route";
import * as threadMessages from "@/app/api/threads/[thread_id]/messages/route";
import { requestAs, taskRow, testAgent, testClutch, testPerson, type TestPrincipal } from "./helpers";

interface Fixture {
  source: string;
  task: string;
  stream: Record<string, unknown>[];
}
const fixture = (name: string) => JSON.parse(fs.readFileSync(`test/fixtures/autogen/streams/${name}.json`, "utf8")) as Fixture;

let rt: Clutch;
let forwarder: TestPrincipal;
let person: TestPrincipal;
let other: TestPrincipal;

beforeAll(async () => {
  rt = await testClutch();
  forwarder = await testAgent(rt, "agent:autogen-forwarder");
  person = await testPerson(rt, "member", "Mia Member");
  other = await testAgent(rt, "agent:someone-else");
});
afterAll(async () => {
  await rt?.stop();
});

const jsonInit = (method: string, body: unknown): RequestInit => ({ method, headers: { "content-type": "application/json" }, body: JSON.stringify(body) });
async function start(as: TestPrincipal, body: Record<string, unknown>) {
  const res = await runsRoute.POST(requestAs(as, "http://t/api/autogen/runs", jsonInit("POST", body)), undefined as never);
  return { status: res.status, body: (await res.json()) as { run_id: string; thread_id: string; task_id: string; error?: { code: string } } };
}
async function post(as: TestPrincipal, run_id: string, body: unknown) {
  const res = await messagesRoute.POST(requestAs(as, `http://t/api/autogen/runs/${run_id}/messages`, jsonInit("POST", body)), { params: Promise.resolve({ run_id }) });
  return { status: res.status, body: (await res.json()) as { items: { index: number; type: string; outcome: string; events: number; note?: string }[]; events: StoredEvent[]; error?: { code: string; message: string; issues?: { index: number; path: string }[] } } };
}
async function poll(as: TestPrincipal, run_id: string, query: string) {
  const res = await inputRoute.GET(requestAs(as, `http://t/api/autogen/runs/${run_id}/input?${query}`), { params: Promise.resolve({ run_id }) });
  return { status: res.status, body: res.status === 204 ? null : ((await res.json()) as { request_id: string; text: string; from: string; error?: { code: string } }) };
}
/** A run in a new channel, fed `stream` one message at a time as the forwarder does. */
async function runOf(f: Fixture, count = f.stream.length) {
  const name = `autogen-${newId("thread").slice(-10).toLowerCase()}`;
  await rt.store.createThread({ name }, { agent_id: "user:test" });
  const started = await start(forwarder, { channel: name, task: f.task, team: "Demo team", model: "gpt-4o" });
  expect(started.status).toBe(201);
  for (const m of f.stream.slice(0, count)) expect([200, 201]).toContain((await post(forwarder, started.body.run_id, m)).status);
  return { ...started.body, name };
}
const runEvents = (run_id: string) => rt.store.readAll({ run_id });
/** `type from: text` lines, as the channel shows them. */
const lines = (evs: StoredEvent[]) =>
  evs.filter((e) => e.type !== "model.usage").map((e) => {
    const p = e.payload as Record<string, unknown>;
    const what = e.type === "chat.message" ? p.text : e.type === "tool.call" || e.type === "tool.result" || e.type === "tool.error" ? `${String(p.tool)} ${JSON.stringify(p.arguments ?? p.result ?? p.message)}` : e.type === "task.request" ? `→ ${e.to[0]?.display_name}` : e.type === "task.result" ? p.summary : e.type === "task.progress" ? p.message : "";
    return `${e.type} ${e.from.display_name ?? e.from.agent_id}${what ? `: ${String(what).split("\n")[0]}` : ""}`;
  });

describe("translate (pure)", () => {
  it("maps the round-robin stream to envelopes, every speaking agent in a task of its own", () => {
    const f = fixture("round-robin-tools");
    const state: AutogenRunState = { run_id: "run_X", thread_id: "thr_X", root_task_id: "task_root", requester: { agent_id: "user:u", role: "human", display_name: "Uma" }, team: "Demo", task: f.task, model: null, tasks: {}, parents: {}, opened: [], questions: {}, answers: {}, last: null, ended: false };
    let n = 0;
    const { envelopes, outcomes, state: after } = translate(checkBatch(f.stream), state, { taskId: () => `task_${++n}` });
    expect(outcomes.map((o) => o.outcome)).toEqual(["skipped", "translated", "translated", "translated", "translated", "translated", "translated", "translated", "translated"]);
    expect(envelopes.filter((e) => e.type !== "model.usage").map((e) => `${e.type} ${e.task_id}`)).toEqual([
      "task.request task_1",
      "task.accept task_1",
      "tool.call task_1",
      "tool.result task_1",
      "chat.message task_1",
      "task.request task_2",
      "task.accept task_2",
      "chat.message task_2",
      "chat.message task_1",
      "chat.message task_2",
      "chat.message task_1",
      "task.result task_2",
      "task.result task_1",
      "task.result task_root",
    ]);
    expect(after).toMatchObject({ tasks: { tool_use_agent: "task_1", echo_agent: "task_2" }, ended: true });
    expect(state.tasks).toEqual({});
    // Every envelope names where it came from, and a retry would be keyed the same.
    expect(envelopes.every((e) => e.idempotency_key?.startsWith("autogen:run_X:"))).toBe(true);
    expect(new Set(envelopes.map((e) => e.idempotency_key)).size).toBe(envelopes.length);
  });
});

describe("POST /api/autogen/runs and /messages", () => {
  it("a round-robin stream (AutoGen's test_round_robin_group_chat_with_tools) becomes the channel's events in order, ending with the stop reason", async () => {
    const f = fixture("round-robin-tools");
    expect(f.source).toMatch(/test_group_chat\.py, test_round_robin_group_chat_with_tools/);
    const run = await runOf(f);
    const evs = await runEvents(run.run_id);
    expect(lines(evs)).toEqual([
      "task.request agent:autogen-forwarder: → AutoGen · Demo team",
      "task.accept AutoGen · Demo team",
      "task.request AutoGen · Demo team: → AutoGen · tool_use_agent",
      "task.accept AutoGen · tool_use_agent",
      'tool.call AutoGen · tool_use_agent: pass {"input":"pass"}',
      'tool.result AutoGen · tool_use_agent: pass "pass"',
      "chat.message AutoGen · tool_use_agent: pass",
      "task.request AutoGen · Demo team: → AutoGen · echo_agent",
      "task.accept AutoGen · echo_agent",
      "chat.message AutoGen · echo_agent: pass",
      "chat.message AutoGen · tool_use_agent: Hello",
      "chat.message AutoGen · echo_agent: Hello",
      "chat.message AutoGen · tool_use_agent: TERMINATE",
      "task.result AutoGen · echo_agent: echo_agent's turns ended: Text 'TERMINATE' mentioned",
      "task.result AutoGen · tool_use_agent: tool_use_agent's turns ended: Text 'TERMINATE' mentioned",
      "task.result AutoGen · Demo team: Demo team stopped: Text 'TERMINATE' mentioned",
    ]);
    const root = evs.at(-1)!;
    expect(root).toMatchObject({ task_id: run.task_id, payload: { stop_reason: "Text 'TERMINATE' mentioned", messages: 8 } });
    expect((await taskRow(rt, run.task_id)).state).toBe("succeeded");
    // Each message keeps what AutoGen said of it.
    expect(evs.find((e) => e.type === "tool.call")!.payload).toMatchObject({ call_id: "1", autogen: { type: "ToolCallRequestEvent", source: "tool_use_agent", models_usage: { prompt_tokens: 0, completion_tokens: 0 } } });
  });

  it("is idempotent by message id: the same stream posted again as one batch stores nothing new", async () => {
    const f = fixture("round-robin-tools");
    const run = await runOf(f, 5);
    const before = (await runEvents(run.run_id)).length;
    const again = await post(forwarder, run.run_id, f.stream.slice(0, 5));
    expect(again.status).toBe(200);
    expect((await runEvents(run.run_id)).length).toBe(before);
    // The rest, as a batch with the first five again: only the new ones are stored.
    const rest = await post(forwarder, run.run_id, { messages: f.stream.slice(0, 8) });
    expect(rest.status).toBe(201);
    expect(rest.body.items.map((i) => i.index)).toEqual([0, 1, 2, 3, 4, 5, 6, 7]);
    expect(lines((await runEvents(run.run_id)).slice(before))).toEqual(["chat.message AutoGen · tool_use_agent: Hello", "chat.message AutoGen · echo_agent: Hello", "chat.message AutoGen · tool_use_agent: TERMINATE"]);
  });

  it("a swarm's handoffs (AutoGen's test_swarm_handoff_using_tool_calls) are delegations: each target's task is under the sender's", async () => {
    const run = await runOf(fixture("swarm-handoff"));
    const evs = await runEvents(run.run_id);
    const requests = evs.filter((e) => e.type === "task.request");
    const [, agent1, agent2, back] = requests;
    expect(requests.map((e) => `${e.from.display_name ?? e.from.agent_id} → ${e.to[0]!.display_name}`)).toEqual(["agent:autogen-forwarder → AutoGen · Demo team", "AutoGen · Demo team → AutoGen · agent1", "AutoGen · agent1 → AutoGen · agent2", "AutoGen · agent2 → AutoGen · agent1"]);
    expect(agent2).toMatchObject({ parent_task_id: agent1!.task_id, payload: { title: "Handoff from agent1: handoff to agent2", instructions: "handoff to agent2" } });
    expect(back).toMatchObject({ parent_task_id: agent2!.task_id, payload: { instructions: "Transferred to agent1." } });
    // agent1 speaks on in the task agent2 handed back.
    const hello = evs.find((e) => e.type === "chat.message" && (e.payload as { text: string }).text === "Hello")!;
    expect(hello).toMatchObject({ task_id: back!.task_id, parent_task_id: agent2!.task_id, from: { display_name: "AutoGen · agent1" } });
    expect(evs.filter((e) => e.type === "tool.result").map((e) => e.payload)).toEqual([expect.objectContaining({ tool: "handoff_to_agent2", result: "handoff to agent2" })]);
    expect(evs.at(-1)).toMatchObject({ type: "task.result", task_id: run.task_id, payload: { stop_reason: "Text 'TERMINATE' mentioned" } });
    // Every task of the run ended, agent1's first one too (it handed off, and was handed a new one).
    for (const r of requests) expect((await taskRow(rt, r.task_id)).state).toBe("succeeded");
  });

  it("a UserProxyAgent's input request is a question to the people; a person answers in the channel and the forwarder fetches it", async () => {
    const f = fixture("human-in-the-loop");
    const run = await runOf(f, 3);
    const question = (await runEvents(run.run_id)).find((e) => e.type === "chat.message" && (e.payload as { expects_reply?: boolean }).expects_reply)!;
    expect(question).toMatchObject({ from: { display_name: "AutoGen · user_proxy" }, to: [{ agent_id: "user" }], payload: { autogen: { request_id: "7d2c1b0e-3f4a-4b5c-8d6e-9f0a1b2c3d4e" } } });
    expect((question.payload as { text: string }).text).toMatch(/^user_proxy \(AutoGen UserProxyAgent\) waits for your input: reply to this message to answer\.\n\nassistant: In endless blue/);
    expect((await taskRow(rt, question.task_id)).state).toBe("waiting_input");

    // Nothing yet: 204 at once with wait=0; someone else's key may not fetch it.
    expect((await poll(forwarder, run.run_id, "wait=0")).status).toBe(204);
    expect((await poll(other, run.run_id, "wait=0")).status).toBe(403);
    expect((await poll(forwarder, run.run_id, "request_id=nope&wait=0")).body).toMatchObject({ error: { code: "unknown_request" } });
    // The forwarder waits; the person answers while it does.
    const waiting = poll(forwarder, run.run_id, "request_id=7d2c1b0e-3f4a-4b5c-8d6e-9f0a1b2c3d4e&wait=10");
    await new Promise((r) => setTimeout(r, 200));
    const answered = await threadMessages.POST(requestAs(person, `http://t/api/threads/${run.thread_id}/messages`, jsonInit("POST", { text: "APPROVE", reply_to: question.id })), { params: Promise.resolve({ thread_id: run.thread_id }) });
    expect(answered.status).toBe(201);
    const got = await waiting;
    expect(got).toMatchObject({ status: 200, body: { request_id: "7d2c1b0e-3f4a-4b5c-8d6e-9f0a1b2c3d4e", text: "APPROVE", from: person.person!.name } });
    expect((await taskRow(rt, question.task_id)).state).toBe("running");
    // Asked again (a retried poll), the same answer at once.
    expect((await poll(forwarder, run.run_id, "wait=0")).body).toMatchObject({ text: "APPROVE" });

    // The UserProxyAgent's message is the person's answer: not shown twice. Then the result.
    const echo = await post(forwarder, run.run_id, f.stream[3]);
    expect(echo.body.items).toEqual([{ index: 0, type: "TextMessage", outcome: "skipped", events: 0, note: "the person's answer, already in the channel" }]);
    await post(forwarder, run.run_id, f.stream[4]);
    const evs = await runEvents(run.run_id);
    expect(evs.filter((e) => e.type === "chat.message" && (e.payload as { text: string }).text === "APPROVE")).toHaveLength(1);
    expect(evs.at(-1)).toMatchObject({ type: "task.result", payload: { stop_reason: "Text 'APPROVE' mentioned" } });
  });

  it("a handoff to the user (the docs' lazy_assistant) is a message to the people, and the run ends with the handoff's stop reason", async () => {
    const run = await runOf(fixture("handoff-to-user"));
    const evs = await runEvents(run.run_id);
    // The model call's tokens (69 in, 12 out, as the docs print them), priced as the model the start named.
    expect(evs.filter((e) => e.type === "model.usage").map((e) => [e.from.display_name, e.payload])).toEqual([["AutoGen · lazy_assistant", expect.objectContaining({ model: "gpt-4o", provider: "autogen", input_tokens: 69, output_tokens: 12 })]]);
    expect(lines(evs).slice(2)).toEqual([
      "task.request AutoGen · Demo team: → AutoGen · lazy_assistant",
      "task.accept AutoGen · lazy_assistant",
      "tool.call AutoGen · lazy_assistant: transfer_to_user {}",
      'tool.result AutoGen · lazy_assistant: transfer_to_user "Transfer to user."',
      "chat.message AutoGen · lazy_assistant: Transfer to user.",
      "task.result AutoGen · lazy_assistant: lazy_assistant's turns ended: Handoff to user from lazy_assistant detected.",
      "task.result AutoGen · Demo team: Demo team stopped: Handoff to user from lazy_assistant detected.",
    ]);
    expect(evs.find((e) => e.type === "chat.message")).toMatchObject({ to: [{ agent_id: "user" }], payload: { handoff_to: "user" } });
  });

  it("a failed tool call is a tool.error; an unknown type is kept as a documented passthrough; streaming chunks are skipped", async () => {
    const run = await runOf(fixture("round-robin-tools"), 1);
    const res = await post(forwarder, run.run_id, [
      { type: "ToolCallRequestEvent", source: "coder", id: "m1", content: [{ id: "c1", name: "divide", arguments: '{"a": 1, "b": 0}' }] },
      { type: "ToolCallExecutionEvent", source: "coder", id: "m2", content: [{ content: "ZeroDivisionError: division by zero", name: "divide", call_id: "c1", is_error: true }] },
      { type: "SelectorEvent", source: "SelectorGroupChatManager", id: "m3", content: "coder" },
      { type: "ModelClientStreamingChunkEvent", source: "coder", id: "m4", content: "Hel" },
      { type: "BrandNewEvent", source: "coder", id: "m5", content: { anything: [1, 2] } },
    ]);
    expect(res.status).toBe(201);
    expect(res.body.items.map((i) => `${i.type} ${i.outcome}`)).toEqual(["ToolCallRequestEvent translated", "ToolCallExecutionEvent translated", "SelectorEvent passthrough", "ModelClientStreamingChunkEvent skipped", "BrandNewEvent passthrough"]);
    const evs = await runEvents(run.run_id);
    expect(evs.find((e) => e.type === "tool.error")).toMatchObject({ payload: { call_id: "c1", tool: "divide", code: "TOOL_ERROR", message: "ZeroDivisionError: division by zero" } });
    expect(evs.filter((e) => e.type === "task.progress").map((e) => e.payload)).toEqual([
      expect.objectContaining({ status: "autogen.SelectorEvent", message: "SelectorEvent: coder" }),
      expect.objectContaining({ status: "autogen.BrandNewEvent", message: "BrandNewEvent", autogen: expect.objectContaining({ message: expect.objectContaining({ content: { anything: [1, 2] } }) }) }),
    ]);
  });

  it("refuses bad input with 400 naming each item's index and path, and stores nothing; other callers and unknown runs get 403 and 404", async () => {
    const run = await runOf(fixture("round-robin-tools"), 1);
    const before = (await runEvents(run.run_id)).length;
    const bad = await post(forwarder, run.run_id, [{ type: "TextMessage", source: "a", content: "fine" }, 42, { type: "TextMessage", content: "who?" }, { type: "ToolCallRequestEvent", source: "a", content: [{ id: "1" }] }]);
    expect(bad.status).toBe(400);
    expect(bad.body.error!.code).toBe("invalid_autogen_message");
    expect(bad.body.error!.message).toMatch(/^item 1 cannot be read: \$\[1\]: an AgentChat message is a JSON object/);
    expect(bad.body.error!.issues!.map((i) => i.path)).toEqual(["$[1]", "$[2].source", "$[3].content[0].name", "$[3].content[0].arguments"]);
    expect((await runEvents(run.run_id)).length).toBe(before);
    const notJson = await messagesRoute.POST(requestAs(forwarder, `http://t/api/autogen/runs/${run.run_id}/messages`, { method: "POST", headers: { "content-type": "application/json" }, body: "{ not json" }), { params: Promise.resolve({ run_id: run.run_id }) });
    expect(notJson.status).toBe(400);

    expect((await post(other, run.run_id, { type: "TextMessage", source: "a", content: "hi" })).body.error!.code).toBe("not_your_run");
    expect((await post(forwarder, "run_nope", { type: "TextMessage", source: "a", content: "hi" })).status).toBe(404);
    expect((await start(forwarder, { channel: "no-such-channel" })).status).toBe(404);
    expect((await runsRoute.POST(new Request("http://t/api/autogen/runs", jsonInit("POST", { channel: run.name })), undefined as never)).status).toBe(401);
  });

  it("reads the run back from its events: a new process continues where the last stopped", async () => {
    const f = fixture("swarm-handoff");
    const run = await runOf(f, 5);
    const state = runStateOf(await runEvents(run.run_id))!;
    expect(Object.keys(state.tasks).sort()).toEqual(["agent1", "agent2"]);
    expect(state.parents[state.tasks.agent1!]).toBe(state.tasks.agent2);
    expect(state.ended).toBe(false);
  });
});
