/**
 * An agent delegates by capability through the real agent loop (Clutch Protocol §4.2, with CAP
 * allowed_agents): lead-1, on a scripted OpenAI-compatible model, calls `delegate` with
 * `requires` instead of an agent id; the router picks helper-1, the only agent offering it within lead-1's allowed_agents (other-1 offers it
 * too but is not allowed), helper-1 answers, and lead-1 finishes with helper-1's answer.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { newId, RoutingDecisionPayload } from "@/lib/protocol";
import { resolveModel } from "@/server/agents/models";
import type { Clutch } from "@/server/clutch";
import { say, threadEvents, waitFor } from "./agents";
import { taskRow, testClutch } from "./helpers";
import { completion, startScriptedModel, toolCall, type ChatMessage, type ChatRequest } from "./scripted-openai";

const SKILL = `skill:counting-${newId("task").slice(-6).toLowerCase()}`;
let rt: Clutch;
let model: Awaited<ReturnType<typeof startScriptedModel>>;

const text = (m: ChatMessage) => (typeof m.content === "string" ? m.content : JSON.stringify(m.content ?? ""));
const called = (body: ChatRequest, name: string) => body.messages.some((m) => JSON.stringify(m.tool_calls ?? []).includes(`"name":"${name}"`));

/** lead-1 delegates by capability, then submits what came back; helper-1 and other-1 answer 42. */
function answer(body: ChatRequest) {
  if (body.model !== "lead-1") {
    return called(body, "submit_result") ? completion(body.model, { content: "Done." }, "stop") : completion(body.model, toolCall("submit_result", { summary: `${body.model} counted 42` }), "tool_calls");
  }
  const back = body.messages.find((m) => m.role === "user" && text(m).includes("finished (result from"));
  if (back && !called(body, "submit_result")) return completion(body.model, toolCall("submit_result", { summary: `The count is in: ${/[\w-]+ counted \d+/.exec(text(back))?.[0]}` }), "tool_calls");
  if (!called(body, "delegate")) {
    return completion(body.model, toolCall("delegate", { requires: [`${SKILL}@^2`], prefers: ["tag:orders"], title: "Count the orders", context_summary: "A person asked for the number of orders." }), "tool_calls");
  }
  return completion(body.model, { content: "Waiting for the count." }, "stop");
}

function manifest(id: string, allowed: string[], capabilities?: unknown[]) {
  return {
    id,
    system_prompt: `You are ${id}.`,
    allowed_agents: allowed,
    delegate_rules: {},
    overseer: null,
    mcp_bindings: [],
    ...(capabilities ? { capabilities } : {}),
  };
}

beforeAll(async () => {
  model = await startScriptedModel(answer);
  const baseURL = model.baseURL;

  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "clutch-ws-"));
  fs.mkdirSync(path.join(dir, "agents"));
  const files = {
    "lead-1.json": manifest("lead-1", ["helper-1"], [{ id: "skill:leading", version: "1.0" }]),
    "helper-1.json": manifest("helper-1", [], [{ id: SKILL, version: "2.3", tags: ["orders"] }]),
    "other-1.json": manifest("other-1", [], [{ id: SKILL, version: "2.5", tags: ["orders"] }]),
  };
  for (const [f, m] of Object.entries(files)) fs.writeFileSync(path.join(dir, "agents", f), JSON.stringify(m));
  fs.writeFileSync(path.join(dir, "mcp.json"), JSON.stringify({ mcpServers: {} }));
  const channel = `lead-${newId("thread").slice(-8).toLowerCase()}`;
  fs.writeFileSync(path.join(dir, "workspace.json"), JSON.stringify({ channels: [{ name: channel, entry_agent: "lead-1", answers: "every_message" }] }));
  rt = await testClutch({
    workspaceDir: dir,
    dataDir: fs.mkdtempSync(path.join(os.tmpdir(), "clutch-data-")),
    modelFor: (agent) => resolveModel({ provider: "openai-compatible", baseURL, apiKey: "test-key", model: agent.manifest.id }),
  });
});
afterAll(async () => {
  await rt?.stop();
  model?.close();
});

describe("delegation by capability", () => {
  it("is routed among the delegator's allowed_agents and its result comes back", async () => {
    const thread_id = rt.channels[0]!.thread_id;
    await say(rt, thread_id, "How many orders are there?");
    const done = await waitFor(rt, thread_id, "lead-1's result", (evs) => evs.find((e) => e.type === "task.result" && e.from.agent_id === "agent:lead-1"));
    expect(done.payload.summary).toBe("The count is in: helper-1 counted 42");

    const events = (await threadEvents(rt, thread_id)).filter((e) => e.run_id === done.run_id);
    const asked = events.find((e) => e.type === "task.request" && e.from.agent_id === "agent:lead-1")!;
    expect(asked).toMatchObject({ to: [{ agent_id: "agent:orchestrator" }], requires: [`${SKILL}@^2`], prefers: ["tag:orders"], parent_task_id: done.task_id });
    const decision = RoutingDecisionPayload.parse(events.find((e) => e.type === "routing.decision" && e.task_id === asked.task_id)!.payload);
    expect(decision).toMatchObject({ selected: "agent:helper-1", candidates: ["agent:helper-1"], mode: "capability" });
    expect(decision.rejected).toContainEqual({ agent_id: "agent:other-1", filter: "allowed_agents", reason: "agent:lead-1 may delegate only to [agent:helper-1]" });
    expect(events.some((e) => e.from.agent_id === "agent:other-1")).toBe(false);
    const sub = await taskRow(rt, asked.task_id);
    expect(sub).toMatchObject({ state: "succeeded", assignee: "agent:helper-1", requester: "agent:lead-1" });
  });
});
