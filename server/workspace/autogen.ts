/**
 * AutoGen team import (Clutch Protocol §7.3 `autogen` adapter; docs/adapters.md "AutoGen"): an
 * AgentChat declarative component spec of a team (`{ provider, component_type: "team", config }`,
 * what `team.dump_component()` and AutoGen Studio save), or an AutoGen Studio gallery holding
 * teams, becomes a team of the workspace: the same `ImportedTeam` a PromptPack becomes
 * (server/workspace/promptpack.ts), so storing, mounting and restarting are shared
 * (server/workspace/imports.ts).
 *
 *   the team's label (else config.name)  → the team's id (lowercase, `-`), which names its channel;
 *                                           the import's `id` overrides it
 *   AssistantAgent                       → a CAP manifest `<team id>-<name>` and its AgentCard
 *                                           (display name: the AutoGen name; description;
 *                                           `system_message` → `system_prompt`, AutoGen's default
 *                                           prompt when it has none)
 *   its model_client                     → `autogen.model`, a Clutch ModelSpec
 *                                           (server/agents/models): OpenAI and OpenAI-compatible
 *                                           (`base_url`), Ollama (`host` + `/v1`), Anthropic;
 *                                           temperature / max_tokens / top_p → `model_parameters`;
 *                                           an `api_key` is never kept (set the provider's variable)
 *   its model_context                    → `autogen.model_context` (buffer_size, head/tail sizes,
 *                                           token_limit kept for the pattern runner)
 *   its handoffs                         → `allowed_agents` with a delegate rule each (a handoff
 *                                           is a delegation); all kept in the team's pattern
 *   McpWorkbench (stdio)                 → an `mcp_bindings` entry; the server's command is in
 *                                           the import's warnings, for the workspace's MCP file
 *   UserProxyAgent                       → no agent: its turn asks the people in the channel
 *   FunctionTool, PythonCodeExecutionTool, code executors, MultimodalWebSurfer and the other
 *   agents Clutch cannot run, memory     → warnings with the component's JSONPath; never run
 *   the team                             → a channel `#<team id>`, its entry agent the first
 *                                           participant Clutch runs, its topic the description
 *                                           (led by the label when the id does not say it:
 *                                           promptpack.ts `teamTopic`); `pattern` (AutogenPattern)
 *                                           keeps participants in order, selector settings,
 *                                           handoffs and the termination condition tree
 *
 * Refused (AutogenError → 400 with each problem's JSONPath, nothing imported): a component whose
 * `provider` Clutch does not know for its place (team, agent, model, model context, termination);
 * a team without participants, two participants with one name, a handoff or termination source
 * naming no participant; handoffs forming a cycle in a team with neither termination_condition
 * nor max_turns; a SelectorGroupChat with a custom `selector_func` or `candidate_func` (Python
 * callables Clutch cannot run); a gallery without the team asked for.
 */
import type { Termination } from "@/lib/group-chat/turns";
import { readGraph, type GraphSpec } from "@/lib/group-chat/graph-flow";
import { z } from "zod";
import { CAP_AGENT_ID_PATTERN, CapManifestSchema, type CapManifest } from "@/lib/protocol";
import type { ResolvedSpec } from "../agents/models";
import { PackError, teamTopic, type ImportedTeam, type PackIssue } from "./promptpack";

/** A problem with an AutoGen spec is a pack problem: same shape (JSONPath + message), same 400. */
export { PackError as AutogenError };

/** AgentChat's declarative component spec (autogen_core ComponentModel). Unknown fields are kept. */
export const ComponentSchema = z.looseObject({
  provider: z.string().min(1, "provider names the component's class, e.g. autogen_agentchat.agents.AssistantAgent"),
  component_type: z.string().nullish(),
  version: z.number().int().nullish(),
  component_version: z.number().int().nullish(),
  description: z.string().nullish(),
  label: z.string().nullish(),
  config: z.record(z.string(), z.unknown()).default({}),
});
export type Component = z.infer<typeof ComponentSchema>;

/** `autogen_core.WELL_KNOWN_PROVIDERS`: short names AutoGen itself expands. */
const WELL_KNOWN: Record<string, string> = {
  azure_openai_chat_completion_client: "autogen_ext.models.openai.AzureOpenAIChatCompletionClient",
  AzureOpenAIChatCompletionClient: "autogen_ext.models.openai.AzureOpenAIChatCompletionClient",
  openai_chat_completion_client: "autogen_ext.models.openai.OpenAIChatCompletionClient",
  OpenAIChatCompletionClient: "autogen_ext.models.openai.OpenAIChatCompletionClient",
  OllamaChatCompletionClient: "autogen_ext.models.ollama.OllamaChatCompletionClient",
};
const providerOf = (c: Component) => WELL_KNOWN[c.provider] ?? c.provider;

const TEAMS = {
  "autogen_agentchat.teams.RoundRobinGroupChat": "round_robin",
  "autogen_agentchat.teams.SelectorGroupChat": "selector",
  "autogen_agentchat.teams.Swarm": "swarm",
  "autogen_agentchat.teams.MagenticOneGroupChat": "magentic_one",
  "autogen_agentchat.teams.GraphFlow": "graph_flow",
} as const;
/** Agents Clutch cannot run: imported as a warning, never run. */
const UNRUNNABLE_AGENTS = new Set([
  "autogen_ext.agents.web_surfer.MultimodalWebSurfer",
  "autogen_ext.agents.file_surfer.FileSurfer",
  "autogen_ext.agents.video_surfer.VideoSurfer",
  "autogen_ext.agents.openai.OpenAIAssistantAgent",
  "autogen_ext.agents.openai.OpenAIAgent",
  "autogen_agentchat.agents.CodeExecutorAgent",
  "autogen_agentchat.agents.SocietyOfMindAgent",
  "autogen_agentchat.agents.MessageFilterAgent",
]);
const MODELS = new Set([
  "autogen_ext.models.openai.OpenAIChatCompletionClient",
  "autogen_ext.models.anthropic.AnthropicChatCompletionClient",
  "autogen_ext.models.ollama.OllamaChatCompletionClient",
]);
/** Model clients AutoGen has that Clutch does not map: the agent runs on the deployment's model, with a warning. */
const UNMAPPED_MODELS = new Set([
  "autogen_ext.models.openai.AzureOpenAIChatCompletionClient",
  "autogen_ext.models.anthropic.AnthropicBedrockChatCompletionClient",
  "autogen_ext.models.azure.AzureAIChatCompletionClient",
  "autogen_ext.models.replay.ReplayChatCompletionClient",
  "autogen_ext.models.cache.ChatCompletionCache",
  "autogen_ext.models.llama_cpp.LlamaCppChatCompletionClient",
  "autogen_ext.models.semantic_kernel.SKChatCompletionAdapter",
]);
const CONTEXTS = {
  "autogen_core.model_context.UnboundedChatCompletionContext": "unbounded",
  "autogen_core.model_context.BufferedChatCompletionContext": "buffered",
  "autogen_core.model_context.HeadAndTailChatCompletionContext": "head_and_tail",
  "autogen_core.model_context.TokenLimitedChatCompletionContext": "token_limited",
} as const;

/** An AgentChat termination condition as data (autogen_agentchat.conditions, base And/Or): the group chat's own type. */
export type AutogenTermination = Termination;

/** One participant of the team, in the team's order. */
export interface AutogenParticipant {
  /** The AutoGen name (a message's `source`). */
  name: string;
  /** `agent`: a Clutch agent (AssistantAgent); `people`: a UserProxyAgent (ask the people in the channel); `left_out`: Clutch cannot run it. */
  kind: "agent" | "people" | "left_out";
  /** For `agent`: its Clutch agent id (`agent:<team id>-<name>`). */
  agent_id: string | null;
  provider: string;
  description: string | null;
}

/**
 * The team's group-chat pattern, kept for the pattern runner (docs/adapters.md "AutoGen"). Names
 * are AutoGen names (participants[].name), `user` included as AutoGen uses it.
 */
export interface AutogenPattern {
  kind: (typeof TEAMS)[keyof typeof TEAMS];
  provider: string;
  participants: AutogenParticipant[];
  /** SelectorGroupChat: the prompt that picks the next speaker ({roles}, {participants}, {history}). */
  selector_prompt: string | null;
  /** SelectorGroupChat: may the same speaker speak twice in a row (AutoGen default false). */
  allow_repeated_speaker: boolean;
  max_selector_attempts: number | null;
  /**
   * The team's own `model_client` as a Clutch ModelSpec: SelectorGroupChat's selector, MagenticOne's
   * orchestrator (null: not mapped, or no such client; server.ts runs it on the deployment's model).
   */
  team_model: ResolvedSpec | null;
  /** GraphFlow: the directed graph (lib/group-chat/graph-flow.ts). */
  graph: GraphSpec | null;
  /** MagenticOneGroupChat: stalls before the orchestrator replans (null: AutoGen's 3). */
  max_stalls: number | null;
  /** MagenticOneGroupChat: the final answer's prompt (null: AutoGen's). */
  final_answer_prompt: string | null;
  /** Every handoff of every participant (Swarm moves the turn by them). */
  handoffs: { from: string; target: string; name: string | null; description: string | null; message: string | null }[];
  termination: AutogenTermination | null;
  max_turns: number | null;
}

/** What an AutoGen import adds to ImportedTeam. */
export interface AutogenImport {
  pattern: AutogenPattern;
}

/** AutoGen's AssistantAgent default `system_message` (autogen_agentchat.agents.AssistantAgent). */
export const AUTOGEN_DEFAULT_SYSTEM_MESSAGE = "You are a helpful AI assistant. Solve tasks using your tools. Reply with TERMINATE when the task has been completed.";

/** True when `value` is an AutoGen team spec or an AutoGen Studio gallery (by shape). */
export function isAutogenSpec(value: unknown): boolean {
  if (!value || typeof value !== "object" || Array.isArray(value)) return false;
  const v = value as Record<string, unknown>;
  if (typeof v.provider === "string" && v.component_type === "team") return true;
  return Array.isArray(teamsOfGallery(v)?.teams);
}

function teamsOfGallery(v: Record<string, unknown>): { teams: unknown; at: string } | null {
  for (const key of ["components", "items"]) {
    const c = v[key] as Record<string, unknown> | undefined;
    if (c && typeof c === "object" && Array.isArray(c.teams)) return { teams: c.teams, at: `$.${key}.teams` };
  }
  const config = v.config as Record<string, unknown> | undefined;
  const inner = config?.components as Record<string, unknown> | undefined;
  if (inner && Array.isArray(inner.teams)) return { teams: inner.teams, at: "$.config.components.teams" };
  return null;
}

/**
 * The team component of `spec` (a team, or a gallery: the team `pick` names by index or label,
 * else its first) and where it is. Throws AutogenError when the gallery has no such team.
 */
export function pickTeam(spec: unknown, pick?: string | number): { team: unknown; at: string; note: string | null } {
  const v = spec as Record<string, unknown>;
  if (typeof v.provider === "string" && v.component_type === "team") return { team: v, at: "$", note: null };
  const gallery = teamsOfGallery(v);
  const teams = (gallery?.teams ?? []) as { label?: unknown; config?: { name?: unknown } }[];
  const names = teams.map((t, i) => `${i}: ${String(t?.label ?? t?.config?.name ?? "(no label)")}`).join(", ");
  if (!teams.length) throw new PackError([{ path: gallery?.at ?? "$", message: "the gallery has no teams" }]);
  let index = 0;
  if (pick !== undefined && pick !== "") {
    index = typeof pick === "number" || /^\d+$/.test(pick) ? Number(pick) : teams.findIndex((t) => t?.label === pick || t?.config?.name === pick);
    if (!teams[index]) throw new PackError([{ path: gallery!.at, message: `the gallery has no team ${JSON.stringify(pick)}; it has ${names}` }]);
  }
  const note = pick === undefined || pick === "" ? (teams.length > 1 ? `the gallery has ${teams.length} teams (${names}); the first was imported: import again with team=<index or label> for another` : null) : null;
  return { team: teams[index], at: `${gallery!.at}[${index}]`, note };
}

/** A team id from a label: lowercase letters, digits, `-`; at most 40 characters. */
export function teamIdOf(label: string): string {
  const id = label.toLowerCase().replace(/[^a-z0-9]+/g, "-").replace(/^-+|-+$/g, "").slice(0, 40).replace(/-+$/, "");
  return id || "autogen-team";
}

/** The spec with every `api_key` (and Authorization header) replaced, as it is stored. */
export function redactSecrets(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(redactSecrets);
  if (!value || typeof value !== "object") return value;
  return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, /^(api_key|authorization|x-api-key)$/i.test(k) && typeof v === "string" ? "(removed at import)" : redactSecrets(v)]));
}

const str = (v: unknown): string | null => (typeof v === "string" && v.length ? v : null);
const num = (v: unknown): number | null => (typeof v === "number" && Number.isFinite(v) ? v : null);

/** Context of one import: where problems and warnings go. */
class Reader {
  issues: PackIssue[] = [];
  warnings: string[] = [];
  notes: string[] = [];
  issue(path: string, message: string) {
    this.issues.push({ path, message });
  }
  /** The component at `path`, or null (an issue) when it is not one. */
  component(value: unknown, path: string): Component | null {
    const parsed = ComponentSchema.safeParse(value);
    if (parsed.success) return parsed.data;
    for (const i of parsed.error.issues) this.issue(`${path}${i.path.map((k) => (typeof k === "number" ? `[${k}]` : `.${String(k)}`)).join("")}`, i.message);
    return null;
  }
}

/** The Clutch ModelSpec and sampling of a model client component, or null (warned) when Clutch does not map it. */
function modelOf(r: Reader, c: Component, at: string, who: string): { spec: ResolvedSpec; sampling: Record<string, number> } | null {
  const provider = providerOf(c);
  const cfg = c.config;
  if (!MODELS.has(provider)) {
    if (UNMAPPED_MODELS.has(provider)) {
      r.warnings.push(`${at}: ${who} uses ${provider.split(".").pop()}, which Clutch does not connect to; it runs on the deployment's model (set CLUTCH_MODEL_<AGENT> to choose one)`);
      return null;
    }
    r.issue(`${at}.provider`, `unknown model client provider ${JSON.stringify(c.provider)}: Clutch maps OpenAIChatCompletionClient, AnthropicChatCompletionClient and OllamaChatCompletionClient`);
    return null;
  }
  const model = str(cfg.model);
  if (!model) {
    r.issue(`${at}.config.model`, "a model client needs its model name");
    return null;
  }
  if (str(cfg.api_key)) r.warnings.push(`${at}.config.api_key: not kept; set ${provider.includes("anthropic") ? "ANTHROPIC_API_KEY" : "OPENAI_API_KEY"} on the server instead`);
  const sampling: Record<string, number> = {};
  for (const k of ["temperature", "max_tokens", "top_p"] as const) if (num(cfg[k]) !== null) sampling[k] = num(cfg[k])!;
  if (provider.endsWith("OllamaChatCompletionClient")) {
    const host = (str(cfg.host) ?? "http://localhost:11434").replace(/\/+$/, "");
    return { spec: { provider: "openai-compatible", name: "ollama", model, baseURL: `${/^https?:\/\//.test(host) ? host : `http://${host}`}/v1` }, sampling };
  }
  if (provider.endsWith("AnthropicChatCompletionClient")) return { spec: { provider: "anthropic", model, ...(str(cfg.base_url) ? { baseURL: str(cfg.base_url)! } : {}) }, sampling };
  return { spec: { provider: "openai-compatible", name: str(cfg.base_url) ? "openai-compatible" : "openai", model, ...(str(cfg.base_url) ? { baseURL: str(cfg.base_url)! } : {}) }, sampling };
}

/** A termination condition tree as data, or null with issues. `names`: the team's participant names. */
function terminationOf(r: Reader, value: unknown, at: string, names: Set<string>): AutogenTermination | null {
  const c = r.component(value, at);
  if (!c) return null;
  const cfg = c.config;
  const p = providerOf(c).replace(/^autogen_agentchat\.(conditions|base)\./, "");
  const sourcesOk = (sources: string[], field: string) => {
    sources.forEach((s, i) => {
      if (!names.has(s) && s !== "user") r.issue(`${at}.config.${field}[${i}]`, `names ${s}, who is not a participant of the team (${[...names].join(", ")})`);
    });
  };
  switch (p) {
    case "TextMentionTermination": {
      const text = str(cfg.text);
      if (!text) r.issue(`${at}.config.text`, "TextMentionTermination needs the text to look for");
      const sources = Array.isArray(cfg.sources) ? cfg.sources.map(String) : null;
      if (sources) sourcesOk(sources, "sources");
      return text ? { kind: "text_mention", text, sources } : null;
    }
    case "MaxMessageTermination": {
      const max = num(cfg.max_messages);
      if (max === null || max < 1) r.issue(`${at}.config.max_messages`, "MaxMessageTermination needs max_messages, a positive number");
      return max ? { kind: "max_message", max_messages: max, include_agent_event: cfg.include_agent_event === true } : null;
    }
    case "HandoffTermination": {
      const target = str(cfg.target);
      if (!target) r.issue(`${at}.config.target`, "HandoffTermination needs its target");
      return target ? { kind: "handoff", target } : null;
    }
    case "TimeoutTermination": {
      const s = num(cfg.timeout_seconds);
      if (s === null || s <= 0) r.issue(`${at}.config.timeout_seconds`, "TimeoutTermination needs timeout_seconds, a positive number");
      return s ? { kind: "timeout", timeout_seconds: s } : null;
    }
    case "TokenUsageTermination":
      return { kind: "token_usage", max_total_token: num(cfg.max_total_token), max_prompt_token: num(cfg.max_prompt_token), max_completion_token: num(cfg.max_completion_token) };
    case "StopMessageTermination":
      return { kind: "stop_message" };
    case "SourceMatchTermination": {
      const sources = Array.isArray(cfg.sources) ? cfg.sources.map(String) : [];
      sourcesOk(sources, "sources");
      return { kind: "source_match", sources };
    }
    case "TextMessageTermination":
      return { kind: "text_message", source: str(cfg.source) };
    case "FunctionCallTermination":
      return { kind: "function_call", function_name: str(cfg.function_name) ?? "" };
    case "ExternalTermination":
      return { kind: "external" };
    case "AndTerminationCondition":
    case "OrTerminationCondition": {
      const list = Array.isArray(cfg.conditions) ? cfg.conditions : [];
      if (!list.length) r.issue(`${at}.config.conditions`, `${p} needs conditions`);
      const conditions = list.map((x, i) => terminationOf(r, x, `${at}.config.conditions[${i}]`, names)).filter((x): x is AutogenTermination => x !== null);
      return { kind: p.startsWith("And") ? "and" : "or", conditions };
    }
    default:
      r.issue(`${at}.provider`, `unknown termination condition provider ${JSON.stringify(c.provider)}`);
      return null;
  }
}

/** The cycle among `edges` (from → targets), as names, or null. */
function findCycle(edges: Map<string, string[]>): string[] | null {
  const state = new Map<string, 1 | 2>();
  const stack: string[] = [];
  const visit = (n: string): string[] | null => {
    state.set(n, 1);
    stack.push(n);
    for (const m of edges.get(n) ?? []) {
      if (state.get(m) === 1) return [...stack.slice(stack.indexOf(m)), m];
      if (!state.has(m)) {
        const found = visit(m);
        if (found) return found;
      }
    }
    stack.pop();
    state.set(n, 2);
    return null;
  };
  for (const n of edges.keys()) {
    if (!state.has(n)) {
      const found = visit(n);
      if (found) return found;
    }
  }
  return null;
}

/** The tools, workbenches and memory of an AssistantAgent: warnings (never run) and MCP bindings. */
function toolsOf(r: Reader, cfg: Record<string, unknown>, at: string, name: string): CapManifest["mcp_bindings"] {
  const bindings: CapManifest["mcp_bindings"] = [];
  const warnTool = (tool: unknown, path: string) => {
    const c = r.component(tool, path);
    if (!c) return;
    const toolName = str((c.config as { name?: unknown }).name) ?? c.label ?? providerOf(c).split(".").pop();
    const what = providerOf(c).endsWith("FunctionTool") ? "a Python function (its source is not run by Clutch)" : `${providerOf(c).split(".").pop()}, which Clutch does not run`;
    r.warnings.push(`${path}: ${name}'s tool ${toolName} is ${what}; left out. Bind an MCP server that offers it to give ${name} the tool`);
  };
  (Array.isArray(cfg.tools) ? cfg.tools : []).forEach((t, i) => warnTool(t, `${at}.config.tools[${i}]`));
  const benches = Array.isArray(cfg.workbench) ? cfg.workbench : cfg.workbench ? [cfg.workbench] : [];
  benches.forEach((w, i) => {
    const path = Array.isArray(cfg.workbench) ? `${at}.config.workbench[${i}]` : `${at}.config.workbench`;
    const c = r.component(w, path);
    if (!c) return;
    const provider = providerOf(c);
    if (provider.endsWith("StaticWorkbench")) {
      ((c.config as { tools?: unknown[] }).tools ?? []).forEach((t, j) => warnTool(t, `${path}.config.tools[${j}]`));
    } else if (provider.endsWith("McpWorkbench")) {
      const params = ((c.config as { server_params?: Record<string, unknown> }).server_params ?? {}) as Record<string, unknown>;
      const command = str(params.command);
      const server_id = teamIdOf(c.label ?? (command ? [command, ...((params.args as string[]) ?? [])].join(" ") : "mcp")).replace(/-/g, "_").slice(0, 40) || "mcp";
      if (command) {
        const tools = Object.keys(((c.config as { tool_overrides?: Record<string, unknown> }).tool_overrides ?? {}) as object);
        bindings.push({ server_id, ...(c.description ? { description: c.description.slice(0, 300) } : {}), scopes: [], allowed_tools: tools });
        const entry = JSON.stringify({ command, args: params.args ?? [], ...(params.env ? { env: params.env } : {}) });
        r.warnings.push(`${path}: ${name} is bound to the MCP server ${server_id}; add it to the workspace's MCP file ("${server_id}": ${entry}) and list the tools it may use in the binding's allowed_tools`);
      } else {
        r.warnings.push(`${path}: ${name}'s MCP workbench reaches its server over ${String(params.type ?? "HTTP")} (${String(params.url ?? "no url")}); Clutch starts MCP servers over stdio only, so it is left out`);
      }
    } else {
      r.warnings.push(`${path}: ${name}'s workbench ${provider.split(".").pop()} is not one Clutch runs; left out`);
    }
  });
  (Array.isArray(cfg.memory) ? cfg.memory : []).forEach((m, i) => {
    const c = r.component(m, `${at}.config.memory[${i}]`);
    if (c) r.warnings.push(`${at}.config.memory[${i}]: ${name}'s memory ${providerOf(c).split(".").pop()} is not kept; Clutch's agents read the channel's history`);
  });
  return bindings;
}

/**
 * Map an AutoGen team (a team component, or a gallery and `options.team` picking one of its
 * teams; see the module doc). `options.id` overrides the team's id. Throws AutogenError (a
 * PackError) listing every problem with its JSONPath from the spec's root.
 */
export function autogenToTeam(spec: unknown, options: { id?: string; team?: string | number } = {}): ImportedTeam & { autogen: AutogenImport } {
  if (!spec || typeof spec !== "object" || Array.isArray(spec)) throw new PackError([{ path: "$", message: "an AutoGen spec is a JSON object" }]);
  const picked = pickTeam(spec, options.team);
  const r = new Reader();
  if (picked.note) r.notes.push(picked.note);
  const at = picked.at;
  const team = r.component(picked.team, at);
  if (!team) throw new PackError(r.issues);
  const kind = TEAMS[providerOf(team) as keyof typeof TEAMS];
  if (!kind) throw new PackError([{ path: `${at}.provider`, message: `unknown team provider ${JSON.stringify(team.provider)}: Clutch imports ${Object.keys(TEAMS).map((p) => p.split(".").pop()).join(", ")}` }]);
  const cfg = team.config;
  const label = team.label ?? str(cfg.name) ?? "AutoGen team";
  const id = options.id ?? teamIdOf(label);
  if (!/^[a-z0-9][a-z0-9_-]*$/.test(id) || id.length > 60) r.issue("$.id", "a team id is lowercase letters, digits, - and _ (it names the team's channel)");

  const list = Array.isArray(cfg.participants) ? cfg.participants : [];
  if (!list.length) r.issue(`${at}.config.participants`, "a team needs at least one participant");
  // First pass: names, so handoffs and conditions can be checked against them.
  const comps = list.map((p, i) => r.component(p, `${at}.config.participants[${i}]`));
  const names = new Set<string>();
  comps.forEach((c, i) => {
    const name = str(c?.config.name);
    const path = `${at}.config.participants[${i}]`;
    if (!c) return;
    if (!name) return r.issue(`${path}.config.name`, "a participant needs a name");
    if (names.has(name)) r.issue(`${path}.config.name`, `two participants are named ${name}`);
    if (!CAP_AGENT_ID_PATTERN.test(name)) r.issue(`${path}.config.name`, `${JSON.stringify(name)} cannot be an agent name (letters, digits, - and _)`);
    names.add(name);
  });

  const participants: AutogenParticipant[] = [];
  const manifests: CapManifest[] = [];
  const handoffs: AutogenPattern["handoffs"] = [];
  const agentIdOf = (name: string) => `${id}-${name}`;
  comps.forEach((c, i) => {
    const path = `${at}.config.participants[${i}]`;
    const name = str(c?.config.name);
    if (!c || !name) return;
    const provider = providerOf(c);
    const acfg = c.config;
    const description = str(acfg.description) ?? c.description ?? null;
    if (provider === "autogen_agentchat.agents.UserProxyAgent") {
      participants.push({ name, kind: "people", agent_id: null, provider, description });
      r.notes.push(`${path}: ${name} (UserProxyAgent) asks the people in the channel: its turn is a question to them`);
      return;
    }
    if (UNRUNNABLE_AGENTS.has(provider) || TEAMS[provider as keyof typeof TEAMS]) {
      participants.push({ name, kind: "left_out", agent_id: null, provider, description });
      r.warnings.push(`${path}: ${name} is a ${provider.split(".").pop()}, which Clutch cannot run; left out of the team (its turns are skipped)`);
      return;
    }
    if (provider !== "autogen_agentchat.agents.AssistantAgent") {
      r.issue(`${path}.provider`, `unknown agent provider ${JSON.stringify(c.provider)}: Clutch imports AssistantAgent and UserProxyAgent, and lists ${[...UNRUNNABLE_AGENTS].map((p) => p.split(".").pop()).join(", ")} as left out`);
      return;
    }
    participants.push({ name, kind: "agent", agent_id: `agent:${agentIdOf(name)}`, provider, description });
    // Model client and context.
    let model: ResolvedSpec | null = null;
    let sampling: Record<string, number> = {};
    const mc = acfg.model_client === undefined ? null : r.component(acfg.model_client, `${path}.config.model_client`);
    if (!mc) r.issue(`${path}.config.model_client`, "an AssistantAgent needs its model_client");
    else {
      const m = modelOf(r, mc, `${path}.config.model_client`, name);
      if (m) [model, sampling] = [m.spec, m.sampling];
    }
    let model_context: Record<string, unknown> | null = null;
    if (acfg.model_context) {
      const ctx = r.component(acfg.model_context, `${path}.config.model_context`);
      const ck = ctx && CONTEXTS[providerOf(ctx) as keyof typeof CONTEXTS];
      if (ctx && !ck) r.issue(`${path}.config.model_context.provider`, `unknown model context provider ${JSON.stringify(ctx.provider)}`);
      else if (ctx && ck !== "unbounded") {
        model_context = { kind: ck, ...Object.fromEntries(["buffer_size", "head_size", "tail_size", "token_limit", "initial_messages"].filter((k) => ctx.config[k] !== undefined).map((k) => [k, ctx.config[k]])) };
        r.notes.push(`${path}.config.model_context: ${name} keeps AutoGen's ${ctx.label ?? ck} limits (${JSON.stringify(model_context)}) in its manifest's autogen.model_context`);
      }
    }
    const mcp_bindings = toolsOf(r, acfg, path, name);
    // Handoffs: strings (a target) or Handoff objects.
    const own: AutogenPattern["handoffs"] = [];
    (Array.isArray(acfg.handoffs) ? acfg.handoffs : []).forEach((h, j) => {
      const ho = typeof h === "string" ? { target: h } : ((h ?? {}) as Record<string, unknown>);
      const target = str(ho.target);
      if (!target) return r.issue(`${path}.config.handoffs[${j}].target`, "a handoff needs its target");
      if (target !== "user" && !names.has(target)) return r.issue(`${path}.config.handoffs[${j}].target`, `hands off to ${target}, who is not a participant of the team (${[...names].join(", ")})`);
      own.push({ from: name, target, name: str(ho.name), description: str(ho.description), message: str(ho.message) });
    });
    handoffs.push(...own);
    const delegates = [...new Set(own.map((h) => h.target).filter((t) => t !== "user" && t !== name))];
    const kept = { temperature: sampling.temperature, max_tokens: sampling.max_tokens, top_p: sampling.top_p };
    const model_parameters = Object.fromEntries(Object.entries(kept).filter(([, v]) => v !== undefined));
    const manifest = {
      id: agentIdOf(name),
      system_prompt: str(acfg.system_message) ?? AUTOGEN_DEFAULT_SYSTEM_MESSAGE,
      // Delegation targets are filled in below, once every participant's kind is known.
      allowed_agents: delegates,
      delegate_rules: {},
      overseer: null,
      mcp_bindings,
      display: { name: name.slice(0, 100), ...(description ? { desc: description.slice(0, 500) } : {}) },
      ...(Object.keys(model_parameters).length ? { model_parameters } : {}),
      capabilities: [{ id: `skill:${agentIdOf(name)}`, tags: ["autogen"] }],
      autogen: { team: id, name, provider, model, model_context, ...(acfg.max_tool_iterations !== undefined ? { max_tool_iterations: acfg.max_tool_iterations } : {}) },
    };
    if (!str(acfg.system_message)) r.notes.push(`${path}: ${name} has no system_message; it gets AutoGen's default prompt`);
    manifests.push(manifest as unknown as CapManifest);
  });

  // Delegation: a handoff to an agent Clutch runs; one to a left-out participant is warned.
  const kindOf = new Map(participants.map((p) => [p.name, p]));
  for (const m of manifests as (CapManifest & { autogen: { name: string } })[]) {
    const targets = m.allowed_agents.filter((t) => {
      if (kindOf.get(t)?.kind === "agent") return true;
      r.warnings.push(`${m.autogen.name} hands off to ${t}, ${kindOf.get(t)?.kind === "people" ? "a UserProxyAgent: the pattern runner asks the people in the channel" : "who is left out"}; not a delegation`);
      return false;
    });
    m.allowed_agents = targets.map(agentIdOf);
    m.delegate_rules = Object.fromEntries(
      targets.map((t) => {
        const h = handoffs.find((x) => x.from === m.autogen.name && x.target === t)!;
        return [agentIdOf(t), { when_to_delegate: h.description ?? kindOf.get(t)?.description ?? `Hand off to ${t}` }];
      }),
    );
  }

  const termination = cfg.termination_condition ? terminationOf(r, cfg.termination_condition, `${at}.config.termination_condition`, names) : null;
  const max_turns = num(cfg.max_turns);
  const cycle = findCycle(new Map([...names].map((n) => [n, handoffs.filter((h) => h.from === n && h.target !== "user").map((h) => h.target)])));
  if (cycle && !cfg.termination_condition && max_turns === null) {
    r.issue(`${at}.config.termination_condition`, `the handoffs ${cycle.join(" → ")} form a cycle and the team has neither termination_condition nor max_turns: it would never end`);
  }
  let team_model: ResolvedSpec | null = null;
  if (kind === "selector" || kind === "magentic_one") {
    // The team's own model client: SelectorGroupChat's selector, MagenticOne's orchestrator.
    const role = kind === "selector" ? "the selector" : "the orchestrator";
    const mc = cfg.model_client ? r.component(cfg.model_client, `${at}.config.model_client`) : null;
    if (!mc) r.issue(`${at}.config.model_client`, kind === "selector" ? "a SelectorGroupChat needs the model_client that picks the next speaker" : "a MagenticOneGroupChat needs the model_client its orchestrator plans and picks speakers with");
    else team_model = modelOf(r, mc, `${at}.config.model_client`, role)?.spec ?? null;
  }
  let graph: GraphSpec | null = null;
  if (kind === "graph_flow") {
    const read = readGraph(cfg.graph, [...names], { has_termination_condition: Boolean(cfg.termination_condition), max_turns });
    if ("problems" in read) for (const p of read.problems) r.issue(`${at}.config.graph${p.path.replace(/^\$/, "")}`, p.message);
    else graph = read.graph;
  }
  if (kind === "selector") {
    // AutoGen's SelectorGroupChat calls these Python callables before (selector_func) or instead of
    // (candidate_func) its model; Clutch cannot run them, and picking speakers without them would not be the team's chat.
    for (const f of ["selector_func", "candidate_func"] as const) {
      if (cfg[f] != null) r.issue(`${at}.config.${f}`, `a custom ${f} is a Python callable Clutch cannot run, and the team's speakers depend on it: remove ${f} to let the selector model pick every speaker`);
    }
  }
  const entry = participants.find((p) => p.kind === "agent");
  if (!entry && !r.issues.length) r.issue(`${at}.config.participants`, "the team has no AssistantAgent: Clutch needs at least one agent it can run");
  if (entry && participants[0] !== entry) r.notes.push(`${at}.config.participants: the first participant Clutch runs, ${entry.name}, is the channel's entry agent`);
  for (const m of manifests) {
    const checked = CapManifestSchema.safeParse(m);
    if (!checked.success) for (const i of checked.error.issues) r.issue(at, `${m.id}: ${i.path.join(".")}: ${i.message}`);
  }
  if (r.issues.length) throw new PackError(r.issues);

  const pattern: AutogenPattern = {
    kind,
    provider: providerOf(team),
    participants,
    selector_prompt: str(cfg.selector_prompt),
    allow_repeated_speaker: cfg.allow_repeated_speaker === true,
    max_selector_attempts: num(cfg.max_selector_attempts),
    team_model,
    graph,
    max_stalls: num(cfg.max_stalls),
    final_answer_prompt: str(cfg.final_answer_prompt),
    handoffs,
    termination,
    max_turns,
  };
  const description = team.description ?? str(cfg.description);
  return {
    pack: { id, name: label, version: team.component_version != null ? String(team.component_version) : null },
    manifests: manifests.map((m) => CapManifestSchema.parse(m)),
    channel: { name: id, topic: teamTopic(id, label, description), entry_agent: entry!.agent_id!.slice("agent:".length) },
    warnings: r.warnings,
    notes: r.notes,
    autogen: { pattern },
  };
}

/** The ModelSpec an AutoGen import gave an agent (its manifest's `autogen.model`), or null. */
export function importedModelSpec(manifest: CapManifest): ResolvedSpec | null {
  const model = (manifest as { autogen?: { model?: ResolvedSpec | null } }).autogen?.model;
  return model && typeof model === "object" && typeof model.provider === "string" ? model : null;
}
