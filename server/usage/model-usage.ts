/**
 * The `model.usage` payload of one answered model call (docs/observability.md), for every model
 * call Clutch makes: an agent's step (server/agents/runner.ts) and a group chat's team model
 * (server/orchestrator/group-chat.ts). Token counts are the AI SDK's (missing counts as 0),
 * `latency_ms` the call's wall time in ms, `model` the id the provider answered with (else the one
 * asked for), `provider` the semantic conventions' name (server/telemetry/attributes.ts), `step`
 * the caller's numbering of its calls from 1.
 */
import type { FinishReason, LanguageModel, LanguageModelUsage } from "ai";
import type { PayloadOf } from "@/lib/protocol";
import { usageProvider } from "../telemetry/attributes";

/** What an answered call reports: its usage, why it finished, and the model that answered. */
export interface AnsweredCall {
  usage: LanguageModelUsage;
  finishReason: FinishReason;
  response?: { modelId?: string };
}

export function modelUsage(model: LanguageModel, answered: AnsweredCall, latency_ms: number, step: number): PayloadOf<"model.usage"> {
  const u = answered.usage;
  const asked = typeof model === "string" ? { modelId: model, provider: undefined } : model;
  const cached = u.inputTokenDetails?.cacheReadTokens ?? u.cachedInputTokens;
  const reasoning = u.outputTokenDetails?.reasoningTokens ?? u.reasoningTokens;
  return {
    model: answered.response?.modelId || asked.modelId,
    ...(asked.provider ? { provider: usageProvider(asked) } : {}),
    input_tokens: u.inputTokens ?? 0,
    output_tokens: u.outputTokens ?? 0,
    ...(cached ? { cached_input_tokens: cached } : {}),
    ...(reasoning ? { reasoning_tokens: reasoning } : {}),
    latency_ms: Math.round(latency_ms),
    finish_reason: answered.finishReason,
    step,
  };
}
