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

/** The `usage` every scripted answer reports unless told otherwise: 10 prompt and 5 completion tokens. */
const USAGE = { prompt_tokens: 10, completion_tokens: 5, total_tokens: 15 };

/** One chat.completion answer holding `message` (content or tool_calls), reporting `usage` (OpenAI's shape). */
export function completion(model: string, message: Record<string, unknown>, finish: "tool_calls" | "stop", usage: Record<string, unknown> = USAGE) {
  return {
    id: `chatcmpl-${newId("task")}`,
    object: "chat.completion",
    created: 1_700_000_000,
    model,
    choices: [{ index: 0, message: { role: "assistant", content: null, ...message }, finish_reason: finish }],
    usage,
  };
}

/** The `tool_calls` of an assistant message that calls `name` with `args`. */
export function toolCall(name: string, args: unknown, id = `call_${newId("task").slice(-8)}`) {
  return { tool_calls: [{ id, type: "function", function: { name, arguments: JSON.stringify(args) } }] };
}

const STATUS = Symbol("status");

/** An HTTP error answer (e.g. 500, 429) with an OpenAI-style error body. */
export function httpError(status: number, message = `scripted ${status}`) {
  return { [STATUS]: status, error: { message, type: "server_error", code: null } };
}

/**
 * Serve `answer` on 127.0.0.1; `requests` keeps every request body in order. An answer may be a
 * promise (a slow model) or an httpError. `aborted` counts requests the client gave up on
 * before the answer was sent (a cancelled call).
 */
export async function startScriptedModel(
  answer: (body: ChatRequest) => unknown,
): Promise<{ baseURL: string; requests: ChatRequest[]; aborted: () => number; close(): void }> {
  const requests: ChatRequest[] = [];
  let aborted = 0;
  const server = http.createServer((req, res) => {
    let raw = "";
    req.on("data", (c) => (raw += c));
    req.on("end", async () => {
      const body = JSON.parse(raw) as ChatRequest;
      requests.push(body);
      res.on("close", () => {
        if (!res.writableFinished) aborted++;
      });
      const out = (await answer(body)) as Record<string | symbol, unknown>;
      if (res.destroyed) return;
      const status = typeof out?.[STATUS] === "number" ? (out[STATUS] as number) : 200;
      res.writeHead(status, { "content-type": "application/json" });
      res.end(JSON.stringify(out));
    });
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  return {
    baseURL: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`,
    requests,
    aborted: () => aborted,
    close: () => {
      server.closeAllConnections();
      server.close();
    },
  };
}
