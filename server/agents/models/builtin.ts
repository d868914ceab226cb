/**
 * Clutch's built-in model: a deterministic LanguageModelV3 (AI SDK provider spec v3) that needs
 * no key and no network. It plays the workspace's playbooks (playbooks/index.ts) by reading the
 * prompt the runner builds (server/agents/contract.ts "Prompt"): the system message's
 * providerOptions.clutch (SystemMeta) and system prompt let the workspace's `roleOf` pick a
 * playbook (else the generic one); the inbound events, its own earlier tool calls and their
 * results tell the playbook where it stands; the playbook returns the next action.
 *
 * Each call returns either tool calls (`finishReason: tool-calls`; inputs as JSON strings) or
 * text only (`stop`), which ends the agent's turn while it waits. Every figure it states comes
 * from tool results in the prompt; it holds no canned numbers. The same prompt always gives the
 * same answer, including the tool call ids (a hash of the prompt), so a replayed step after a
 * restart is identical.
 *
 * doStream replays the doGenerate result as stream parts (text-start/delta/end,
 * tool-input-start/delta/end + tool-call, finish). Text, and the input of the calls that hold
 * text people read (reply, ask, submit_result), come in pieces; with `paceMs` one piece every
 * `paceMs` ms, so a reply is written at a readable pace and ends within about
 * STREAM_PIECES × paceMs (docs/channels.md "Streaming replies"). Without it (tests), at once.
 */
import type {
  LanguageModelV3,
  LanguageModelV3CallOptions,
  LanguageModelV3Content,
  LanguageModelV3GenerateResult,
  LanguageModelV3StreamPart,
  LanguageModelV3StreamResult,
  LanguageModelV3Usage,
} from "@ai-sdk/provider";
import { wrapLanguageModel } from "ai";
import { decide, type Playbooks } from "./playbooks";
import { Transcript } from "./playbooks/transcript";

export const BUILTIN_PROVIDER = "clutch.builtin";
export const BUILTIN_MODEL_ID = "clutch-builtin-1";

/** FNV-1a 32-bit of `s`, as 8 hex digits. */
function fnv1a(s: string): string {
  let h = 0x811c9dc5;
  for (let i = 0; i < s.length; i++) {
    h ^= s.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return (h >>> 0).toString(16).padStart(8, "0");
}

function promptKey(options: LanguageModelV3CallOptions): string {
  return JSON.stringify(options.prompt, (_k, v) => (v instanceof Uint8Array ? `bytes:${v.length}` : v));
}

function usage(inputChars: number, outputChars: number): LanguageModelV3Usage {
  // Rough token estimates (4 characters a token) so dashboards show something; not billed.
  const input = Math.ceil(inputChars / 4);
  const output = Math.ceil(outputChars / 4);
  return {
    inputTokens: { total: input, noCache: input, cacheRead: 0, cacheWrite: 0 },
    outputTokens: { total: output, text: output, reasoning: 0 },
    raw: { estimated: true },
  };
}

/** At most this many pieces a streamed text or call input is cut into. */
export const STREAM_PIECES = 40;
/** The tools whose input holds text people read, streamed at the pace. */
const TEXT_TOOLS = new Set(["reply", "ask", "submit_result"]);

/** `text` in at most STREAM_PIECES pieces, each ending after a space where it can. */
function piecesOf(text: string): string[] {
  const size = Math.max(12, Math.ceil(text.length / STREAM_PIECES));
  const out: string[] = [];
  let i = 0;
  while (i < text.length) {
    let end = Math.min(text.length, i + size);
    const space = text.indexOf(" ", end);
    if (end < text.length && space >= 0 && space - end < 12) end = space + 1;
    out.push(text.slice(i, end));
    i = end;
  }
  return out;
}

export interface BuiltinModelOptions {
  /** The workspace's playbooks (loadPlaybooks); without them every agent plays the generic playbook. */
  playbooks?: Playbooks;
  /** Default BUILTIN_MODEL_ID. */
  modelId?: string;
  /** The wait between two streamed pieces (ms); 0 or none: all at once. */
  paceMs?: number;
}

/** The deterministic built-in model. */
export class BuiltinLanguageModel implements LanguageModelV3 {
  readonly specificationVersion = "v3" as const;
  readonly provider = BUILTIN_PROVIDER;
  readonly modelId: string;
  readonly supportedUrls: Record<string, RegExp[]> = {};
  private readonly playbooks?: Playbooks;
  private readonly paceMs: number;

  constructor(options: BuiltinModelOptions = {}) {
    this.modelId = options.modelId ?? BUILTIN_MODEL_ID;
    this.playbooks = options.playbooks;
    this.paceMs = options.paceMs ?? 0;
  }

  async doGenerate(options: LanguageModelV3CallOptions): Promise<LanguageModelV3GenerateResult> {
    options.abortSignal?.throwIfAborted();
    const transcript = new Transcript(options.prompt, options.tools);
    const decided = decide(transcript, this.playbooks);
    let action = decided.action;
    if (options.toolChoice?.type === "none" && action.calls.length) {
      action = { calls: [], text: `${action.text ? `${action.text} ` : ""}(Tools are off for this call; next I would call ${action.calls.map((c) => c.tool).join(", ")}.)` };
    }
    const key = promptKey(options);
    const stamp = fnv1a(key);
    const content: LanguageModelV3Content[] = [];
    if (action.text) content.push({ type: "text", text: action.text });
    action.calls.forEach((c, i) => {
      content.push({ type: "tool-call", toolCallId: `call_bi_${stamp}_${transcript.calls.length + i + 1}`, toolName: c.tool, input: JSON.stringify(c.input) });
    });
    const outChars = content.reduce((n, c) => n + (c.type === "text" ? c.text.length : c.type === "tool-call" ? c.input.length : 0), 0);
    return {
      content,
      finishReason: action.calls.length ? { unified: "tool-calls", raw: "tool_calls" } : { unified: "stop", raw: "stop" },
      usage: usage(key.length, outChars),
      providerMetadata: { clutch: { role: decided.role, builtin: true } },
      response: { id: `resp_bi_${stamp}`, modelId: this.modelId, timestamp: new Date(0) },
      warnings: [],
    };
  }

  async doStream(options: LanguageModelV3CallOptions): Promise<LanguageModelV3StreamResult> {
    const result = await this.doGenerate(options);
    // Each entry: parts to send together; `paced` ones wait paceMs first.
    const steps: { parts: LanguageModelV3StreamPart[]; paced?: boolean }[] = [{ parts: [{ type: "stream-start", warnings: result.warnings }, { type: "response-metadata", ...result.response }] }];
    result.content.forEach((c, i) => {
      if (c.type === "text") {
        const id = `txt_${i}`;
        steps.push({ parts: [{ type: "text-start", id }] });
        for (const delta of piecesOf(c.text)) steps.push({ parts: [{ type: "text-delta", id, delta }], paced: true });
        steps.push({ parts: [{ type: "text-end", id }] });
      } else if (c.type === "tool-call") {
        steps.push({ parts: [{ type: "tool-input-start", id: c.toolCallId, toolName: c.toolName }] });
        const paced = TEXT_TOOLS.has(c.toolName);
        for (const delta of paced ? piecesOf(c.input) : [c.input]) steps.push({ parts: [{ type: "tool-input-delta", id: c.toolCallId, delta }], paced });
        steps.push({ parts: [{ type: "tool-input-end", id: c.toolCallId }, c] });
      }
    });
    steps.push({ parts: [{ type: "finish", usage: result.usage, finishReason: result.finishReason, providerMetadata: result.providerMetadata }] });
    const pace = this.paceMs;
    const signal = options.abortSignal;
    const stream = new ReadableStream<LanguageModelV3StreamPart>({
      async start(controller) {
        for (const step of steps) {
          if (step.paced && pace > 0) await new Promise((r) => setTimeout(r, pace));
          if (signal?.aborted) return controller.error(signal.reason ?? new Error("aborted"));
          for (const p of step.parts) controller.enqueue(p);
        }
        controller.close();
      },
    });
    return { stream };
  }
}

/** A built-in model instance (stateless; one can serve every agent of a workspace). */
export function builtinModel(options?: BuiltinModelOptions): BuiltinLanguageModel {
  return new BuiltinLanguageModel(options);
}

/**
 * `model` as a slow provider answers: every call (generate or stream) first calls `onCall`, then
 * waits `latencyMs` (ms), then runs. For the test nodes and benches that need a model call to take
 * time (test/fixtures/agent-process.ts, bench/_cluster-node.ts).
 */
export function slowModel(model: LanguageModelV3, latencyMs: number, onCall: () => void = () => {}): LanguageModelV3 {
  const pause = () => new Promise((r) => setTimeout(r, latencyMs));
  return wrapLanguageModel({
    model,
    middleware: {
      specificationVersion: "v3",
      wrapGenerate: async ({ doGenerate }) => (onCall(), await pause(), doGenerate()),
      wrapStream: async ({ doStream }) => (onCall(), await pause(), doStream()),
    },
  });
}
