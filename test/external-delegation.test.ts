/**
 * A workspace agent delegates to an external agent (Clutch Protocol §7: agents from other stacks
 * join over HTTP): lead-1's CAP manifest names ext-analyst, which has no manifest but registers its
 * AgentCard with POST /api/agents. lead-1, on a scripted OpenAI-compatible model, delegates to it by
 * id and by capability; the external agent, holding only its API key, finds the task.request
 * addressed to it in its inbox (GET /api/agents/:id/inbox) and answers through POST /api/events; lead-1 gets the result and finishes. A
 * delegation to an allowed agent that never registered fails visibly, and lead-1 carries on.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { makeMessage, newId, type StoredEvent } from "@/lib/protocol";
import { resolveModel } from "@/server/agents/models";
import type { Clutch } from "@/server/clutch";
import { registerAgent } from "@/server/router/registration";
import { POST as postEvents } from "@/app/api/events/route";
import { GET as inbox } from "@/app/api/agents/[agent_id]/inbox/route";
import { say, waitFor } from "./agents";
import { requestAs, runRow, testAgent, testClutch, type TestPrincipal } from "./helpers";
import { completion, startScriptedModel, toolCall, type ChatMessage, type ChatRequest } from "./scripted-openai";

const EXT = `agent:ext-analyst-${newId("task").slice(-6).toLowerCase()}`;
const SKILL = `skill:external-${newId("task").slice(-6).toLowerCase()}`;
let rt: Clutch;
let key: TestPrincipal;
let model: Awaited<ReturnType<typeof startScriptedModel>>;

const text = (m: ChatMessage) => (typeof m.content === "string" ? m.content : JSON.stringify(m.content ?? ""));

/** lead-1: delegate as the request says ([by-id], [by-skill], [ghost]), then report what came back. */
function answer(body: ChatRequest) {
  const all = body.messages.map(text).join("\n");
  const last = body.messages.at(-1)!;
  const back = /Subtask \S+ (finished \(result from [^)]+\)|failed)[^\n]*\n?([\s\S]*)/.exec(text(last));
  if (back) return completion(body.model, { content: `Back from the subtask: ${back[0].slice(0, 200)}` }, "stop");
  if (last.role === "tool") {
    if (text(last).includes("has not registered")) return completion(body.model, { content: "The analyst is not there, so I did it myself: 7 orders." }, "stop");
    return completion(body.model, { content: "Waiting for the analyst." }, "stop");
  }
  const target = all.includes("[by-skill]") ? { requires: [SKILL] } : all.includes("[ghost]") ? { agent_id: "ext-ghost" } : { agent_id: EXT.slice("agent:".length) };
  return completion(body.model, toolCall("delegate", { ...target, title: "Count the orders", context_summary: "A person asked for the number of orders." }), "tool_calls");
}

beforeAll(async () => {
  model = await startScriptedModel(answer);
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "clutch-ws-"));
  fs.mkdirSync(path.join(dir, "agents"));
  fs.writeFileSync(
    path.join(dir, "agents", "lead-1.json"),
    JSON.stringify({ id: "lead-1", system_prompt: "You are lead-1.", allowed_agents: [EXT.slice("agent:".length), "ext-ghost"], delegate_rules: {}, overseer: null, mcp_bindings: [] }),
  );
  fs.writeFileSync(path.join(dir, "mcp.json"), JSON.stringify({ mcpServers: {} }));
  const channel = `ext-${newId("thread").slice(-8).toLowerCase()}`;
  fs.writeFileSync(path.join(dir, "workspace.json"), JSON.stringify({ channels: [{ name: channel, entry_agent: "lead-1", answers: "every_message" }] }));
  rt = await testClutch({
    workspaceDir: dir,
    dataDir: fs.mkdtempSync(path.join(os.tmpdir(), "clutch-data-")),
    modelFor: () => resolveModel({ provider: "openai-compatible", baseURL: model.baseURL, apiKey: "test-key", model: "lead-1" }),
  });
  await registerAgent(rt.store, rt.registry, { v: "clutch/0.1", agent_id: EXT, display: { name: "External analyst" }, capabilities: [{ id: SKILL, version: "1.0" }] });
  key = await testAgent(rt, EXT);
});
afterAll(async () => {
  await rt?.stop();
  model?.close();
});

/** What the external agent does with its key: accept the task and answer it, through POST /api/events. */
async function work(request: StoredEvent): Promise<void> {
  const at = { thread_id: request.thread_id, run_id: request.run_id, task_id: request.task_id, parent_task_id: request.parent_task_id ?? null, from: { agent_id: EXT, role: "worker" } };
  const body = [
    makeMessage({ type: "task.accept", ...at, to: [request.from], payload: { agent_id: EXT } }),
    makeMessage({ type: "task.result", ...at, to: [request.from], payload: { summary: "There are 5,009 orders." } }),
  ];
  const res = await postEvents(requestAs(key, "http://localhost:3000/api/events", { method: "POST", body: JSON.stringify(body), headers: { "content-type": "application/json" } }), { params: Promise.resolve({}) });
  expect(res.status, await res.clone().text()).toBe(201);
}

/** Polls GET /api/agents/:id/inbox with the external agent's key until `find` finds something. */
async function fromInbox(find: (events: StoredEvent[]) => StoredEvent | undefined): Promise<StoredEvent> {
  const end = Date.now() + 30_000;
  for (;;) {
    const res = await inbox(requestAs(key, `http://localhost:3000/api/agents/${encodeURIComponent(EXT)}/inbox?after=0&limit=5000`), { params: Promise.resolve({ agent_id: EXT }) });
    expect(res.status).toBe(200);
    const found = find(((await res.json()) as { events: StoredEvent[] }).events);
    if (found) return found;
    if (Date.now() > end) throw new Error("timed out waiting for the inbox");
    await new Promise((r) => setTimeout(r, 100));
  }
}

describe("a workspace agent delegating to an external agent", () => {
  for (const [tag, how] of [
    ["[by-id]", "by id"],
    ["[by-skill]", "by capability"],
  ] as const) {
    it(`reaches it ${how}, and the external agent's answer comes back to the delegator`, async () => {
      const thread_id = rt.channels[0]!.thread_id;
      const asked = await say(rt, thread_id, `${tag} How many orders are there?`);
      // The external agent finds the request in its inbox, as it would by polling over HTTP.
      const request = await fromInbox((evs) => evs.find((e) => e.type === "task.request" && e.ts >= asked.ts));
      expect(request.from.agent_id).toBe("agent:lead-1");
      expect(request.parent_task_id).toBeTruthy();
      const decision = await waitFor(rt, thread_id, "the routing decision", (evs) => evs.find((e) => e.type === "routing.decision" && e.task_id === request.task_id));
      expect(decision.payload).toMatchObject({ selected: EXT, mode: how === "by id" ? "fixed" : "capability" });
      await work(request);
      const result = await waitFor(rt, thread_id, "lead-1's result", (evs) => evs.find((e) => e.type === "task.result" && e.run_id === request.run_id && e.from.agent_id === "agent:lead-1"));
      expect(String(result.payload.summary)).toContain(`finished (result from ${EXT})`);
      expect(JSON.stringify(model.requests.at(-1)!.messages)).toContain("There are 5,009 orders.");
      expect((await runRow(rt, request.run_id)).state).toBe("succeeded");
    });
  }

  it("fails visibly when the allowed agent never registered, and the delegator carries on", async () => {
    const thread_id = rt.channels[0]!.thread_id;
    const asked = await say(rt, thread_id, "[ghost] How many orders are there?");
    const error = await waitFor(rt, thread_id, "the refused delegation", (evs) => evs.find((e) => e.type === "tool.error" && e.payload.tool === "delegate" && e.ts >= asked.ts));
    expect(String(error.payload.message)).toContain("agent:ext-ghost is in your allowed_agents but has not registered with Clutch");
    const result = await waitFor(rt, thread_id, "lead-1's own result", (evs) => evs.find((e) => e.type === "task.result" && e.run_id === error.run_id));
    expect(result.payload.summary).toBe("The analyst is not there, so I did it myself: 7 orders.");
  });
});
