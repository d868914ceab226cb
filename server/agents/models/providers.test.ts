/**
 * The real provider code against local HTTP servers that speak the providers' protocols
 * (OpenAI chat-completions, Anthropic messages) with scripted answers and tool calls. No network
 * beyond 127.0.0.1.
 */
import http from "node:http";
import type { AddressInfo } from "node:net";
import { generateText, streamText, tool, type ModelMessage } from "ai";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { AskInput, DelegateInput, ReplyInput, SubmitResultInput } from "../contract";
import { modelFromEnv, resolveModel } from "./index";

interface Seen {
  method: string;
  url: string;
  headers: http.IncomingHttpHeaders;
  body: Record<string, unknown>;
}

type Script = (body: Record<string, unknown>, res: http.ServerResponse) => void;

let server: http.Server;
let base: string;
let seen: Seen[] = [];
let script: Script;

beforeAll(async () => {
  server = http.createServer((req, res) => {
    let raw = "";
    req.on("data", (c) => (raw += c));
    req.on("end", () => {
      const body = raw ? (JSON.parse(raw) as Record<string, unknown>) : {};
      seen.push({ method: req.method ?? "", url: req.url ?? "", headers: req.headers, body });
      script(body, res);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));
beforeEach(() => {
  seen = [];
});

const TOOLS = {
  ask: tool({ description: "Ask a person or an agent", inputSchema: AskInput }),
  reply: tool({ inputSchema: ReplyInput }),
  delegate: tool({ inputSchema: DelegateInput }),
  submit_result: tool({ inputSchema: SubmitResultInput }),
  DataServer__query_data: tool({ description: "Read-only SQL over table orders", inputSchema: z.object({ sql: z.string(), limit: z.number().int().optional() }) }),
};

const SYSTEM = "You are AnalystAgent, responsible for detailed data analysis and reporting.";
const SQL = "SELECT region, SUM(sales) AS sales FROM orders GROUP BY region";
const QUERY_RESULT = { columns: [{ name: "region", type: "VARCHAR" }, { name: "sales", type: "DOUBLE" }], rows: [{ region: "West", sales: 79806.318 }], row_count: 1, truncated: false };

const json = (res: http.ServerResponse, status: number, v: unknown) => {
  res.writeHead(status, { "content-type": "application/json" });
  res.end(JSON.stringify(v));
};

/** Chat completions: a tool call when the conversation has no tool result yet, else final text. */
const chatCompletions: Script = (body, res) => {
  const messages = body.messages as { role: string }[];
  const hasToolResult = messages.some((m) => m.role === "tool");
  const base = { id: "chatcmpl-1", object: "chat.completion", created: 1_700_000_000, model: body.model };
  const usage = { prompt_tokens: 12, completion_tokens: 5, total_tokens: 17 };
  if (body.stream) {
    res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" });
    const send = (v: unknown) => res.write(`data: ${JSON.stringify(v)}\n\n`);
    const chunk = (delta: unknown, finish: string | null = null) => ({ ...base, object: "chat.completion.chunk", choices: [{ index: 0, delta, finish_reason: finish }] });
    if (!hasToolResult) {
      const args = JSON.stringify({ sql: SQL, limit: 10 });
      send(chunk({ role: "assistant", content: null, tool_calls: [{ index: 0, id: "call_s1", type: "function", function: { name: "DataServer__query_data", arguments: "" } }] }));
      send(chunk({ tool_calls: [{ index: 0, function: { arguments: args.slice(0, 20) } }] }));
      send(chunk({ tool_calls: [{ index: 0, function: { arguments: args.slice(20) } }] }));
      send(chunk({}, "tool_calls"));
    } else {
      send(chunk({ role: "assistant", content: "West sold " }));
      send(chunk({ content: "$79,806.32 in Q4 2017." }));
      send(chunk({}, "stop"));
    }
    send({ ...base, object: "chat.completion.chunk", choices: [], usage });
    res.write("data: [DONE]\n\n");
    res.end();
    return;
  }
  if (!hasToolResult) {
    json(res, 200, {
      ...base,
      choices: [
        {
          index: 0,
          message: { role: "assistant", content: null, tool_calls: [{ id: "call_1", type: "function", function: { name: "DataServer__query_data", arguments: JSON.stringify({ sql: SQL, limit: 10 }) } }] },
          finish_reason: "tool_calls",
        },
      ],
      usage,
    });
  } else {
    json(res, 200, { ...base, choices: [{ index: 0, message: { role: "assistant", content: "West sold $79,806.32 in Q4 2017." }, finish_reason: "stop" }], usage });
  }
};

function toolResultMessage(callId: string): ModelMessage {
  return { role: "tool", content: [{ type: "tool-result", toolCallId: callId, toolName: "DataServer__query_data", output: { type: "json", value: QUERY_RESULT } }] };
}

describe("OpenAI-compatible provider against a local chat-completions server", () => {
  it("sends tools and messages, parses the scripted tool call, and returns the final text after the tool result", async () => {
    script = chatCompletions;
    const model = resolveModel({ provider: "openai-compatible", baseURL: `${base}/v1`, apiKey: "sk-local-test", model: "scripted-1" });
    const messages: ModelMessage[] = [{ role: "user", content: "New task T1.1 from agent:pm-1: Q4 2017 sales by region" }];

    const first = await generateText({ model, system: SYSTEM, messages, tools: TOOLS });
    expect(first.toolCalls).toHaveLength(1);
    expect(first.toolCalls[0]).toMatchObject({ toolCallId: "call_1", toolName: "DataServer__query_data", input: { sql: SQL, limit: 10 } });
    expect(first.finishReason).toBe("tool-calls");
    expect(first.usage.inputTokens).toBe(12);

    const req1 = seen[0];
    expect(req1.method).toBe("POST");
    expect(req1.url).toBe("/v1/chat/completions");
    expect(req1.headers.authorization).toBe("Bearer sk-local-test");
    expect(req1.body.model).toBe("scripted-1");
    expect(req1.body.stream).toBeFalsy();
    const sent = req1.body.tools as { type: string; function: { name: string; description?: string; parameters: { properties: Record<string, unknown> } } }[];
    expect(sent.map((t) => t.function.name).sort()).toEqual(["DataServer__query_data", "ask", "delegate", "reply", "submit_result"]);
    const q = sent.find((t) => t.function.name === "DataServer__query_data")!;
    expect(q.type).toBe("function");
    expect(q.function.description).toBe("Read-only SQL over table orders");
    expect(Object.keys(q.function.parameters.properties)).toEqual(["sql", "limit"]);
    expect(req1.body.messages).toEqual([
      { role: "system", content: SYSTEM },
      { role: "user", content: "New task T1.1 from agent:pm-1: Q4 2017 sales by region" },
    ]);

    // Round two: the runner executed the call and sends its result back.
    messages.push(...first.response.messages, toolResultMessage("call_1"));
    const second = await generateText({ model, system: SYSTEM, messages, tools: TOOLS });
    expect(second.toolCalls).toEqual([]);
    expect(second.text).toBe("West sold $79,806.32 in Q4 2017.");
    expect(second.finishReason).toBe("stop");
    const req2 = seen[1].body.messages as Record<string, unknown>[];
    expect(req2[2]).toMatchObject({
      role: "assistant",
      tool_calls: [{ id: "call_1", type: "function", function: { name: "DataServer__query_data", arguments: JSON.stringify({ sql: SQL, limit: 10 }) } }],
    });
    expect(req2[3]).toMatchObject({ role: "tool", tool_call_id: "call_1" });
    expect(JSON.parse(String(req2[3].content))).toEqual(QUERY_RESULT);
  });

  it("streams: tool-call arguments split over SSE chunks are assembled, then the final text streams", async () => {
    script = chatCompletions;
    const model = resolveModel({ provider: "openai-compatible", baseURL: `${base}/v1`, model: "scripted-1" });
    const messages: ModelMessage[] = [{ role: "user", content: "Q4 2017 sales by region" }];
    const first = streamText({ model, system: SYSTEM, messages, tools: TOOLS });
    const calls = await first.toolCalls;
    expect(calls).toHaveLength(1);
    expect(calls[0]).toMatchObject({ toolCallId: "call_s1", toolName: "DataServer__query_data", input: { sql: SQL, limit: 10 } });
    expect(seen[0].body.stream).toBe(true);
    expect(seen[0].headers.authorization).toBeUndefined(); // no key: local servers need none

    messages.push(...(await first.response).messages, toolResultMessage("call_s1"));
    const second = streamText({ model, system: SYSTEM, messages, tools: TOOLS });
    expect(await second.text).toBe("West sold $79,806.32 in Q4 2017.");
    expect(await second.finishReason).toBe("stop");
  });

  it("is chosen per agent from the environment", async () => {
    script = chatCompletions;
    const env = { CLUTCH_MODEL: "builtin", CLUTCH_MODEL_ANALYST_1: "openai:scripted-2", OPENAI_BASE_URL: `${base}/v1`, OPENAI_API_KEY: "sk-env" };
    expect(modelFromEnv(env, "agent:pm-1").provider).toBe("clutch.builtin");
    const model = modelFromEnv(env, "agent:analyst-1");
    const r = await generateText({ model, messages: [{ role: "user", content: "hi" }], tools: TOOLS });
    expect(r.toolCalls[0].toolName).toBe("DataServer__query_data");
    expect(seen[0].body.model).toBe("scripted-2");
    expect(seen[0].headers.authorization).toBe("Bearer sk-env");
  });

  it("surfaces the endpoint's error", async () => {
    script = (_b, res) => json(res, 401, { error: { message: "Incorrect API key provided", type: "invalid_request_error", code: "invalid_api_key" } });
    const model = resolveModel({ provider: "openai-compatible", baseURL: `${base}/v1`, apiKey: "wrong", model: "m" });
    await expect(generateText({ model, prompt: "hi", maxRetries: 0 })).rejects.toThrow(/Incorrect API key provided/);
  });
});

describe("Anthropic provider against a local Messages API server", () => {
  it("sends the tools with the key and parses a tool_use block", async () => {
    script = (body, res) =>
      json(res, 200, {
        id: "msg_01",
        type: "message",
        role: "assistant",
        model: body.model,
        content: [
          { type: "text", text: "Querying." },
          { type: "tool_use", id: "toolu_01", name: "DataServer__query_data", input: { sql: SQL } },
        ],
        stop_reason: "tool_use",
        stop_sequence: null,
        usage: { input_tokens: 20, output_tokens: 9 },
      });
    const model = resolveModel({ provider: "anthropic", model: "claude-scripted", apiKey: "sk-ant-local", baseURL: `${base}/v1` });
    const r = await generateText({ model, system: SYSTEM, messages: [{ role: "user", content: "Q4 2017 by region" }], tools: TOOLS, maxOutputTokens: 1024 });
    expect(r.toolCalls[0]).toMatchObject({ toolCallId: "toolu_01", toolName: "DataServer__query_data", input: { sql: SQL } });
    expect(seen[0].url).toBe("/v1/messages");
    expect(seen[0].headers["x-api-key"]).toBe("sk-ant-local");
    expect(seen[0].body.model).toBe("claude-scripted");
    expect(seen[0].body.system).toEqual([{ type: "text", text: SYSTEM }]);
    expect((seen[0].body.tools as { name: string }[]).map((t) => t.name).sort()).toEqual(["DataServer__query_data", "ask", "delegate", "reply", "submit_result"]);
  });
});
