/**
 * A scripted OpenAI-compatible chat-completions server that streams its answers as server-sent
 * events at a set token rate, for bench/streaming.ts (test/scripted-openai.ts answers whole
 * JSON completions only, and the agent runner asks with `stream: true`).
 *
 * The script is in the prompt: the last `[bench mode=<text|reply> tokens=<n> rate=<tokens/s> tag=<id>]`
 * in the request's messages says what to answer.
 * - `mode=text`: `n` tokens of plain content (the model's text, which the runner streams as the
 *   step's text and stores as the task's result).
 * - `mode=reply`: one `reply` tool call to `user` whose `text` argument is the `n` tokens, its JSON
 *   arguments streamed piece by piece as OpenAI does (the runner streams the `text` field as it
 *   grows). Once the conversation holds a tool result (the runner's next step), the answer is
 *   `Done.` at once, which ends the task.
 * - `rate=0`: the whole answer in one chunk (a model that does not stream).
 * Each token is one SSE chunk, written on a fixed schedule (token i at first + i × 1000/rate ms);
 * `timings` keeps, per request, the wall time (performance.timeOrigin + performance.now(), ms)
 * at which the first token of the text was written.
 */
import http from "node:http";
import type { AddressInfo } from "node:net";

/** One answered request. */
export interface ModelTiming {
  tag: string;
  mode: string;
  /** 1: the first step of the task; 2: the answer after a tool result. */
  step: number;
  requested_at: number;
  /** Wall ms when the first token of the text was written (null: none was). */
  first_token_at: number | null;
  finished_at: number | null;
  tokens: number;
}

const WORDS = "the quarter closed with revenue up in every region while churn fell and the pipeline for next quarter looks stronger than the plan assumed".split(" ");

const wallMs = () => performance.timeOrigin + performance.now();

/** The script of the request, from the last `[bench …]` marker in its messages. */
function scriptOf(body: { messages?: { role: string; content: unknown }[] }): { mode: string; tokens: number; rate: number; tag: string; step: number } {
  const all = JSON.stringify(body.messages ?? []);
  const marks = [...all.matchAll(/\[bench ([^\]]*)\]/g)];
  const kv = Object.fromEntries((marks.at(-1)?.[1] ?? "").split(/\s+/).filter(Boolean).map((p) => p.split("=") as [string, string]));
  const step = (body.messages ?? []).some((m) => m.role === "tool") ? 2 : 1;
  return { mode: kv.mode ?? "text", tokens: Number(kv.tokens ?? 30), rate: Number(kv.rate ?? 50), tag: kv.tag ?? "?", step };
}

export interface StreamingModel {
  baseURL: string;
  timings: ModelTiming[];
  close(): void;
}

/** Start the server on 127.0.0.1 (any port). */
export async function startStreamingModel(): Promise<StreamingModel> {
  const timings: ModelTiming[] = [];
  let n = 0;
  const server = http.createServer((req, res) => {
    let raw = "";
    req.on("data", (c) => (raw += c));
    req.on("end", () => {
      const requested_at = wallMs();
      const body = JSON.parse(raw) as { model: string; stream?: boolean; messages?: { role: string; content: unknown }[] };
      const s = scriptOf(body);
      const timing: ModelTiming = { tag: s.tag, mode: s.mode, step: s.step, requested_at, first_token_at: null, finished_at: null, tokens: s.step === 1 ? s.tokens : 1 };
      timings.push(timing);
      const id = `chatcmpl-bench-${++n}`;
      const call_id = `call_bench_${n}`;
      const final = s.step === 2 || s.mode === "text";
      const tokens = s.step === 2 ? ["Done."] : Array.from({ length: s.tokens }, (_, i) => `${WORDS[i % WORDS.length]} `);
      const usage = { prompt_tokens: 100, completion_tokens: tokens.length, total_tokens: 100 + tokens.length };
      if (!body.stream) {
        // Not asked to stream: the whole answer as one completion.
        const text = tokens.join("");
        const message = final ? { role: "assistant", content: text } : { role: "assistant", content: null, tool_calls: [{ id: call_id, type: "function", function: { name: "reply", arguments: JSON.stringify({ to: "user", text }) } }] };
        timing.first_token_at = timing.finished_at = wallMs();
        res.writeHead(200, { "content-type": "application/json" });
        res.end(JSON.stringify({ id, object: "chat.completion", created: 1_700_000_000, model: body.model, choices: [{ index: 0, message, finish_reason: final ? "stop" : "tool_calls" }], usage }));
        return;
      }
      const chunk = (delta: Record<string, unknown> | null, finish: string | null = null, extra: Record<string, unknown> = {}) =>
        `data: ${JSON.stringify({ id, object: "chat.completion.chunk", created: 1_700_000_000, model: body.model, choices: delta ? [{ index: 0, delta, finish_reason: finish }] : [], ...extra })}\n\n`;
      const piece = (text: string, first: boolean) =>
        final
          ? chunk({ content: text })
          : chunk({ tool_calls: [{ index: 0, ...(first ? { id: call_id, type: "function" } : {}), function: { ...(first ? { name: "reply" } : {}), arguments: text } }] });
      res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache", connection: "keep-alive" });
      res.write(chunk({ role: "assistant", content: "" }));
      let closed = false;
      let timer: NodeJS.Timeout | null = null;
      res.on("close", () => {
        closed = true;
        if (timer) clearTimeout(timer);
      });
      const finish = () => {
        if (!final) res.write(piece('"}', false));
        res.write(chunk({}, final ? "stop" : "tool_calls"));
        res.write(chunk(null, null, { usage }));
        res.end("data: [DONE]\n\n");
        timing.finished_at = wallMs();
      };
      if (!final) res.write(piece('{"to":"user","text":"', true));
      if (s.step === 2 || !(s.rate > 0)) {
        // At once: one chunk with the whole text.
        res.write(piece(tokens.join(""), false));
        timing.first_token_at = wallMs();
        return finish();
      }
      const every = 1000 / s.rate;
      let i = 0;
      let first = 0;
      const next = () => {
        timer = null;
        if (closed) return;
        // Every token that is due (a late timer writes the ones it missed, as a model that keeps its pace would).
        const now = wallMs();
        while (i < tokens.length && (i === 0 || now >= first + i * every)) {
          res.write(piece(tokens[i]!, false));
          if (i === 0) timing.first_token_at = first = wallMs();
          i++;
        }
        if (i >= tokens.length) return finish();
        timer = setTimeout(next, Math.max(0, first + i * every - wallMs()));
      };
      next();
    });
  });
  server.keepAliveTimeout = 60_000;
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  return {
    baseURL: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`,
    timings,
    close: () => {
      server.closeAllConnections();
      server.close();
    },
  };
}
