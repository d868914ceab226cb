/**
 * Runs exported as OpenTelemetry traces (docs/observability.md "Traces (OpenTelemetry)"), checked
 * by a test OTLP receiver that decodes the protobuf requests with the OpenTelemetry proto
 * definitions (test/otlp-receiver.ts): span names, parent links, GenAI attributes and usage for a
 * run made of appended events; a run by a workspace agent on a scripted OpenAI-compatible model,
 * started by POST /api/threads/:id/messages with a `traceparent`, in the caller's trace (and runs
 * started over ACP and A2A with one); and a run whose start this process never saw, whose spans
 * are still ended from the store.
 */
import fs from "node:fs";
import http from "node:http";
import type { AddressInfo } from "node:net";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { newId, type ClutchMessage } from "@/lib/protocol";
import * as messagesRoute from "@/app/api/threads/[thread_id]/messages/route";
import * as acpRoute from "@/app/api/acp/route";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { z } from "zod";
import { resolveModel } from "@/server/agents/models";
import type { Clutch } from "@/server/clutch";
import { RunTracer } from "@/server/telemetry/tracer";
import { providerName, usageProvider } from "@/server/telemetry/attributes";
import { BUILTIN_PROVIDER } from "@/server/agents/models/builtin";
import { storeLookup } from "@/server/telemetry/export";
import { a2aApp } from "@/server/adapters/a2a/server";
import { spanIdOf, traceIdOf } from "@/server/telemetry/ids";
import { asAdmin, msg, newThread, runRow, testClutch, testPerson } from "./helpers";
import { completion, startScriptedModel, toolCall, type ChatRequest } from "./scripted-openai";
import { SPAN_KIND, STATUS_CODE, startOtlpReceiver, type ReceivedSpan } from "./otlp-receiver";

let rt: Clutch;
let receiver: Awaited<ReturnType<typeof startOtlpReceiver>>;
let model: Awaited<ReturnType<typeof startScriptedModel>>;

/** The scripted model: query the orders, then submit what the query returned. */
function answer(body: ChatRequest) {
  const tools = body.messages.filter((m) => m.role === "tool");
  if (tools.length === 0) return completion(body.model, toolCall("DataServer__query_data", { sql: "SELECT COUNT(*) AS n FROM orders" }, "call_q"), "tool_calls");
  if (tools.length === 1) return completion(body.model, toolCall("submit_result", { summary: "Counted." }, "call_s"), "tool_calls");
  return completion(body.model, { content: "Done." }, "stop");
}

beforeAll(async () => {
  receiver = await startOtlpReceiver();
  model = await startScriptedModel(answer);
  // The standard variables, read by the OpenTelemetry SDK (and a short batch delay for the test).
  process.env.OTEL_EXPORTER_OTLP_ENDPOINT = receiver.endpoint;
  process.env.OTEL_BSP_SCHEDULE_DELAY = "50";
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "clutch-ws-"));
  fs.mkdirSync(path.join(dir, "agents"));
  fs.writeFileSync(
    path.join(dir, "agents", "counter-1.json"),
    JSON.stringify({
      id: "counter-1",
      system_prompt: "You are CounterAgent, who counts orders.",
      allowed_agents: [],
      delegate_rules: {},
      overseer: null,
      mcp_bindings: [{ server_id: "DataServer", scopes: ["read:data"], allowed_tools: ["query_data"] }],
    }),
  );
  const channel = `otel-${newId("thread").slice(-8).toLowerCase()}`;
  fs.writeFileSync(path.join(dir, "workspace.json"), JSON.stringify({ mcp: path.resolve("examples/sales-analysis/mcp.json"), channels: [{ name: channel, entry_agent: "counter-1", answers: "every_message" }] }));
  rt = await testClutch({
    workspaceDir: dir,
    dataDir: fs.mkdtempSync(path.join(os.tmpdir(), "clutch-data-")),
    modelFor: () => resolveModel({ provider: "openai-compatible", baseURL: model.baseURL, apiKey: "test-key", model: "scripted-1" }),
  });
});
afterAll(async () => {
  await rt?.stop();
  receiver?.close();
  model?.close();
  delete process.env.OTEL_EXPORTER_OTLP_ENDPOINT;
  delete process.env.OTEL_BSP_SCHEDULE_DELAY;
});

/** Wait until `find` over the received spans gives something. */
async function received<T>(what: string, find: (spans: ReceivedSpan[]) => T | undefined | false, ms = 30_000): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const found = find(receiver.spans);
    if (found) return found;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}; received: ${receiver.spans.map((s) => s.name).join(", ")}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

const card = (agent_id: string, name: string) => ({ v: "clutch/0.1" as const, agent_id, display: { name }, capabilities: [{ id: "skill:analysis", version: "1.0" }] });

/** A run of two agents, made of appended events: tasks, a subtask that fails, model calls, tools, an approval and a question. */
function appendedRun(thread_id: string) {
  const run_id = newId("run");
  const A = newId("task");
  const B = newId("task");
  const suffix = newId("task").slice(-6).toLowerCase();
  const planner = `agent:planner-${suffix}`;
  const analyst = `agent:analyst-${suffix}`;
  const dana = { agent_id: "user:dana", role: "human", display_name: "Dana" };
  const T0 = Date.now() - 60_000;
  const at = (s: number) => new Date(T0 + s * 1000).toISOString();
  const approval_id = `apr_${newId("task").slice(5)}`;
  const question = msg("chat.message", { text: "Which quarter?", expects_reply: true }, { thread_id, run_id, task_id: A, from: { agent_id: planner, role: "worker" }, to: [{ agent_id: "user" }], ts: at(16) });
  const inA = { thread_id, run_id, task_id: A, from: { agent_id: planner, role: "worker" } };
  const inB = { thread_id, run_id, task_id: B, parent_task_id: A, from: { agent_id: analyst, role: "worker" } };
  const events: ClutchMessage[] = [
    msg("agent.register", { card: card(planner, "Planner Pat") }, { thread_id, run_id: newId("run"), from: { agent_id: planner, role: "worker" } }),
    msg("agent.register", { card: card(analyst, "Analyst Ana") }, { thread_id, run_id: newId("run"), from: { agent_id: analyst, role: "worker" } }),
    msg("task.request", { title: "Count the orders" }, { thread_id, run_id, task_id: A, from: dana, to: [{ agent_id: planner }], meta: { requested_by: "user:dana" }, ts: at(0) }),
    // The node that did the work (meta.node, CLUTCH_NODE_NAME): node-a, and node-b after a failover.
    msg("task.accept", {}, { ...inA, meta: { node: "node-a" }, ts: at(1) }),
    msg("model.usage", { model: "gpt-4o-mini", provider: "openai", input_tokens: 120, output_tokens: 30, cached_input_tokens: 20, latency_ms: 1500, finish_reason: "tool_calls", step: 1 }, { ...inA, meta: { node: "node-a" }, ts: at(3) }),
    msg("tool.call", { call_id: "call_1", tool: "query_data", server_id: "DataServer", arguments: { sql: "SELECT 1" } }, { ...inA, ts: at(4) }),
    msg("tool.result", { call_id: "call_1", tool: "query_data", server_id: "DataServer", result: { rows: 1 }, duration_ms: 2000 }, { ...inA, meta: { node: "node-b" }, ts: at(6) }),
    msg("task.request", { title: "Check the totals" }, { ...inA, task_id: B, parent_task_id: A, to: [{ agent_id: analyst }], ts: at(7) }),
    msg("task.accept", {}, { ...inB, ts: at(8) }),
    msg("tool.call", { call_id: "call_2", tool: "read_file", server_id: "Files" }, { ...inB, ts: at(9) }),
    msg("tool.error", { call_id: "call_2", tool: "read_file", server_id: "Files", code: "TOOL_ERROR", message: "no such file" }, { ...inB, ts: at(10) }),
    msg("task.error", { code: "ANALYSIS_FAILED", message: "the totals do not add up", retryable: false }, { ...inB, to: [{ agent_id: planner }], ts: at(11) }),
    msg(
      "approval.requested",
      { approval_id, subject: { kind: "tool_call", agent: planner, tool: "send_report" }, approvers: "any", summary: "Send the report to finance", expires_at: new Date(T0 + 3_600_000).toISOString(), rule: "reports-need-approval" },
      { ...inA, from: { agent_id: "agent:orchestrator", role: "orchestrator" }, ts: at(12) },
    ),
    msg("approval.granted", { approval_id, by: "user:dana", display_name: "Dana" }, { ...inA, from: dana, ts: at(15) }),
    question,
    msg("chat.message", { text: "Q3", reply_to: question.id }, { ...inA, from: dana, to: [{ agent_id: planner }], ts: at(20) }),
    msg("model.usage", { model: "gpt-4o-mini", provider: "openai", input_tokens: 200, output_tokens: 50, latency_ms: 800, finish_reason: "stop", step: 2 }, { ...inA, ts: at(22) }),
    msg("task.result", { summary: "There are 42 orders." }, { ...inA, to: [{ agent_id: "user:dana" }], ts: at(23) }),
  ];
  return { run_id, A, B, planner, analyst, T0, events };
}

describe("OpenTelemetry traces of runs", () => {
  it("exports a run of appended events as one trace: the run, its tasks and subtask, model calls, tools and people's waits, with GenAI attributes", async () => {
    const thread_id = await newThread(rt, "otel");
    const { run_id, A, B, planner, analyst, T0, events } = appendedRun(thread_id);
    await rt.store.append(events);

    const spans = await received("the run's 9 spans", (all) => {
      const mine = all.filter((s) => s.attributes["clutch.run_id"] === run_id);
      return mine.length >= 9 && mine;
    });
    expect(spans).toHaveLength(9);
    const byName = (name: string) => spans.filter((s) => s.name === name);
    const one = (name: string) => {
      const found = byName(name);
      expect(found, name).toHaveLength(1);
      return found[0]!;
    };

    // One trace, its id from the run id; the run is the root.
    expect(new Set(spans.map((s) => s.traceId))).toEqual(new Set([traceIdOf(run_id)]));
    const run = one("invoke_workflow Count the orders");
    expect(run.parentSpanId).toBe("");
    expect(run.kind).toBe(SPAN_KIND.INTERNAL);
    expect(run.attributes).toMatchObject({ "gen_ai.operation.name": "invoke_workflow", "clutch.run_id": run_id, "clutch.thread_id": thread_id, "gen_ai.conversation.id": thread_id, "clutch.run.state": "succeeded", "clutch.run.requested_by": "user:dana" });
    expect([run.startMs - T0, run.endMs - T0]).toEqual([0, 23_000]);
    expect(run.resource["service.name"]).toBe("clutch");
    expect(run.scope).toBe("clutch");

    // Tasks under the run, the subtask under its parent; agents by their cards' display names.
    const taskA = one("invoke_agent Planner Pat");
    expect(taskA.parentSpanId).toBe(run.spanId);
    expect(taskA.attributes).toMatchObject({ "gen_ai.operation.name": "invoke_agent", "gen_ai.agent.id": planner, "gen_ai.agent.name": "Planner Pat", "clutch.task_id": A, "clutch.task.state": "succeeded", "clutch.task.title": "Count the orders" });
    expect([taskA.startMs - T0, taskA.endMs - T0]).toEqual([0, 23_000]);
    expect(taskA.status.code).toBe(STATUS_CODE.UNSET);
    expect(taskA.events).toContain("task.accept");
    // Where the work went: host.name from the events' meta.node; none where the events name no node.
    expect(taskA.attributes["host.name"]).toBe("node-a");
    expect(one("execute_tool query_data").attributes["host.name"]).toBe("node-b");
    const taskB = one("invoke_agent Analyst Ana");
    expect(taskB.parentSpanId).toBe(taskA.spanId);
    expect(taskB.attributes).toMatchObject({ "clutch.task_id": B, "clutch.parent_task_id": A, "clutch.task.state": "failed", "error.type": "ANALYSIS_FAILED", "gen_ai.agent.id": analyst });
    expect(taskB.attributes["host.name"]).toBeUndefined();
    expect(taskB.status).toEqual({ code: STATUS_CODE.ERROR, message: "ANALYSIS_FAILED: the totals do not add up" });

    // Model calls: chat spans under the task, started latency_ms before the event, with usage.
    const chats = byName("chat gpt-4o-mini").sort((a, b) => a.startMs - b.startMs);
    expect(chats).toHaveLength(2);
    for (const c of chats) expect(c.parentSpanId).toBe(taskA.spanId);
    expect(chats[0]!.kind).toBe(SPAN_KIND.CLIENT);
    expect([chats[0]!.startMs - T0, chats[0]!.endMs - T0]).toEqual([1500, 3000]);
    expect(chats[0]!.attributes).toMatchObject({
      "gen_ai.operation.name": "chat",
      "gen_ai.provider.name": "openai",
      "gen_ai.request.model": "gpt-4o-mini",
      "gen_ai.response.model": "gpt-4o-mini",
      "gen_ai.usage.input_tokens": 120,
      "gen_ai.usage.output_tokens": 30,
      "gen_ai.usage.cache_read.input_tokens": 20,
      "gen_ai.response.finish_reasons": ["tool_calls"],
      "gen_ai.agent.name": "Planner Pat",
      "clutch.task_id": A,
      "clutch.step": 1,
      "host.name": "node-a",
    });
    expect(chats[1]!.attributes).toMatchObject({ "gen_ai.usage.input_tokens": 200, "gen_ai.usage.output_tokens": 50, "gen_ai.response.finish_reasons": ["stop"] });

    // Tool calls (MCP servers' tools) under their task; a failed one is an error.
    const query = one("execute_tool query_data");
    expect(query.parentSpanId).toBe(taskA.spanId);
    expect(query.attributes).toMatchObject({ "gen_ai.operation.name": "execute_tool", "gen_ai.tool.name": "query_data", "gen_ai.tool.call.id": "call_1", "gen_ai.tool.type": "extension", "clutch.tool.server_id": "DataServer" });
    expect([query.startMs - T0, query.endMs - T0]).toEqual([4000, 6000]);
    const read = one("execute_tool read_file");
    expect(read.parentSpanId).toBe(taskB.spanId);
    expect(read.status).toEqual({ code: STATUS_CODE.ERROR, message: "TOOL_ERROR: no such file" });

    // People's waits: the approval and the question, each its own span under the task.
    const approval = one("await_approval send_report");
    expect(approval.parentSpanId).toBe(taskA.spanId);
    expect(approval.attributes).toMatchObject({ "clutch.wait": "approval", "clutch.wait.outcome": "granted", "clutch.approval.decided_by": "user:dana", "clutch.approval.summary": "Send the report to finance" });
    expect([approval.startMs - T0, approval.endMs - T0]).toEqual([12_000, 15_000]);
    const wait = one("await_answer");
    expect(wait.parentSpanId).toBe(taskA.spanId);
    expect(wait.attributes).toMatchObject({ "clutch.wait": "answer", "clutch.wait.outcome": "answered", "clutch.answered_by": "user:dana", "clutch.question.to": ["user"] });
    expect([wait.startMs - T0, wait.endMs - T0]).toEqual([16_000, 20_000]);

    expect(receiver.requests.every((r) => r.path === "/v1/traces" && r.contentType === "application/x-protobuf")).toBe(true);
  });

  it("puts a run started by POST /api/threads/:id/messages with a traceparent in the caller's trace, under the caller's span; the workspace agent's task, tool and model calls under the run", async () => {
    const thread_id = rt.channels[0]!.thread_id;
    const callerTrace = "4bf92f3577b34da6a3ce929d0e0e4736";
    const callerSpan = "00f067aa0ba902b7";
    const req = await asAdmin(`http://localhost/api/threads/${thread_id}/messages`, {
      method: "POST",
      headers: { "content-type": "application/json", traceparent: `00-${callerTrace}-${callerSpan}-01`, tracestate: "vendor=abc" },
      body: JSON.stringify({ text: "How many order lines are there?" }),
    });
    const res = await messagesRoute.POST(req, { params: Promise.resolve({ thread_id }) });
    expect(res.status).toBe(201);

    const run = await received("the run's span", (all) => all.find((s) => s.traceId === callerTrace && s.name.startsWith("invoke_workflow ")), 90_000);
    expect(run.name).toBe("invoke_workflow How many order lines are there?");
    expect(run.parentSpanId).toBe(callerSpan);
    expect(run.kind).toBe(SPAN_KIND.SERVER);
    const run_id = run.attributes["clutch.run_id"] as string;
    expect((await runRow(rt, run_id)).state).toBe("succeeded");
    // The caller's context is on the run's first request, where every node reads it.
    const [root] = await rt.store.queries.rootRequests(run_id, 1);
    expect(root!.meta?.trace).toEqual({ traceparent: `00-${callerTrace}-${callerSpan}-01`, tracestate: "vendor=abc" });

    const name = rt.registry.get("agent:counter-1")!.card.display.name;
    const task = await received("the agent's task span", (all) => all.find((s) => s.traceId === callerTrace && s.name === `invoke_agent ${name}`));
    expect(task.parentSpanId).toBe(run.spanId);
    expect(task.attributes).toMatchObject({ "gen_ai.agent.id": "agent:counter-1", "gen_ai.agent.name": name, "clutch.run_id": run_id, "clutch.task.state": "succeeded" });
    // The MCP tool the model called (submit_result is the task.result itself, not a tool.call).
    const tools = receiver.spans.filter((s) => s.traceId === callerTrace && s.name.startsWith("execute_tool "));
    expect(tools.map((t) => t.name)).toEqual(["execute_tool query_data"]);
    expect(tools[0]!.parentSpanId).toBe(task.spanId);
    expect(tools[0]!.attributes).toMatchObject({ "gen_ai.tool.name": "query_data", "gen_ai.tool.type": "extension", "clutch.tool.server_id": "DataServer", "gen_ai.agent.id": "agent:counter-1" });
    expect(tools[0]!.status.code).toBe(STATUS_CODE.UNSET);
    // The agent's model calls (its model.usage after each): a chat span each, under its task, with the usage the model reported.
    const chats = receiver.spans.filter((s) => s.traceId === callerTrace && s.name.startsWith("chat "));
    expect(chats.map((c) => c.name)).toEqual(["chat scripted-1", "chat scripted-1"]);
    for (const c of chats) {
      expect(c.parentSpanId).toBe(task.spanId);
      expect(c.attributes).toMatchObject({ "gen_ai.operation.name": "chat", "gen_ai.request.model": "scripted-1", "gen_ai.usage.input_tokens": 10, "gen_ai.usage.output_tokens": 5, "gen_ai.agent.id": "agent:counter-1" });
      // A local OpenAI-compatible server: the spec's name as a custom provider name, the AI SDK's id beside it.
      expect(c.attributes).toMatchObject({ "gen_ai.provider.name": "openai-compatible", "clutch.model.provider": "openai-compatible.chat" });
    }
    expect(receiver.spans.filter((s) => s.attributes["clutch.run_id"] === run_id).every((s) => s.traceId === callerTrace)).toBe(true);
  });

  it("puts a run started by an ACP agents/run call with a traceparent under the caller's span", async () => {
    const dana = await testPerson(rt, "member", "Dana");
    const callerTrace = "0af7651916cd43dd8448eb211c80319c";
    const callerSpan = "b7ad6b7169203331";
    const client = new Client({ name: "otel-test", version: "1.0.0" });
    const viaRoute = (url: string | URL, init?: RequestInit) => acpRoute.POST(new Request(url, init), undefined as never);
    const headers = { authorization: `Bearer ${dana.key}`, traceparent: `00-${callerTrace}-${callerSpan}-01` };
    await client.connect(new StreamableHTTPClientTransport(new URL("http://test/api/acp"), { fetch: viaRoute, requestInit: { headers } }));
    try {
      const Result = z.object({ output: z.object({ run_id: z.string(), status: z.string() }) });
      const { output } = await client.request({ method: "agents/run", params: { name: "counter-1", input: { text: "Count the order lines" } } }, Result, { timeout: 90_000 });
      expect(output.status).toBe("succeeded");
      const run = await received("the ACP run's span", (all) => all.find((s) => s.attributes["clutch.run_id"] === output.run_id && s.name.startsWith("invoke_workflow ")));
      expect(run.traceId).toBe(callerTrace);
      expect(run.parentSpanId).toBe(callerSpan);
      expect(run.attributes["clutch.run.requested_by"]).toBe(dana.agent_id);
    } finally {
      await client.close();
    }
  });

  it("puts a run started by an A2A message/send with a traceparent under the caller's span", async () => {
    const lee = await testPerson(rt, "member", "Lee");
    const server = http.createServer();
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
    const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    server.on("request", a2aApp(rt, base));
    const callerTrace = "5b8efff798038103d269b633813fc60c";
    const callerSpan = "eee19b7ec3c1b174";
    try {
      const res = await fetch(`${base}/a2a/agents/counter-1`, {
        method: "POST",
        headers: { "content-type": "application/json", authorization: `Bearer ${lee.key}`, traceparent: `00-${callerTrace}-${callerSpan}-01` },
        body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "message/send", params: { message: { kind: "message", role: "user", messageId: crypto.randomUUID(), parts: [{ kind: "text", text: "Count the order lines" }] } } }),
      });
      const sent = (await res.json()) as { result?: { status: { state: string }; metadata: { clutch: { run_id: string } } } };
      expect(sent.result?.status.state).toBe("completed");
      const run_id = sent.result!.metadata.clutch.run_id;
      const run = await received("the A2A run's span", (all) => all.find((s) => s.attributes["clutch.run_id"] === run_id && s.name.startsWith("invoke_workflow ")));
      expect(run.traceId).toBe(callerTrace);
      expect(run.parentSpanId).toBe(callerSpan);
      expect(run.attributes["clutch.run.requested_by"]).toBe(lee.agent_id);
    } finally {
      server.closeAllConnections();
      server.close();
    }
  });

  it("ends the spans of a run whose opening events it never saw from the store: real start, parent and ids", async () => {
    const thread_id = await newThread(rt, "otel");
    const { run_id, A, events } = appendedRun(thread_id);
    const stored = (await rt.store.append(events)).events;
    // A tracer that starts following mid-run (a node taking over): it sees only the last events.
    const late = new RunTracer(storeLookup(rt.store), (id) => rt.registry.get(id)?.card.display.name);
    const spans = [];
    for (const ev of stored.slice(-2)) spans.push(...(await late.apply(ev)));
    expect(spans.map((s) => s.name).sort()).toEqual(["chat gpt-4o-mini", "invoke_agent Planner Pat", "invoke_workflow Count the orders"]);
    const task = spans.find((s) => s.name.startsWith("invoke_agent"))!;
    expect(task.spanId).toBe(spanIdOf("task", run_id, A));
    expect(task.parent).toEqual({ spanId: spanIdOf("run", run_id), remote: false });
    expect(task.startMs).toBe(Date.parse(events.find((e) => e.type === "task.request")!.ts));
    const chat = spans.find((s) => s.name.startsWith("chat"))!;
    expect(chat.parent?.spanId).toBe(task.spanId);
    expect(new Set(spans.map((s) => s.traceId))).toEqual(new Set([traceIdOf(run_id)]));
  });
});

describe("gen_ai.provider.name", () => {
  it("names the AI SDK's providers by the GenAI conventions' well-known values, else by a custom value", () => {
    expect(providerName("openai.chat")).toBe("openai");
    expect(providerName("anthropic.messages")).toBe("anthropic");
    expect(providerName("azure.chat")).toBe("azure.ai.openai");
    expect(providerName("amazon-bedrock")).toBe("aws.bedrock");
    expect(providerName("google.generative-ai")).toBe("gcp.gemini");
    // Custom values: Clutch's built-in model whole, an OpenAI-compatible endpoint by its spec's name.
    expect(providerName(BUILTIN_PROVIDER)).toBe("clutch.builtin");
    expect(providerName("openai-compatible.chat")).toBe("openai-compatible");
    expect(providerName("ollama.chat")).toBe("ollama");
  });

  it("records an OpenAI-compatible model at OpenAI's API (or another known provider's) under that provider; other endpoints and chosen names as they are", () => {
    const compatible = (baseURL: string, name?: string) =>
      resolveModel({ provider: "openai-compatible", baseURL, apiKey: "sk-test", model: "gpt-4o-mini", ...(name ? { name } : {}) }, {});
    const openai = compatible("https://api.openai.com/v1");
    expect(openai.provider).toBe("openai-compatible.chat");
    expect(usageProvider(openai)).toBe("openai.chat");
    expect(providerName(usageProvider(openai))).toBe("openai");
    expect(providerName(usageProvider(compatible("https://clutch-test.openai.azure.com/openai/v1")))).toBe("azure.ai.openai");
    expect(usageProvider(compatible("http://127.0.0.1:11434/v1"))).toBe("openai-compatible.chat");
    expect(usageProvider(compatible("https://api.openai.com/v1", "team-proxy"))).toBe("team-proxy.chat");
    const anthropic = resolveModel({ provider: "anthropic", apiKey: "sk-test", model: "claude-sonnet-4-5" }, {});
    expect(providerName(usageProvider(anthropic))).toBe("anthropic");
    expect(usageProvider({ provider: BUILTIN_PROVIDER, modelId: "builtin" })).toBe("clutch.builtin");
  });
});
