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
 * tool-input-start/delta/end + tool-call, finish).
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

export interface BuiltinModelOptions {
  /** The workspace's playbooks (loadPlaybooks); without them every agent plays the generic playbook. */
  playbooks?: Playbooks;
  /** Default BUILTIN_MODEL_ID. */
  modelId?: string;
}

/** The deterministic built-in model. */
export class BuiltinLanguageModel implements LanguageModelV3 {
  readonly specificationVersion = "v3" as const;
  readonly provider = BUILTIN_PROVIDER;
  readonly modelId: string;
  readonly supportedUrls: Record<string, RegExp[]> = {};
  private readonly playbooks?: Playbooks;

  constructor(options: BuiltinModelOptions = {}) {
    this.modelId = options.modelId ?? BUILTIN_MODEL_ID;
    this.playbooks = options.playbooks;
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
    const parts: LanguageModelV3StreamPart[] = [{ type: "stream-start", warnings: result.warnings }];
    parts.push({ type: "response-metadata", ...result.response });
    result.content.forEach((c, i) => {
      if (c.type === "text") {
        const id = `txt_${i}`;
        parts.push({ type: "text-start", id }, { type: "text-delta", id, delta: c.text }, { type: "text-end", id });
      } else if (c.type === "tool-call") {
        parts.push(
          { type: "tool-input-start", id: c.toolCallId, toolName: c.toolName },
          { type: "tool-input-delta", id: c.toolCallId, delta: c.input },
          { type: "tool-input-end", id: c.toolCallId },
          c,
        );
      }
    });
    parts.push({ type: "finish", usage: result.usage, finishReason: result.finishReason, providerMetadata: result.providerMetadata });
    const stream = new ReadableStream<LanguageModelV3StreamPart>({
      start(controller) {
        for (const p of parts) controller.enqueue(p);
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
