/**
 * Payload contracts through the real agent loop (Clutch Protocol §3, docs/schemas.md): lead-1,
 * on a scripted model, delegates by capability and `expects` a registered payload type. Two
 * agents offer the capability; the router passes over the one whose AgentCard produces another
 * type. The chosen agent is shown the schema, its first result does not match and is refused
 * with the JSON pointer of the failing field, and its corrected result reaches lead-1 typed.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { newId, RoutingDecisionPayload } from "@/lib/protocol";
import { resolveModel } from "@/server/agents/models";
import type { Clutch } from "@/server/clutch";
import { say, threadEvents, waitFor } from "./agents";
import { testClutch } from "./helpers";
import { completion, startScriptedModel, toolCall, type ChatMessage, type ChatRequest } from "./scripted-openai";

const SKILL = `skill:counting-${newId("task").slice(-6).toLowerCase()}`;
/** A domain of this run's own: the test database outlives a run, and schema versions never change. */
const COUNT = `c${newId("task").slice(-8).toLowerCase()}.count.v1`;
let rt: Clutch;
let model: Awaited<ReturnType<typeof startScriptedModel>>;

const text = (m: ChatMessage) => (typeof m.content === "string" ? m.content : JSON.stringify(m.content ?? ""));
const called = (body: ChatRequest, name: string) => body.messages.some((m) => JSON.stringify(m.tool_calls ?? []).includes(`"name":"${name}"`));

function answer(body: ChatRequest) {
  if (body.model === "counter-a") {
    const refusals = body.messages.filter((m) => m.role === "tool" && text(m).includes("does not match")).length;
    if (!called(body, "submit_result")) return completion(body.model, toolCall("submit_result", { summary: "forty-two orders", data: { count: "forty-two" } }), "tool_calls");
    if (refusals === 1 && body.messages.filter((m) => JSON.stringify(m.tool_calls ?? []).includes("submit_result")).length === 1) {
      return completion(body.model, toolCall("submit_result", { summary: "42 orders", payload_type: COUNT, data: { count: 42 } }), "tool_calls");
    }
    return completion(body.model, { content: "Done." }, "stop");
  }
  if (body.model === "counter-b") return completion(body.model, toolCall("submit_result", { summary: "not me" }), "tool_calls");
  const back = body.messages.find((m) => m.role === "user" && text(m).includes("finished (result from"));
  if (back && !called(body, "submit_result")) return completion(body.model, toolCall("submit_result", { summary: "The count is in." }), "tool_calls");
  if (!called(body, "delegate")) return completion(body.model, toolCall("delegate", { requires: [SKILL], expects: COUNT, title: "Count the orders", context_summary: "A person asked for the number of orders." }), "tool_calls");
  return completion(body.model, { content: "Waiting for the count." }, "stop");
}

function manifest(id: string, allowed: string[], extra: Record<string, unknown> = {}) {
  return { id, system_prompt: `You are ${id}.`, allowed_agents: allowed, delegate_rules: {}, overseer: null, mcp_bindings: [], ...extra };
}

beforeAll(async () => {
  model = await startScriptedModel(answer);
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "clutch-ws-"));
  fs.mkdirSync(path.join(dir, "agents"));
  const files = {
    "lead-1.json": manifest("lead-1", ["counter-a", "counter-b"], { capabilities: [{ id: "skill:leading" }] }),
    "counter-a.json": manifest("counter-a", [], { capabilities: [{ id: SKILL }], produces: [COUNT] }),
    "counter-b.json": manifest("counter-b", [], { capabilities: [{ id: SKILL }], produces: ["other.thing.v1"] }),
  };
  for (const [f, m] of Object.entries(files)) fs.writeFileSync(path.join(dir, "agents", f), JSON.stringify(m));
  fs.writeFileSync(path.join(dir, "mcp.json"), JSON.stringify({ mcpServers: {} }));
  fs.writeFileSync(path.join(dir, "workspace.json"), JSON.stringify({ channels: [{ name: `count-${newId("thread").slice(-8).toLowerCase()}`, entry_agent: "lead-1", answers: "every_message" }] }));
  rt = await testClutch({
    workspaceDir: dir,
    dataDir: fs.mkdtempSync(path.join(os.tmpdir(), "clutch-data-")),
    modelFor: (agent) => resolveModel({ provider: "openai-compatible", baseURL: model.baseURL, apiKey: "test-key", model: agent.manifest.id }),
  });
  await rt.schemas.add({ payload_type: COUNT, description: "How many", json_schema: { type: "object", properties: { count: { type: "integer", minimum: 0 } }, required: ["count"] } }, "user:test");
});
afterAll(async () => {
  await rt?.stop();
  model?.close();
});

describe("a delegation that expects a payload type", () => {
  it("goes to the agent that produces it, whose result is checked against the schema until it matches", async () => {
    const thread_id = rt.channels[0]!.thread_id;
    await say(rt, thread_id, "How many orders are there?");
    const done = await waitFor(rt, thread_id, "lead-1's result", (evs) => evs.find((e) => e.type === "task.result" && e.from.agent_id === "agent:lead-1"));
    const events = (await threadEvents(rt, thread_id)).filter((e) => e.run_id === done.run_id);

    const asked = events.find((e) => e.type === "task.request" && e.from.agent_id === "agent:lead-1")!;
    expect(asked.payload.expects).toEqual({ type: "task.result", payload_type: COUNT });
    const decision = RoutingDecisionPayload.parse(events.find((e) => e.type === "routing.decision" && e.task_id === asked.task_id)!.payload);
    expect(decision.selected).toBe("agent:counter-a");
    expect(decision.rejected).toContainEqual({ agent_id: "agent:counter-b", filter: "produces", reason: `produces [other.thing.v1], not ${COUNT}` });

    // The agent saw the schema; its first result was refused with the pointer of the field.
    const prompt = model.requests.find((r) => r.model === "counter-a")!.messages[0]!;
    expect(text(prompt)).toContain(`expects a result of payload_type ${COUNT}`);
    expect(text(prompt)).toContain('"required":["count"]');
    const refused = events.find((e) => e.type === "tool.error" && e.from.agent_id === "agent:counter-a" && JSON.stringify(e.payload).includes("does not match"))!;
    expect(JSON.stringify(refused.payload)).toContain(`the result does not match ${COUNT}`);
    expect(JSON.stringify(refused.payload)).toContain("at /count (data.count) it must be integer");

    const result = events.find((e) => e.type === "task.result" && e.task_id === asked.task_id)!;
    expect(result).toMatchObject({ from: { agent_id: "agent:counter-a" }, payload_type: COUNT, payload: { count: 42 } });
    expect(events.filter((e) => e.type === "task.result" && e.task_id === asked.task_id)).toHaveLength(1);
    expect(events.some((e) => e.from.agent_id === "agent:counter-b")).toBe(false);
  });
});
