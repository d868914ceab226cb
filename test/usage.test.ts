/**
 * What a run cost (docs/observability.md): every model call of a workspace agent is a
 * `model.usage` event with the provider's token counts (an OpenAI-compatible endpoint's `usage`
 * and the Anthropic Messages shape), priced with workspace.json's prices in the run summary and
 * the fold; budgets from the policy end a task (BUDGET_EXCEEDED) or ask a person to go on; a
 * usage report with bad counts is refused with the field; a bad price table refuses the
 * workspace, and a bad reload keeps the last good one. Real agent loop, real PostgreSQL, local
 * scripted model servers.
 */
import fs from "node:fs";
import http from "node:http";
import type { AddressInfo } from "node:net";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { newId, PROTOCOL_VERSION, type StoredEvent } from "@/lib/protocol";
import { foldUsage, totalsOfRows } from "@/lib/fold/usage";
import { resolveModel } from "@/server/agents/models";
import type { Clutch } from "@/server/clutch";
import { threadRuns } from "@/server/events/runs";
import { PriceBook } from "@/server/usage/prices";
import { loadWorkspace } from "@/server/workspace/workspace";
import * as eventsRoute from "@/app/api/events/route";
import * as pricesRoute from "@/app/api/usage/prices/route";
import * as agentUsageRoute from "@/app/api/agents/[agent_id]/usage/route";
import { say, threadEvents, waitFor } from "./agents";
import { approver, requestAs, testAgent, testClutch } from "./helpers";
import { completion, startScriptedModel, toolCall, type ChatRequest } from "./scripted-openai";

let rt: Clutch;
let openai: Awaited<ReturnType<typeof startScriptedModel>>;
let anthropic: http.Server;
let anthropicURL: string;
let dir: string;
const channels: Record<string, string> = {};
/** The counter's run, once the first test made it. */
let tallyRun = "";

/** A chat.completion with OpenAI's usage shape: 10 prompt tokens (4 from the cache), 5 completion tokens. */
const reply = (model: string, message: Record<string, unknown>, finish: "tool_calls" | "stop") =>
  completion(model, message, finish, { prompt_tokens: 10, completion_tokens: 5, total_tokens: 15, prompt_tokens_details: { cached_tokens: 4 } });

const query = () => toolCall("DataServer__query_data", { sql: "SELECT COUNT(*) AS n FROM orders" });

/** count-model: one query, then its result. spend-model: queries for ever. ask-model: six queries, then its result. */
function answer(body: ChatRequest) {
  const done = body.messages.filter((m) => m.role === "tool").length;
  if (body.model === "count-model") return done ? reply(body.model, toolCall("submit_result", { summary: "9994 order lines." }), "tool_calls") : reply(body.model, query(), "tool_calls");
  if (body.model === "ask-model" && done >= 6) return reply(body.model, toolCall("submit_result", { summary: "Counted six times." }), "tool_calls");
  return reply(body.model, query(), "tool_calls");
}

function manifest(id: string, prompt: string) {
  return {
    id,
    system_prompt: prompt,
    allowed_agents: [],
    delegate_rules: {},
    overseer: null,
    mcp_bindings: [{ server_id: "DataServer", scopes: ["read:data"], allowed_tools: ["query_data"] }],
  };
}

const MODEL_OF: Record<string, string> = { "tally-1": "count-model", "spender-1": "spend-model", "asker-1": "ask-model" };

beforeAll(async () => {
  openai = await startScriptedModel(answer);
  // The Anthropic Messages API: a text answer with input, output and cache-read tokens.
  anthropic = http.createServer((req, res) => {
    let raw = "";
    req.on("data", (c) => (raw += c));
    req.on("end", () => {
      const body = JSON.parse(raw) as { model: string; stream?: boolean };
      if (body.stream) {
        // The same answer as the Messages API streams it (the agent runner streams its calls).
        const usage = { input_tokens: 20, output_tokens: 1, cache_read_input_tokens: 6, cache_creation_input_tokens: 0 };
        const events = [
          { type: "message_start", message: { id: "msg_01", type: "message", role: "assistant", model: body.model, content: [], stop_reason: null, stop_sequence: null, usage } },
          { type: "content_block_start", index: 0, content_block: { type: "text", text: "" } },
          { type: "content_block_delta", index: 0, delta: { type: "text_delta", text: "There are 9994 order lines." } },
          { type: "content_block_stop", index: 0 },
          { type: "message_delta", delta: { stop_reason: "end_turn", stop_sequence: null }, usage: { output_tokens: 9 } },
          { type: "message_stop" },
        ];
        res.writeHead(200, { "content-type": "text/event-stream" });
        res.end(events.map((e) => `event: ${e.type}\ndata: ${JSON.stringify(e)}\n\n`).join(""));
        return;
      }
      res.writeHead(200, { "content-type": "application/json" });
      res.end(
        JSON.stringify({
          id: "msg_01",
          type: "message",
          role: "assistant",
          model: body.model,
          content: [{ type: "text", text: "There are 9994 order lines." }],
          stop_reason: "end_turn",
          stop_sequence: null,
          usage: { input_tokens: 20, output_tokens: 9, cache_read_input_tokens: 6, cache_creation_input_tokens: 0 },
        }),
      );
    });
  });
  await new Promise<void>((r) => anthropic.listen(0, "127.0.0.1", r));
  anthropicURL = `http://127.0.0.1:${(anthropic.address() as AddressInfo).port}/v1`;

  dir = fs.mkdtempSync(path.join(os.tmpdir(), "clutch-usage-"));
  fs.mkdirSync(path.join(dir, "agents"));
  for (const id of ["tally-1", "spender-1", "asker-1", "claude-1"]) {
    fs.writeFileSync(path.join(dir, "agents", `${id}.json`), JSON.stringify(manifest(id, `You are ${id}.`)));
  }
  const suffix = newId("thread").slice(-6).toLowerCase();
  for (const id of ["tally-1", "spender-1", "asker-1", "claude-1"]) channels[id] = `${id.replace("-1", "")}-${suffix}`;
  fs.writeFileSync(
    path.join(dir, "workspace.json"),
    JSON.stringify({
      mcp: path.resolve("examples/sales-analysis/mcp.json"),
      channels: Object.entries(channels).map(([agent, name]) => ({ name, entry_agent: agent, answers: "every_message" })),
      prices: { currency: "USD", models: { "count-model": { input: 2, output: 10, cached_input: 1 }, "claude-scripted": { input: 3, output: 15 } } },
    }),
  );
  fs.writeFileSync(
    path.join(dir, "clutch.policy.yaml"),
    [
      "version: 1",
      "budgets:",
      "  - id: spender-task-cap",
      "    match: { agent: spender-1 }",
      "    per: task",
      "    max_tokens: 40",
      "    reason: Spending is capped per task",
      "  - id: asker-run-cap",
      "    match: { agent: asker-1 }",
      "    per: run",
      "    max_tokens: 40",
      "    on_exceed: require_approval",
      "",
    ].join("\n"),
  );
  rt = await testClutch({
    workspaceDir: dir,
    dataDir: fs.mkdtempSync(path.join(os.tmpdir(), "clutch-data-")),
    modelFor: (agent) =>
      agent.manifest.id === "claude-1"
        ? resolveModel({ provider: "anthropic", model: "claude-scripted", apiKey: "sk-ant-local", baseURL: anthropicURL })
        : resolveModel({ provider: "openai-compatible", baseURL: openai.baseURL, apiKey: "test-key", model: MODEL_OF[agent.manifest.id]! }),
  });
});
afterAll(async () => {
  await rt?.stop();
  openai?.close();
  anthropic?.close();
});

const threadOf = (agent: string) => rt.channels.find((c) => c.name === channels[agent])!.thread_id;
const usageEvents = (events: StoredEvent[]) => events.filter((e) => e.type === "model.usage");

describe("usage of model calls", () => {
  it("records each call of an OpenAI-compatible model with its tokens, cached tokens, latency and finish reason, and prices the run", async () => {
    const thread_id = threadOf("tally-1");
    await say(rt, thread_id, "How many order lines are there?");
    const result = await waitFor(rt, thread_id, "the result", (evs) => evs.find((e) => e.type === "task.result"));
    await rt.runner.idle();
    const events = await threadEvents(rt, thread_id);
    const usage = usageEvents(events);
    expect(usage).toHaveLength(2);
    expect(usage[0]!.payload).toMatchObject({ model: "count-model", input_tokens: 10, output_tokens: 5, cached_input_tokens: 4, finish_reason: "tool-calls", step: 1 });
    expect(usage[0]!.payload.latency_ms).toEqual(expect.any(Number));
    expect(usage[0]!.from.agent_id).toBe("agent:tally-1");
    expect(usage[0]!.task_id).toBe(result.task_id);
    // Each call is recorded before what the model asked for.
    const firstCall = events.find((e) => e.type === "tool.call")!;
    expect(usage[0]!.seq).toBeLessThan(firstCall.seq);

    tallyRun = result.run_id;
    const card = (await threadRuns(rt.store.queries, thread_id)).find((r) => r.run_id === result.run_id)!;
    expect(card.usage).toEqual([{ model: "count-model", calls: 2, input_tokens: 20, output_tokens: 10, cached_input_tokens: 8, model_ms: expect.any(Number) }]);
    const prices = rt.prices.current();
    const totals = totalsOfRows(card.usage, prices);
    // ((10 − 4) × 2 + 4 × 1 + 5 × 10) / 1e6 per call, two calls.
    expect(totals.cost).toBeCloseTo(0.000132, 9);

    // The fold gives the same figures per task, per agent and for the run.
    const folded = foldUsage(events.filter((e) => e.run_id === result.run_id), prices);
    expect(folded.run).toMatchObject({ calls: 2, input_tokens: 20, output_tokens: 10, cached_input_tokens: 8, unpriced_calls: 0 });
    expect(folded.run.cost).toBeCloseTo(0.000132, 9);
    expect(folded.tasks.get(result.task_id)).toMatchObject({ calls: 2, agent_id: "agent:tally-1" });
    expect(folded.agents.map((a) => [a.agent_id, a.models, a.calls])).toEqual([["agent:tally-1", ["count-model"], 2]]);
    expect(folded.run.tool_ms).toBeGreaterThanOrEqual(0);
  });

  it("records the Anthropic Messages shape: input, output and cache-read tokens", async () => {
    const thread_id = threadOf("claude-1");
    await say(rt, thread_id, "How many order lines are there?");
    await waitFor(rt, thread_id, "the result", (evs) => evs.find((e) => e.type === "task.result"));
    await rt.runner.idle();
    const [usage] = usageEvents(await threadEvents(rt, thread_id));
    expect(usage!.payload).toMatchObject({ model: "claude-scripted", finish_reason: "stop", output_tokens: 9, cached_input_tokens: 6 });
    // The AI SDK counts Anthropic's cache reads into the input tokens.
    expect(usage!.payload.input_tokens).toBeGreaterThanOrEqual(20);
  });

  it("ends a task that reached its budget with BUDGET_EXCEEDED and a policy.decision naming the budget", async () => {
    const thread_id = threadOf("spender-1");
    await say(rt, thread_id, "Count the orders, again and again.");
    const error = await waitFor(rt, thread_id, "the budget stop", (evs) => evs.find((e) => e.type === "task.error"));
    expect(error.payload).toMatchObject({ code: "BUDGET_EXCEEDED", retryable: false, details: { budget: "spender-task-cap", used: { tokens: 45 }, limit: { max_tokens: 40 } } });
    expect(String(error.payload.message)).toMatch(/^Spending is capped per task: spender-1 has used 45 tokens this task; the budget spender-task-cap allows 40 tokens/);
    const events = await threadEvents(rt, thread_id);
    expect(usageEvents(events)).toHaveLength(3); // 15 tokens a call: the fourth call is never made
    const decision = events.find((e) => e.type === "policy.decision" && (e.payload as { subject: { kind: string } }).subject.kind === "model_call")!;
    expect(decision.payload).toMatchObject({ decision: "deny", rule: "spender-task-cap", subject: { kind: "model_call", agent: "agent:spender-1" } });
    expect(decision.seq).toBeLessThan(error.seq);
  });

  it("asks a person to let a run over its budget go on, and goes on once approved", async () => {
    const thread_id = threadOf("asker-1");
    await say(rt, thread_id, "Count the orders six times.");
    const requested = await waitFor(rt, thread_id, "the approval request", (evs) => evs.find((e) => e.type === "approval.requested"), 20_000).catch(async (err) => {
      console.log((await threadEvents(rt, thread_id)).map((e) => `${e.seq} ${e.type} ${e.from.agent_id} ${JSON.stringify(e.payload).slice(0, 160)}`).join("\n"));
      throw err;
    });
    expect(requested.payload).toMatchObject({ subject: { kind: "model_call", agent: "agent:asker-1" }, rule: "asker-run-cap" });
    expect(String(requested.payload.summary)).toBe("asker-1 has used 45 tokens this run, over the budget of 40 tokens; approve to let it go on");
    await new Promise((r) => setTimeout(r, 500));
    expect(usageEvents(await threadEvents(rt, thread_id))).toHaveLength(3); // it waits: no call while nobody decided
    await rt.approvals.decide(String(requested.payload.approval_id), { decision: "approve" }, approver("Dana"));
    // Approved: one more tranche (up to 80 tokens); before its seventh call (90 tokens) it asks again.
    const second = await waitFor(rt, thread_id, "the second approval request", (evs) => evs.filter((e) => e.type === "approval.requested")[1], 20_000).catch(async (err) => {
      console.log((await threadEvents(rt, thread_id)).map((e) => `${e.seq} ${e.type} ${e.from.agent_id} ${JSON.stringify(e.payload).slice(0, 160)}`).join("\n"));
      throw err;
    });
    expect(String(second.payload.summary)).toMatch(/has used 90 tokens this run, over the budget of 80 tokens/);
    await rt.approvals.decide(String(second.payload.approval_id), { decision: "approve" }, approver("Dana"));
    const result = await waitFor(rt, thread_id, "the result", (evs) => evs.find((e) => e.type === "task.result"));
    expect(result.payload.summary).toBe("Counted six times.");
    expect(usageEvents(await threadEvents(rt, thread_id))).toHaveLength(7);
  });

  it("folds as of a replay position: an open tool call counts up to the last event folded", async () => {
    const thread_id = threadOf("tally-1");
    const events = (await threadEvents(rt, thread_id)).filter((e) => e.run_id === tallyRun);
    const call = events.findIndex((e) => e.type === "tool.call");
    const before = foldUsage(events.slice(0, call), rt.prices.current());
    expect(before.run.calls).toBe(1);
    const all = foldUsage(events, rt.prices.current());
    expect(all.run.calls).toBe(2);
  });
});

describe("usage reports and the usage routes", () => {
  it("refuses a usage report with a negative or non-numeric count, naming the field, and stores nothing", async () => {
    const agent = await testAgent(rt, "agent:reporter");
    const thread_id = threadOf("tally-1");
    const base = { v: PROTOCOL_VERSION, id: newId("message"), ts: new Date().toISOString(), thread_id, run_id: newId("run"), task_id: newId("task"), from: { agent_id: "agent:reporter" }, to: [], type: "model.usage" };
    const before = (await threadEvents(rt, thread_id)).length;
    for (const [payload, field] of [
      [{ model: "m", input_tokens: -1, output_tokens: 2, latency_ms: 5 }, "payload.input_tokens"],
      [{ model: "m", input_tokens: 1, output_tokens: "many", latency_ms: 5 }, "payload.output_tokens"],
    ] as const) {
      const res = await eventsRoute.POST(requestAs(agent, "http://test/api/events", { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ ...base, payload }) }), undefined as never);
      expect(res.status).toBe(400);
      expect(JSON.stringify(await res.json())).toContain(field.split(".")[1]);
    }
    expect((await threadEvents(rt, thread_id)).length).toBe(before);
    // A good report from an external agent for its own task is stored like any other.
    const ok = await eventsRoute.POST(
      requestAs(agent, "http://test/api/events", { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ ...base, payload: { model: "their-model", input_tokens: 100, output_tokens: 20, latency_ms: 800 } }) }),
      undefined as never,
    );
    expect(ok.status).toBe(201);
  });

  it("serves the prices with the built-in model at zero, and an agent's last 7 days", async () => {
    const agent = await testAgent(rt, "agent:reader");
    const prices = await (await pricesRoute.GET(requestAs(agent, "http://test/api/usage/prices"), undefined as never)).json();
    expect(prices).toMatchObject({ currency: "USD", models: { "clutch-builtin-1": { input: 0, output: 0 }, "count-model": { input: 2, output: 10, cached_input: 1 } }, status: { ok: true, error: null } });
    const res = await agentUsageRoute.GET(requestAs(agent, "http://test/api/agents/agent%3Atally-1/usage?days=7"), { params: Promise.resolve({ agent_id: "agent:tally-1" }) });
    const body = (await res.json()) as { days: { day: string; rows: { model: string; calls: number }[] }[] };
    expect(body.days).toHaveLength(7);
    expect(body.days.at(-1)!.day).toBe(new Date().toISOString().slice(0, 10));
    expect(body.days.at(-1)!.rows).toEqual([expect.objectContaining({ model: "count-model", calls: 2 })]);
    const bad = await agentUsageRoute.GET(requestAs(agent, "http://test/api/agents/agent%3Atally-1/usage?days=400"), { params: Promise.resolve({ agent_id: "agent:tally-1" }) });
    expect(bad.status).toBe(400);
  });
});

describe("the price table", () => {
  it("refuses a workspace whose prices do not parse, naming the bad entry", () => {
    const ws = fs.mkdtempSync(path.join(os.tmpdir(), "clutch-prices-"));
    fs.mkdirSync(path.join(ws, "agents"));
    fs.writeFileSync(path.join(ws, "workspace.json"), JSON.stringify({ prices: { models: { "gpt-4o": { input: -2.5, output: 10 } } } }));
    expect(() => loadWorkspace(ws)).toThrow(/workspace\.json: prices\.models\.gpt-4o\.input: a price cannot be negative/);
  });

  it("keeps the last good prices when a reload does not parse, and says why", () => {
    const ws = fs.mkdtempSync(path.join(os.tmpdir(), "clutch-prices-"));
    const file = path.join(ws, "workspace.json");
    fs.writeFileSync(file, JSON.stringify({ prices: { models: { m: { input: 1, output: 2 } } } }));
    const book = new PriceBook(file, { currency: "USD", models: { m: { input: 1, output: 2 } } });
    fs.writeFileSync(file, JSON.stringify({ prices: { currency: "dollars", models: {} } }));
    const status = book.load();
    expect(status.ok).toBe(false);
    expect(status.error).toMatch(/prices\.currency: currency is a three-letter ISO 4217 code/);
    expect(book.current().models.m).toEqual({ input: 1, output: 2 });
    fs.writeFileSync(file, JSON.stringify({ prices: { currency: "EUR", models: { m: { input: 3, output: 4 } } } }));
    expect(book.load().ok).toBe(true);
    expect(book.current()).toMatchObject({ currency: "EUR", models: { m: { input: 3, output: 4 } } });
  });
});
