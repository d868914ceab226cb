/**
 * A local server that speaks the OpenAI chat-completions protocol with scripted answers, for
 * running agents through the real loop without a model (test/openai-agent.test.ts,
 * test/delegate-capability.test.ts). A request with `stream: true` (the agent runner streams its
 * calls) gets the answer as server-sent `chat.completion.chunk`s, as OpenAI sends it: the
 * message's content and tool calls, then the finish reason with the usage, then `[DONE]`.
 */
import http from "node:http";
import type { AddressInfo } from "node:net";
import { newId } from "@/lib/protocol";

export type ChatMessage = { role: string; content: unknown; tool_calls?: unknown[] };
export type ChatRequest = { model: string; messages: ChatMessage[]; tools?: { function: { name: string } }[]; stream?: boolean };

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

/** A chat.completion as the `chat.completion.chunk`s a streamed answer sends: its message, then its finish reason and usage. */
function chunksOf(out: Record<string | symbol, unknown>): Record<string, unknown>[] {
  const { id, created, model, usage } = out as { id: string; created: number; model: string; usage?: unknown };
  const choice = (out.choices as { message: { content?: string | null; tool_calls?: { id: string; type: string; function: { name: string; arguments: string } }[] }; finish_reason: string }[])[0]!;
  const head = { id, object: "chat.completion.chunk", created, model };
  const delta: Record<string, unknown> = { role: "assistant", content: choice.message.content ?? null };
  if (choice.message.tool_calls?.length) delta.tool_calls = choice.message.tool_calls.map((c, index) => ({ index, ...c }));
  return [
    { ...head, choices: [{ index: 0, delta, finish_reason: null }] },
    { ...head, choices: [{ index: 0, delta: {}, finish_reason: choice.finish_reason }], ...(usage ? { usage } : {}) },
  ];
}

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
      if (status === 200 && body.stream) {
        res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" });
        for (const chunk of chunksOf(out)) res.write(`data: ${JSON.stringify(chunk)}\n\n`);
        res.end("data: [DONE]\n\n");
        return;
      }
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
