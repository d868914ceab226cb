/**
 * PromptPack import (RFC 0007 "Agents Extension", seed 002; docs/promptpacks.md): a pack whose
 * `agents` section declares which prompts are agents becomes a team of the workspace.
 *
 *   prompt key                   → the CAP manifest's `id` (agent `agent:<key>`) and capability
 *                                  `skill:<key>` (the RFC's skill id), version from the prompt
 *   name / description           → the AgentCard's display name and description; an AgentDef's
 *                                  `description` overrides it, its `tags` go on the capability
 *   system_template              → `system_prompt`, `{{variable}}`s filled from the import's
 *                                  values, else the variable's default
 *   tools naming member prompts  → `allowed_agents` (the RFC's implicit topology: the runtime
 *                                  delegates instead of calling an A2A tool), each with a
 *                                  delegate rule from the member's description. A tool names a
 *                                  member by its prompt key, else by one of its tags, else by the
 *                                  same word stem (`research` → `researcher`, `analyze` →
 *                                  `analyst`; the RFC's examples name them so), when exactly one
 *                                  member matches; each such match is reported in `notes`
 *   other tools                  → reported as warnings: a pack tool is a description without an
 *                                  implementation; bind an MCP server to give it one
 *   parameters                   → `model_parameters` (temperature, max_tokens, top_p: the agent's
 *                                  model calls use them); all of them are kept under `promptpack`
 *   the pack                     → a channel named after its id, with the entry agent as its
 *                                  entry agent and the pack's description as its topic, led by
 *                                  the pack's name when the channel's name does not say it
 *                                  already (`teamTopic`)
 *
 * Validation follows the RFC's rules (entry and members name prompts, no agent lists itself),
 * and every refusal names where with a JSONPath (`$.agents.entry`, `$.prompts.router.variables[0]`).
 */
import { parse as parseYaml } from "yaml";
import { z } from "zod";
import { CAP_AGENT_ID_PATTERN, CapManifestSchema, type CapManifest } from "@/lib/protocol";

/** A problem with a pack, where (JSONPath from `$`, the pack's root) and what. */
export interface PackIssue {
  path: string;
  message: string;
}

export class PackError extends Error {
  constructor(readonly issues: PackIssue[]) {
    super(issues.map((i) => `${i.path}: ${i.message}`).join("; "));
    this.name = "PackError";
  }
}

const Variable = z.looseObject({
  name: z.string().min(1),
  type: z.string().optional(),
  required: z.boolean().optional(),
  default: z.unknown().optional(),
  description: z.string().optional(),
});

const Prompt = z.looseObject({
  id: z.string().optional(),
  name: z.string().min(1, "a prompt needs a name"),
  description: z.string().optional(),
  version: z.string().optional(),
  system_template: z.string().min(1, "an agent's prompt needs a system_template"),
  tools: z.array(z.string().min(1)).optional(),
  variables: z.array(Variable).optional(),
  parameters: z.record(z.string(), z.unknown()).optional(),
});

const AgentDef = z.strictObject({
  description: z.string().optional(),
  tags: z.array(z.string()).optional(),
  input_modes: z.array(z.string()).optional(),
  output_modes: z.array(z.string()).optional(),
});

/** A PromptPack as Clutch reads it: the fields RFC 0007 and the agents it declares need; others are kept. */
export const PromptPackSchema = z.looseObject({
  id: z.string().regex(/^[a-z0-9][a-z0-9_-]*$/, "a pack id is lowercase letters, digits, - and _ (it names the team's channel)").max(60),
  name: z.string().min(1),
  version: z.string().optional(),
  description: z.string().optional(),
  prompts: z.record(z.string(), Prompt),
  agents: z.strictObject({
    entry: z.string().min(1),
    members: z.record(z.string(), AgentDef).default({}),
  }),
  tools: z.record(z.string(), z.looseObject({ name: z.string().optional(), description: z.string().optional() })).optional(),
});
export type PromptPack = z.infer<typeof PromptPackSchema>;

/**
 * What a pack becomes: one CAP manifest per agent, the team's channel, and what was left out. An
 * AutoGen team adds its group-chat pattern (server/workspace/imports.ts `Team`).
 */
export interface ImportedTeam {
  pack: { id: string; name: string; version: string | null };
  manifests: CapManifest[];
  channel: { name: string; topic: string; entry_agent: string };
  warnings: string[];
  /** How tools that are not prompt keys were read as members (`coordinator: research → researcher (tag)`). */
  notes: string[];
}

/**
 * An imported team's channel topic (a PromptPack's, an AutoGen team's): its description, led by
 * its label (`Research Team: …`) only when the channel's name does not say the label already.
 * The channel header and the "created #channel: topic" line show the name beside the topic, so
 * `#research-team` with "Research Team: A coordinator…" would say the team's name twice. Empty
 * when there is nothing the name does not say; at most 250 characters.
 */
export function teamTopic(channel: string, label: string, description?: string | null): string {
  const words = (s: string) => s.toLowerCase().replace(/[^a-z0-9]+/g, "-").replace(/^-+|-+$/g, "");
  const said = words(label) === words(channel);
  const about = description?.trim() ?? "";
  const lead = said || words(about) === words(label) ? "" : label.trim();
  return [lead, about].filter(Boolean).join(": ").slice(0, 250);
}

/** A word without an agent suffix and common English endings, for matching `analyze` to `analyst`. */
function stem(word: string): string {
  let w = word.toLowerCase().replace(/[_-]?agent$/, "");
  for (let prev = ""; prev !== w && w.length > 3; ) {
    prev = w;
    w = w.replace(/(ysis|yst|yze|yse|ist|er|or|ing|e|s)$/, "");
  }
  return w;
}

/** The member a tool name stands for (see the module doc), how it was found, or null (none, or more than one). */
export function memberOf(tool: string, members: readonly string[], tagsOf: (key: string) => readonly string[]): { key: string; by: "key" | "tag" | "stem" } | null {
  if (members.includes(tool)) return { key: tool, by: "key" };
  const byTag = members.filter((m) => tagsOf(m).some((t) => t.toLowerCase() === tool.toLowerCase()));
  if (byTag.length === 1) return { key: byTag[0]!, by: "tag" };
  if (byTag.length > 1) return null;
  const s = stem(tool);
  const byStem = s.length >= 3 ? members.filter((m) => stem(m) === s) : [];
  return byStem.length === 1 ? { key: byStem[0]!, by: "stem" } : null;
}

/** `$.a.b[0]` from a zod path. */
function jsonPath(path: readonly PropertyKey[]): string {
  return path.reduce<string>((out, k) => (typeof k === "number" ? `${out}[${k}]` : /^[A-Za-z_][A-Za-z0-9_]*$/.test(String(k)) ? `${out}.${String(k)}` : `${out}[${JSON.stringify(String(k))}]`), "$");
}

/** A pack from JSON or YAML text, or as given when it is already an object. Throws PackError at `$` for unreadable text. */
export function readPack(input: unknown): unknown {
  if (typeof input !== "string") return input;
  try {
    return parseYaml(input, { maxAliasCount: 100 });
  } catch (err) {
    throw new PackError([{ path: "$", message: `not JSON or YAML: ${(err as Error).message.split("\n")[0]}` }]);
  }
}

/**
 * Map a pack (see the module doc) with the import's `variables` (name → value). Throws
 * PackError listing every problem with its JSONPath.
 */
export function packToTeam(input: unknown, variables: Record<string, string> = {}): ImportedTeam {
  const parsed = PromptPackSchema.safeParse(readPack(input));
  if (!parsed.success) throw new PackError(parsed.error.issues.map((i) => ({ path: jsonPath(i.path), message: i.message })));
  const pack = parsed.data;
  const issues: PackIssue[] = [];
  const warnings: string[] = [];
  const { entry, members } = pack.agents;
  if (!pack.prompts[entry]) issues.push({ path: "$.agents.entry", message: `names prompt "${entry}", which is not in prompts (${Object.keys(pack.prompts).join(", ") || "none"})` });
  for (const key of Object.keys(members)) {
    if (!pack.prompts[key]) issues.push({ path: `$.agents.members${jsonPath([key]).slice(1)}`, message: `names prompt "${key}", which is not in prompts` });
  }
  // The entry is an agent even when members does not list it (RFC 0007, unresolved question 2).
  const agentKeys = [...new Set([entry, ...Object.keys(members)])].filter((k) => pack.prompts[k]);
  for (const key of agentKeys) {
    if (!CAP_AGENT_ID_PATTERN.test(key)) issues.push({ path: `$.prompts${jsonPath([key]).slice(1)}`, message: `"${key}" cannot be an agent id (letters, digits, - and _)` });
  }

  const manifests: CapManifest[] = [];
  const notes: string[] = [];
  const tagsOf = (k: string) => members[k]?.tags ?? [];
  for (const key of agentKeys) {
    const prompt = pack.prompts[key]!;
    const at = `$.prompts${jsonPath([key]).slice(1)}`;
    const def = members[key] ?? {};
    const tools = prompt.tools ?? [];
    if (tools.includes(key)) issues.push({ path: `${at}.tools`, message: `an agent cannot list itself (${key}) among its tools` });
    const delegates: string[] = [];
    for (const t of tools.filter((t) => t !== key)) {
      const member = pack.tools?.[t] ? null : memberOf(t, agentKeys.filter((k) => k !== key), tagsOf);
      if (member) {
        if (!delegates.includes(member.key)) delegates.push(member.key);
        if (member.by !== "key") notes.push(`${key}: the tool ${t} is the agent ${member.key} (by ${member.by === "tag" ? "its tag" : "the same word"})`);
      } else if (pack.prompts[t]) warnings.push(`${key} lists ${t}, a prompt that is not an agent (add it to agents.members to delegate to it); left out`);
      else warnings.push(`${key} lists the tool ${t}${pack.tools?.[t] ? ` (${pack.tools[t].name ?? t})` : ""}, which has no implementation here; bind an MCP server to ${key} to give it one`);
    }
    const system_prompt = fill(prompt.system_template, prompt.variables ?? [], variables, `${at}.variables`, issues);
    const description = def.description ?? prompt.description;
    const manifest = {
      id: key,
      system_prompt,
      allowed_agents: delegates,
      delegate_rules: Object.fromEntries(delegates.map((d) => [d, { when_to_delegate: members[d]?.description ?? pack.prompts[d]!.description ?? `Work for ${pack.prompts[d]!.name}` }])),
      overseer: null,
      mcp_bindings: [],
      display: { name: prompt.name, ...(description ? { desc: description } : {}) },
      ...(sampling(prompt.parameters) ? { model_parameters: sampling(prompt.parameters) } : {}),
      capabilities: [{ id: `skill:${key}`, ...(prompt.version ?? pack.version ? { version: prompt.version ?? pack.version } : {}), ...(def.tags?.length ? { tags: def.tags } : {}) }],
      promptpack: { pack: pack.id, prompt: key, ...(prompt.parameters ? { parameters: prompt.parameters } : {}), ...(def.input_modes ? { input_modes: def.input_modes } : {}), ...(def.output_modes ? { output_modes: def.output_modes } : {}) },
    };
    const checked = CapManifestSchema.safeParse(manifest);
    if (!checked.success) for (const i of checked.error.issues) issues.push({ path: at, message: `${i.path.join(".")}: ${i.message}` });
    else manifests.push(checked.data);
  }
  if (issues.length) throw new PackError(issues);
  return {
    pack: { id: pack.id, name: pack.name, version: pack.version ?? null },
    manifests,
    channel: { name: pack.id, topic: teamTopic(pack.id, pack.name, pack.description), entry_agent: entry },
    warnings,
    notes,
  };
}

/** The sampling settings among a prompt's `parameters` (temperature, max_tokens, top_p), or undefined when it names none. */
function sampling(parameters: Record<string, unknown> | undefined): Record<string, unknown> | undefined {
  const picked = Object.fromEntries(["temperature", "max_tokens", "top_p"].filter((k) => parameters?.[k] !== undefined).map((k) => [k, parameters![k]]));
  return Object.keys(picked).length ? picked : undefined;
}

/** `template` with each `{{name}}` of `declared` filled from `values`, else its default; a required one without either is an issue. */
function fill(template: string, declared: z.infer<typeof Variable>[], values: Record<string, string>, at: string, issues: PackIssue[]): string {
  let out = template;
  declared.forEach((v, i) => {
    const value = values[v.name] ?? (v.default !== undefined ? String(v.default) : undefined);
    if (value === undefined) {
      if (v.required) issues.push({ path: `${at}[${i}]`, message: `${v.name} is required: give it a value in the import's variables` });
      return;
    }
    out = out.replaceAll(`{{${v.name}}}`, value);
  });
  return out;
}
