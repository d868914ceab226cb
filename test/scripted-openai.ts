/**
 * A local server that speaks the OpenAI chat-completions protocol with scripted answers, for
 * running agents through the real loop without a model (test/openai-agent.test.ts,
 * test/delegate-capability.test.ts).
 */
import http from "node:http";
import type { AddressInfo } from "node:net";
import { newId } from "@/lib/protocol";

export type ChatMessage = { role: string; content: unknown; tool_calls?: unknown[] };
export type ChatRequest = { model: string; messages: ChatMessage[]; tools?: { function: { name: string } }[] };

/** One chat.completion answer holding `message` (content or tool_calls). */
export function completion(model: string, message: Record<string, unknown>, finish: "tool_calls" | "stop") {
  return {
    id: `chatcmpl-${newId("task")}`,
    object: "chat.completion",
    created: 1_700_000_000,
    model,
    choices: [{ index: 0, message: { role: "assistant", content: null, ...message }, finish_reason: finish }],
    usage: { prompt_tokens: 10, completion_tokens: 5, total_tokens: 15 },
  };
}

/** The `tool_calls` of an assistant message that calls `name` with `args`. */
export function toolCall(name: string, args: unknown, id = `call_${newId("task").slice(-8)}`) {
  return { tool_calls: [{ id, type: "function", function: { name, arguments: JSON.stringify(args) } }] };
}

/** Serve `answer` on 127.0.0.1; `requests` keeps every request body in order. */
export async function startScriptedModel(answer: (body: ChatRequest) => unknown): Promise<{ baseURL: string; requests: ChatRequest[]; close(): void }> {
  const requests: ChatRequest[] = [];
  const server = http.createServer((req, res) => {
    let raw = "";
    req.on("data", (c) => (raw += c));
    req.on("end", () => {
      const body = JSON.parse(raw) as ChatRequest;
      requests.push(body);
      res.writeHead(200, { "content-type": "application/json" });
      res.end(JSON.stringify(answer(body)));
    });
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  return { baseURL: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`, requests, close: () => server.close() };
}
