/**
 * The span attributes of Clutch's trace export (docs/observability.md "Traces (OpenTelemetry)").
 * The `gen_ai.*` names are the OpenTelemetry GenAI semantic conventions' (development status,
 * now kept in the semantic-conventions-genai repository): written out here, as OpenTelemetry
 * advises for attributes that are not stable, rather than imported from the package's
 * `incubating` entry point. `error.type` is stable semantic conventions. `clutch.*` are Clutch's
 * own: the ids of the log (Clutch Protocol §1.1) and what people decided. `providerName` and
 * `usageProvider` name a model call's provider as the conventions' `gen_ai.provider.name`.
 */
export const ATTR = {
  // GenAI semantic conventions
  OPERATION_NAME: "gen_ai.operation.name",
  PROVIDER_NAME: "gen_ai.provider.name",
  AGENT_ID: "gen_ai.agent.id",
  AGENT_NAME: "gen_ai.agent.name",
  CONVERSATION_ID: "gen_ai.conversation.id",
  WORKFLOW_NAME: "gen_ai.workflow.name",
  REQUEST_MODEL: "gen_ai.request.model",
  RESPONSE_MODEL: "gen_ai.response.model",
  FINISH_REASONS: "gen_ai.response.finish_reasons",
  INPUT_TOKENS: "gen_ai.usage.input_tokens",
  OUTPUT_TOKENS: "gen_ai.usage.output_tokens",
  CACHE_READ_INPUT_TOKENS: "gen_ai.usage.cache_read.input_tokens",
  REASONING_OUTPUT_TOKENS: "gen_ai.usage.reasoning.output_tokens",
  TOOL_NAME: "gen_ai.tool.name",
  TOOL_CALL_ID: "gen_ai.tool.call.id",
  TOOL_TYPE: "gen_ai.tool.type",
  // Stable semantic conventions
  ERROR_TYPE: "error.type",
  /** The node that did the work (`meta.node`, CLUTCH_NODE_NAME): the resource attribute, on the span. */
  HOST_NAME: "host.name",
  // Clutch's own
  RUN_ID: "clutch.run_id",
  THREAD_ID: "clutch.thread_id",
  TASK_ID: "clutch.task_id",
  PARENT_TASK_ID: "clutch.parent_task_id",
  RUN_STATE: "clutch.run.state",
  REQUESTED_BY: "clutch.run.requested_by",
  ENTRY_AGENT: "clutch.run.entry_agent",
  TASK_TITLE: "clutch.task.title",
  TASK_STATE: "clutch.task.state",
  TASK_ATTEMPT: "clutch.task.attempt",
  REQUESTER: "clutch.task.requester",
  ERROR_RETRYABLE: "clutch.error.retryable",
  CANCEL_REASON: "clutch.cancel.reason",
  STEP: "clutch.step",
  MODEL_PROVIDER: "clutch.model.provider",
  TOOL_SERVER_ID: "clutch.tool.server_id",
  WAIT: "clutch.wait",
  WAIT_OUTCOME: "clutch.wait.outcome",
  APPROVAL_ID: "clutch.approval_id",
  APPROVAL_KIND: "clutch.approval.kind",
  APPROVAL_SUMMARY: "clutch.approval.summary",
  APPROVAL_RULE: "clutch.approval.rule",
  APPROVAL_ESCALATED_TO: "clutch.approval.escalated_to",
  DECIDED_BY: "clutch.approval.decided_by",
  QUESTION_ID: "clutch.question_id",
  QUESTION_TO: "clutch.question.to",
  ANSWERED_BY: "clutch.answered_by",
} as const;

/**
 * `gen_ai.provider.name` of a `model.usage` provider (the AI SDK's provider id, `<name>.<api>`:
 * `anthropic.messages`, `openai.chat`, `openai-compatible.chat`). A provider the GenAI
 * conventions list gets their well-known value (`anthropic`, `openai`, `azure.ai.openai`,
 * `aws.bedrock`, `gcp.gemini`, …). Any other is a custom value, as the conventions allow: Clutch's
 * own (`clutch.builtin`, the built-in model) stays whole; an OpenAI-compatible endpoint is its
 * spec's `name` (`openai-compatible` unless the spec names it, e.g. `ollama`).
 */
export function providerName(provider: string): string {
  if (provider.startsWith("clutch.")) return provider;
  const head = provider.split(".")[0]!.toLowerCase();
  return WELL_KNOWN_PROVIDERS[head] ?? head;
}

/** The AI SDK's provider names and the GenAI conventions' well-known `gen_ai.provider.name` for each. */
const WELL_KNOWN_PROVIDERS: Record<string, string> = {
  anthropic: "anthropic",
  openai: "openai",
  azure: "azure.ai.openai",
  "amazon-bedrock": "aws.bedrock",
  bedrock: "aws.bedrock",
  google: "gcp.gemini",
  vertex: "gcp.vertex_ai",
  mistral: "mistral_ai",
  groq: "groq",
  deepseek: "deepseek",
  cohere: "cohere",
  perplexity: "perplexity",
  xai: "x_ai",
};

/**
 * The provider a `model.usage` records for `model` (server/agents/runner.ts): the AI SDK's
 * provider id, except that an OpenAI-compatible model under its default name
 * (`openai-compatible.<api>`) whose base URL is a known provider's API is recorded under that
 * provider's AI SDK name: `https://api.openai.com/v1` → `openai.chat`, an Azure OpenAI resource
 * (`*.openai.azure.com`) → `azure.chat`, and so on, so its `gen_ai.provider.name` is the
 * well-known value. A name the spec chose is kept, as is any other endpoint (Ollama, vLLM, …).
 */
export function usageProvider(model: { provider: string; modelId?: string }): string {
  const [head, ...api] = model.provider.split(".");
  if (head !== "openai-compatible") return model.provider;
  const host = endpointHost(model);
  const known = host ? KNOWN_ENDPOINTS.find(([suffix]) => host === suffix || host.endsWith(`.${suffix}`))?.[1] : undefined;
  return known ? [known, ...api].join(".") : model.provider;
}

/** API hosts of providers reached through the OpenAI-compatible client, with their AI SDK provider names. */
const KNOWN_ENDPOINTS: [host: string, name: string][] = [
  ["api.openai.com", "openai"],
  ["openai.azure.com", "azure"],
  ["api.groq.com", "groq"],
  ["api.deepseek.com", "deepseek"],
  ["api.mistral.ai", "mistral"],
  ["api.x.ai", "xai"],
  ["api.perplexity.ai", "perplexity"],
  ["generativelanguage.googleapis.com", "google"],
];

/**
 * The host an OpenAI-compatible model calls (lower case), or null. The AI SDK's
 * OpenAICompatibleChatLanguageModel keeps its endpoint in `config.url({ path, modelId })`, which
 * is not part of its typed surface: read defensively, anything unexpected is null.
 */
function endpointHost(model: { modelId?: string }): string | null {
  const config = (model as { config?: { url?: unknown } }).config;
  if (typeof config?.url !== "function") return null;
  try {
    const url: unknown = config.url({ path: "/chat/completions", modelId: model.modelId ?? "" });
    return typeof url === "string" ? new URL(url).hostname.toLowerCase() : null;
  } catch {
    return null;
  }
}
