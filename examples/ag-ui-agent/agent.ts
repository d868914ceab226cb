/**
 * An AG-UI agent in plain Node (examples/ag-ui-agent/README.md; docs/adapters.md "AG-UI agents in
 * Clutch"): a packing assistant that checks the forecast at your destination. It speaks AG-UI 1.0
 * over HTTP with the official packages only: `POST /` takes a `RunAgentInput` (checked with
 * `@ag-ui/core`'s RunAgentInputSchema; 400 with the issues otherwise) and answers with the run's
 * events as Server-Sent Events written by `@ag-ui/encoder`. Scripted, so it runs without a model:
 *
 *   a request that names a city ("… to Lisbon")
 *       → RUN_STARTED; step "understand"; step "check the forecast": tool call `get_forecast
 *         { city }` with its result (JSON); step "write the answer": a text message streamed word
 *         by word; RUN_FINISHED with the forecast as `result`
 *   one that names none
 *       → RUN_FINISHED with an interrupt outcome: `{ id, reason: "input_required", message:
 *         "Where are you going?", responseSchema: { type: "string" } }`. The next run on the same
 *         thread answers it in `resume` (`{ interruptId, status: "resolved", payload: "<city>" }`)
 *         and goes on as above
 *   "[fail]" (for tests)  → starts a message, then RUN_ERROR `FORECAST_DOWN` in the middle of it
 *   "[slow]" (for tests)  → a step that waits until the caller goes away (a Clutch cancel)
 *
 * `received` holds every input with its request headers; `aborted` the runIds whose caller hung up
 * before the run ended.
 *
 * With a token (`token`, or AGENT_TOKEN when run on its own) a run needs `authorization: Bearer
 * <token>`, else 401.
 *
 * Run on its own: `PORT=41300 AGENT_TOKEN=s3cret node --import tsx examples/ag-ui-agent/agent.ts`
 * (it then answers at http://127.0.0.1:41300/).
 */
import http from "node:http";
import { randomUUID } from "node:crypto";
import { pathToFileURL } from "node:url";
import type { AddressInfo } from "node:net";
import { EventType, type BaseEvent, type Message, type RunAgentInput } from "@ag-ui/core";
import { RunAgentInputSchema } from "@ag-ui/core/schemas";
import { EventEncoder } from "@ag-ui/encoder";

export interface PackingAgent {
  /** Where it answers (what a manifest's `runtime.url` names). */
  url: string;
  received: { input: RunAgentInput; headers: http.IncomingHttpHeaders }[];
  aborted: string[];
  close(): Promise<void>;
}

export interface PackingAgentOptions {
  /** The port of 127.0.0.1 (default: a free one). */
  port?: number;
  /** The pause between two streamed words, ms (default 40). */
  wordDelayMs?: number;
  /** When set, a run needs `authorization: Bearer <token>` (401 otherwise). */
  token?: string;
}

interface Forecast {
  city: string;
  temperature_c: number;
  conditions: string;
}

const KNOWN: Record<string, Omit<Forecast, "city">> = {
  lisbon: { temperature_c: 22, conditions: "sunny" },
  oslo: { temperature_c: -3, conditions: "snowing" },
  berlin: { temperature_c: 11, conditions: "cloudy" },
  paris: { temperature_c: 15, conditions: "rainy" },
};

/** The forecast of `city`: known cities as listed, others made up from their name (the same every time). */
export function forecastOf(city: string): Forecast {
  const known = KNOWN[city.toLowerCase()];
  if (known) return { city, ...known };
  const n = [...city].reduce((sum, c) => sum + c.charCodeAt(0), 0);
  return { city, temperature_c: 5 + (n % 25), conditions: ["sunny", "cloudy", "rainy", "windy"][n % 4]! };
}

/** What to pack for a forecast, in one sentence. */
export function packingAdvice(f: Forecast): string {
  const warmth = f.temperature_c < 5 ? "a warm coat, gloves and boots" : f.temperature_c < 16 ? "a jacket and a jumper" : "light clothes and sunglasses";
  const extra = f.conditions === "rainy" ? ", and an umbrella" : f.conditions === "snowing" ? ", and something waterproof" : "";
  return `In ${f.city} it is ${f.temperature_c} °C and ${f.conditions}: pack ${warmth}${extra}.`;
}

/** A city named after "to", "in" or "for" in `text` (capitalised words), or null. */
export function cityIn(text: string): string | null {
  return /\b(?:to|in|for)\s+((?:[A-Z][\p{L}-]+)(?:\s[A-Z][\p{L}-]+)*)/u.exec(text)?.[1] ?? null;
}

/** The text of a message's content (text parts only). */
function textOf(m: Message | undefined): string {
  if (!m || !("content" in m)) return "";
  const c = m.content;
  if (typeof c === "string") return c;
  if (Array.isArray(c)) return c.map((p) => (p && typeof p === "object" && "text" in p ? String(p.text) : "")).join("");
  return "";
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** One run: the events of `input`, written through `send` until the run ends or `gone()` says the caller left. */
async function run(input: RunAgentInput, send: (e: BaseEvent) => void, gone: () => boolean, wordDelayMs: number): Promise<void> {
  const { threadId, runId } = input;
  const request = textOf(input.messages.find((m) => m.role === "user"));
  send({ type: EventType.RUN_STARTED, threadId, runId } as BaseEvent);

  if (request.includes("[fail]")) {
    const messageId = randomUUID();
    send({ type: EventType.TEXT_MESSAGE_START, messageId, role: "assistant" } as BaseEvent);
    send({ type: EventType.TEXT_MESSAGE_CONTENT, messageId, delta: "Checking the forecast" } as BaseEvent);
    await sleep(wordDelayMs);
    send({ type: EventType.RUN_ERROR, message: "The forecast service did not answer", code: "FORECAST_DOWN" } as BaseEvent);
    return;
  }
  if (request.includes("[slow]")) {
    send({ type: EventType.STEP_STARTED, stepName: "wait for the forecast" } as BaseEvent);
    while (!gone()) await sleep(20);
    return;
  }

  send({ type: EventType.STEP_STARTED, stepName: "understand" } as BaseEvent);
  const answer = input.resume?.find((r) => r.status === "resolved" && typeof r.payload === "string" && r.payload.trim());
  const city = answer ? String(answer.payload).trim() : cityIn(request);
  send({ type: EventType.STEP_FINISHED, stepName: "understand" } as BaseEvent);
  if (!city) {
    const interrupt = { id: `where-${threadId}`, reason: "input_required", message: "Where are you going?", responseSchema: { type: "string" } };
    send({ type: EventType.RUN_FINISHED, threadId, runId, outcome: { type: "interrupt", interrupts: [interrupt] } } as BaseEvent);
    return;
  }

  send({ type: EventType.STEP_STARTED, stepName: "check the forecast" } as BaseEvent);
  const toolCallId = randomUUID();
  const args = JSON.stringify({ city });
  send({ type: EventType.TOOL_CALL_START, toolCallId, toolCallName: "get_forecast" } as BaseEvent);
  send({ type: EventType.TOOL_CALL_ARGS, toolCallId, delta: args.slice(0, 5) } as BaseEvent);
  send({ type: EventType.TOOL_CALL_ARGS, toolCallId, delta: args.slice(5) } as BaseEvent);
  send({ type: EventType.TOOL_CALL_END, toolCallId } as BaseEvent);
  const forecast = forecastOf(city);
  send({ type: EventType.TOOL_CALL_RESULT, messageId: randomUUID(), toolCallId, content: JSON.stringify(forecast), role: "tool" } as BaseEvent);
  send({ type: EventType.STEP_FINISHED, stepName: "check the forecast" } as BaseEvent);

  send({ type: EventType.STEP_STARTED, stepName: "write the answer" } as BaseEvent);
  const messageId = randomUUID();
  send({ type: EventType.TEXT_MESSAGE_START, messageId, role: "assistant" } as BaseEvent);
  const words = packingAdvice(forecast).split(" ");
  for (const [i, word] of words.entries()) {
    if (gone()) return;
    send({ type: EventType.TEXT_MESSAGE_CONTENT, messageId, delta: i === 0 ? word : ` ${word}` } as BaseEvent);
    await sleep(wordDelayMs);
  }
  send({ type: EventType.TEXT_MESSAGE_END, messageId } as BaseEvent);
  send({ type: EventType.STEP_FINISHED, stepName: "write the answer" } as BaseEvent);
  send({ type: EventType.RUN_FINISHED, threadId, runId, result: forecast, outcome: { type: "success" } } as BaseEvent);
}

/** Start the agent (see PackingAgentOptions). */
export async function startPackingAgent(opts: PackingAgentOptions = {}): Promise<PackingAgent> {
  const wordDelayMs = opts.wordDelayMs ?? 40;
  const server = http.createServer();
  await new Promise<void>((r) => server.listen(opts.port ?? 0, "127.0.0.1", r));
  const agent: PackingAgent = { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/`, received: [], aborted: [], close: async () => {} };
  let closing = false;

  server.on("request", async (req, res) => {
    if (req.method !== "POST") {
      res.writeHead(405, { allow: "POST", "content-type": "text/plain" }).end("POST a RunAgentInput (AG-UI) here");
      return;
    }
    if (opts.token && req.headers.authorization !== `Bearer ${opts.token}`) {
      res.writeHead(401, { "content-type": "application/json", "www-authenticate": "Bearer" }).end(JSON.stringify({ error: "authorization: Bearer <token> is required" }));
      return;
    }
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    let body: unknown;
    try {
      body = JSON.parse(Buffer.concat(chunks).toString("utf8"));
    } catch {
      res.writeHead(400, { "content-type": "application/json" }).end(JSON.stringify({ error: "the body is not JSON; POST a RunAgentInput" }));
      return;
    }
    const parsed = RunAgentInputSchema.safeParse(body);
    if (!parsed.success) {
      res.writeHead(400, { "content-type": "application/json" }).end(JSON.stringify({ error: "not a RunAgentInput", issues: parsed.error.issues }));
      return;
    }
    const input = parsed.data as RunAgentInput;
    agent.received.push({ input, headers: req.headers });
    const encoder = new EventEncoder({ accept: req.headers.accept });
    res.writeHead(200, { "content-type": encoder.getContentType(), "cache-control": "no-cache", connection: "keep-alive" });
    let ended = false;
    res.on("close", () => {
      if (!ended) agent.aborted.push(input.runId);
      ended = true;
    });
    const send = (e: BaseEvent) => {
      if (!ended) res.write(encoder.encode(e));
    };
    try {
      await run(input, send, () => ended || closing, wordDelayMs);
    } catch (err) {
      send({ type: EventType.RUN_ERROR, message: (err as Error).message } as BaseEvent);
    }
    ended = true;
    res.end();
  });

  agent.close = async () => {
    closing = true;
    server.closeAllConnections();
    await new Promise((r) => server.close(() => r(null)));
  };
  return agent;
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const agent = await startPackingAgent({ port: Number(process.env.PORT ?? 41300), ...(process.env.AGENT_TOKEN ? { token: process.env.AGENT_TOKEN } : {}) });
  console.log(`packing agent (AG-UI): ${agent.url}`);
}
