/**
 * Model sources for Clutch's agents: the deterministic built-in model (default: no key, no
 * network; it plays the workspace's playbooks), any OpenAI-compatible chat-completions endpoint
 * (OpenAI, Ollama, vLLM, …) and Anthropic, chosen for all agents or per agent.
 *
 * Environment:
 *   CLUTCH_MODEL                 model of every agent: `builtin` (default), `openai[:<model>]`,
 *                                `openai-compatible[:<model>]`, `ollama[:<model>]`,
 *                                `anthropic[:<model>]`, or a JSON ModelSpec
 *   CLUTCH_MODEL_<AGENT>         the same for one agent; <AGENT> is its id without `agent:`, upper
 *                                snake case (`agent:pm-1` → CLUTCH_MODEL_PM_1)
 *   OPENAI_BASE_URL              e.g. http://127.0.0.1:11434/v1 (Ollama), http://host:8000/v1 (vLLM);
 *                                default https://api.openai.com/v1 when OPENAI_API_KEY is set
 *   OPENAI_API_KEY, OPENAI_MODEL key (optional for local servers) and default model name
 *   ANTHROPIC_API_KEY, ANTHROPIC_MODEL, ANTHROPIC_BASE_URL
 *
 * Errors: a spec that does not parse, or a provider without the key, URL or model it needs,
 * throws a ClutchError with code MODEL_CONFIG and a message that says which variable to set.
 */
import { createAnthropic } from "@ai-sdk/anthropic";
import { createOpenAICompatible } from "@ai-sdk/openai-compatible";
import type { LanguageModelV3 } from "@ai-sdk/provider";
import { z } from "zod";
import { ClutchError } from "../../errors";
import { BuiltinLanguageModel } from "./builtin";
import { connectModelHelp, modelEnvVar, ModelNotConfiguredError } from "./connect";
import type { Playbooks } from "./playbooks";

export { BuiltinLanguageModel, builtinModel, slowModel } from "./builtin";
export { modelEnvVar, ModelNotConfiguredError } from "./connect";
export { loadPlaybooks, type Playbooks } from "./playbooks";

const url = z.url({ error: "baseURL must be an http(s) URL, e.g. http://127.0.0.1:11434/v1" });

export const BuiltinSpecSchema = z.object({ provider: z.literal("builtin") });
export const OpenAICompatibleSpecSchema = z.object({
  provider: z.literal("openai-compatible"),
  /** Chat-completions base URL (the part before `/chat/completions`). Default: OPENAI_BASE_URL. */
  baseURL: url.optional(),
  /** Sent as `Authorization: Bearer`. Default: OPENAI_API_KEY; optional for local servers. */
  apiKey: z.string().min(1).optional(),
  /** Model name, e.g. `gpt-4.1-mini`, `llama3.1:8b`. Default: OPENAI_MODEL. */
  model: z.string().min(1).optional(),
  /** Provider name in telemetry (default `openai-compatible`). */
  name: z.string().min(1).optional(),
});
export const AnthropicSpecSchema = z.object({
  provider: z.literal("anthropic"),
  /** e.g. `claude-sonnet-4-5`. Default: ANTHROPIC_MODEL. */
  model: z.string().min(1).optional(),
  /** Default: ANTHROPIC_API_KEY. */
  apiKey: z.string().min(1).optional(),
  /** Default: ANTHROPIC_BASE_URL, else Anthropic's API. */
  baseURL: url.optional(),
});

/** Which model an agent uses: `"builtin"` or `{ provider, … }`. */
export const ModelSpecSchema = z.union([
  z.literal("builtin").transform(() => ({ provider: "builtin" as const })),
  z.discriminatedUnion("provider", [BuiltinSpecSchema, OpenAICompatibleSpecSchema, AnthropicSpecSchema]),
]);
export type ModelSpec = z.input<typeof ModelSpecSchema>;
export type ResolvedSpec = z.output<typeof ModelSpecSchema>;

type Env = Record<string, string | undefined>;

/** What a model may need from the workspace it serves. */
export interface ModelContext {
  /** The workspace's playbooks, for the built-in model (loadPlaybooks). */
  playbooks?: Playbooks;
}

function configError(message: string): ClutchError {
  return new ClutchError("MODEL_CONFIG", message, 400);
}

function nonEmpty(v: string | undefined): string | undefined {
  return v && v.trim() ? v.trim() : undefined;
}

/** The built-in model writes a piece of a streamed reply every this many ms, unless CLUTCH_BUILTIN_PACE_MS says otherwise (0: at once). */
export const BUILTIN_PACE_MS = 25;

/** CLUTCH_BUILTIN_PACE_MS as a number of ms (docs/limits.md); default BUILTIN_PACE_MS. Throws MODEL_CONFIG when it is not a whole number from 0 to 1000. */
export function builtinPaceMs(env: Env): number {
  const raw = nonEmpty(env.CLUTCH_BUILTIN_PACE_MS);
  if (raw === undefined) return BUILTIN_PACE_MS;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < 0 || n > 1000) throw configError(`CLUTCH_BUILTIN_PACE_MS="${raw}" must be a whole number of milliseconds from 0 to 1000 (0: replies appear at once)`);
  return n;
}

/**
 * The language model for `spec`. Defaults not in the spec come from `env` (process.env by
 * default); the built-in model plays `context.playbooks`. Throws ClutchError MODEL_CONFIG for an
 * invalid spec or a missing URL, key or model.
 */
export function resolveModel(spec: ModelSpec = "builtin", env: Env = process.env, context: ModelContext = {}): LanguageModelV3 {
  const parsed = ModelSpecSchema.safeParse(spec);
  if (!parsed.success) {
    throw configError(`invalid model spec ${JSON.stringify(spec)}: ${parsed.error.issues.map((i) => `${i.path.join(".") || "spec"}: ${i.message}`).join("; ")}`);
  }
  const s = parsed.data;
  switch (s.provider) {
    case "builtin":
      return new BuiltinLanguageModel({ playbooks: context.playbooks, paceMs: builtinPaceMs(env) });
    case "openai-compatible": {
      const apiKey = s.apiKey ?? nonEmpty(env.OPENAI_API_KEY);
      const baseURL = s.baseURL ?? nonEmpty(env.OPENAI_BASE_URL) ?? (apiKey ? "https://api.openai.com/v1" : undefined);
      if (!baseURL) {
        throw configError(
          "the OpenAI-compatible model needs a base URL: set OPENAI_BASE_URL (e.g. http://127.0.0.1:11434/v1 for Ollama, http://localhost:8000/v1 for vLLM) or OPENAI_API_KEY for api.openai.com",
        );
      }
      const model = s.model ?? nonEmpty(env.OPENAI_MODEL);
      if (!model) throw configError(`the OpenAI-compatible model at ${baseURL} needs a model name: set OPENAI_MODEL or use CLUTCH_MODEL=openai:<model>`);
      const provider = createOpenAICompatible({ name: s.name ?? "openai-compatible", baseURL, apiKey, includeUsage: true });
      return provider.chatModel(model);
    }
    case "anthropic": {
      const apiKey = s.apiKey ?? nonEmpty(env.ANTHROPIC_API_KEY);
      if (!apiKey) throw configError("the Anthropic model needs an API key: set ANTHROPIC_API_KEY");
      const model = s.model ?? nonEmpty(env.ANTHROPIC_MODEL);
      if (!model) throw configError("the Anthropic model needs a model name: set ANTHROPIC_MODEL or use CLUTCH_MODEL=anthropic:<model>");
      const provider = createAnthropic({ apiKey, baseURL: s.baseURL ?? nonEmpty(env.ANTHROPIC_BASE_URL) });
      return provider.languageModel(model);
    }
  }
}

/**
 * A model spec from its short form: `builtin`; `openai`, `openai:<model>` (also
 * `openai-compatible:` and `ollama:`; the model may itself hold colons, `ollama:llama3.1:8b`);
 * `anthropic`, `anthropic:<model>`; or a JSON ModelSpec (`{"provider":"openai-compatible",…}`).
 * Throws ClutchError MODEL_CONFIG naming `source` when the value is not one of these.
 */
export function parseModelSpec(value: string, source = "CLUTCH_MODEL"): ResolvedSpec {
  const v = value.trim();
  if (v.startsWith("{")) {
    let json: unknown;
    try {
      json = JSON.parse(v);
    } catch (e) {
      throw configError(`${source} is not valid JSON: ${(e as Error).message}`);
    }
    const parsed = ModelSpecSchema.safeParse(json);
    if (!parsed.success) throw configError(`${source}: ${parsed.error.issues.map((i) => `${i.path.join(".") || "spec"}: ${i.message}`).join("; ")}`);
    return parsed.data;
  }
  const i = v.indexOf(":");
  const kind = (i < 0 ? v : v.slice(0, i)).toLowerCase();
  const model = i < 0 ? undefined : nonEmpty(v.slice(i + 1));
  switch (kind) {
    case "builtin":
    case "":
      return { provider: "builtin" };
    case "openai":
    case "openai-compatible":
    case "ollama":
    case "vllm":
      return { provider: "openai-compatible", ...(model ? { model } : {}) };
    case "anthropic":
    case "claude":
      return { provider: "anthropic", ...(model ? { model } : {}) };
    default:
      throw configError(`${source}="${value}" is not a model: use builtin, openai:<model>, anthropic:<model>, or a JSON spec`);
  }
}

/**
 * The model spec for `agent_id` from the environment: CLUTCH_MODEL_<AGENT> when set, else
 * CLUTCH_MODEL, else builtin. URL and key defaults are applied later by resolveModel.
 */
export function modelSpecFromEnv(env: Env, agent_id: string): ResolvedSpec {
  const perAgent = modelEnvVar(agent_id);
  const own = nonEmpty(env[perAgent]);
  if (own) return parseModelSpec(own, perAgent);
  const all = nonEmpty(env.CLUTCH_MODEL);
  if (all) return parseModelSpec(all, "CLUTCH_MODEL");
  return { provider: "builtin" };
}

/** The model of `agent_id` as the environment configures it (modelSpecFromEnv + resolveModel). */
export function modelFromEnv(env: Env, agent_id: string, context: ModelContext = {}): LanguageModelV3 {
  return resolveModel(modelSpecFromEnv(env, agent_id), env, context);
}

/**
 * The model of `agent_id` when its import gave it one (`imported`, an AutoGen agent's model
 * client; docs/adapters.md "AutoGen"): CLUTCH_MODEL_<AGENT> when set, else the imported spec when
 * the environment has what it needs (its key or URL), else the deployment's model (CLUTCH_MODEL)
 * when it has a real one. With only the built-in model, which plays the workspace's playbooks and
 * knows nothing of an imported team's work, the agent gets a model that fails every call with
 * ModelNotConfiguredError, saying in people's words what to set (docs/adapters.md "AutoGen").
 * `onFallback` hears why an imported spec was not used.
 */
export function modelForAgent(env: Env, agent_id: string, imported: ResolvedSpec | null, context: ModelContext = {}, onFallback?: (err: ClutchError) => void): LanguageModelV3 {
  if (!imported || nonEmpty(env[modelEnvVar(agent_id)])) return modelFromEnv(env, agent_id, context);
  try {
    return resolveModel(imported, env, context);
  } catch (err) {
    if (!(err instanceof ClutchError)) throw err;
    onFallback?.(err);
    if (modelSpecFromEnv(env, agent_id).provider !== "builtin") return modelFromEnv(env, agent_id, context);
    return new UnconfiguredModel(agent_id, `its imported model cannot be used here: ${err.message}`);
  }
}

/** A LanguageModelV3 that fails every call with ModelNotConfiguredError naming the agent, the cause and the settings. */
export class UnconfiguredModel implements LanguageModelV3 {
  readonly specificationVersion = "v3" as const;
  readonly provider = "clutch.unconfigured";
  readonly modelId = "none";
  readonly supportedUrls: Record<string, RegExp[]> = {};
  private readonly error: ModelNotConfiguredError;

  constructor(agent_id: string, cause: string) {
    const help = connectModelHelp(agent_id).join("\n");
    this.error = new ModelNotConfiguredError(`${agent_id.replace(/^agent:/, "")} has no model to work with: ${cause}\n\n${help}`);
  }

  async doGenerate(): Promise<never> {
    throw this.error;
  }

  async doStream(): Promise<never> {
    throw this.error;
  }
}
