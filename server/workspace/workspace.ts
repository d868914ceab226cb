/**
 * The workspace: which agents exist, which MCP servers they may use, and the channels where
 * they work (docs/agents.md). Loaded from a folder (default examples/sales-analysis, or
 * CLUTCH_WORKSPACE) holding:
 *   workspace.json   { agents: "<dir of CAP manifests>", mcp: "<mcpServers file>",
 *                      channels: [{ name, topic?, entry_agent, answers?: "mentions" | "every_message" }],
 *                      registry?: { heartbeat_interval_sec, offline_after_missed },
 *                      routing?: { on_no_match: "wait" | "fail", wait_timeout_sec, weights },
 *                      lifecycle?: { timeouts, retries, runaway guards: docs/lifecycle.md },
 *                      a2a?: { channel, expose: "all" | [manifest ids] },
 *                      prices?: { currency, models: { <model id>: { input, output, cached_input? } } } }
 *   agents/*.json    CAP agent manifests (seed 000)
 *   mcp.json         { mcpServers: { <server_id>: { command, args?, env? } } }
 *
 * Throws a WorkspaceError naming the file and field when anything is invalid or inconsistent
 * (an overseer or entry_agent that names no agent). An allowed_agents entry that names no
 * manifest is an external agent, registered over the API (server/router/registration.ts).
 */
import fs from "node:fs";
import path from "node:path";
import { z } from "zod";
import { ANSWER_MODES, type AnswerMode } from "@/lib/answers";
import {
  capAgentIdToClutch,
  CapManifestSchema,
  manifestToAgentCard,
  type AgentCard,
  type CapManifest,
} from "@/lib/protocol";

export class WorkspaceError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "WorkspaceError";
  }
}

const price = z.number({ error: "a price is a number: the currency's units per million tokens" }).nonnegative("a price cannot be negative").max(1_000_000);

/** workspace.json `prices` (server/usage/prices.ts serves them; docs/observability.md "Prices"). */
export const PricesSchema = z
  .strictObject({
    $comment: z.string().optional(),
    currency: z.string().regex(/^[A-Z]{3}$/, "currency is a three-letter ISO 4217 code such as USD or EUR").default("USD"),
    models: z.record(z.string().min(1).max(200), z.strictObject({ input: price, output: price, cached_input: price.optional() })).default({}),
  })
  .prefault({});

const WorkspaceFileSchema = z.strictObject({
  $comment: z.string().optional(),
  agents: z.string().min(1).default("agents"),
  mcp: z.string().min(1).default("mcp.json"),
  channels: z
    .array(
      z.strictObject({
        name: z.string().regex(/^[a-z0-9][a-z0-9_-]*$/, "channel names use lowercase letters, digits, - and _"),
        topic: z.string().max(250).optional(),
        entry_agent: z.string().min(1),
        /**
         * Who answers a new top-level message (docs/channels.md "Who answers"): `mentions` (the
         * default, as Slack apps do) only when it @mentions an agent or a capability;
         * `every_message`: the entry agent takes every new top-level message.
         */
        answers: z.enum(ANSWER_MODES, { error: 'answers is "mentions" or "every_message"' }).default("mentions"),
        /** Requests to suggest to a person new to the channel (the welcome, the empty composer). */
        suggestions: z.array(z.string().trim().min(1).max(500)).max(5).default([]),
      }),
    )
    .default([]),
  /** The policy file (server/policy), relative to the workspace; absent file: everything allowed. */
  policy: z.string().min(1).default("clutch.policy.yaml"),
  /** Model prices per million tokens (server/usage/prices.ts, docs/observability.md). */
  prices: PricesSchema,
  /** Concurrent tasks per agent (several instances of one agent run in parallel). */
  max_concurrency: z.number().int().positive().default(4),
  /** Agents' heartbeats (Clutch Protocol §2.4): every N seconds; offline after this many missed. */
  registry: z
    .strictObject({
      heartbeat_interval_sec: z.number().positive().max(3600).default(30),
      offline_after_missed: z.number().int().min(1).max(100).default(3),
    })
    .prefault({}),
  /** Routing by capability (Clutch Protocol §4.2). */
  routing: z
    .strictObject({
      /** When no agent matches a request: wait for one (routed once one registers or comes online) or fail it. */
      on_no_match: z.enum(["wait", "fail"]).default("wait"),
      /** A waiting request fails after this many seconds (null: it waits as long as it takes). */
      wait_timeout_sec: z.number().positive().nullable().default(600),
      /** Weights of the preference kinds in the score (server/router/match.ts). */
      weights: z
        .strictObject({ tool: z.number().min(0), tag: z.number().min(0), domain: z.number().min(0), capability: z.number().min(0), cost: z.number().min(0) })
        .partial()
        .default({}),
    })
    .prefault({}),
  /**
   * Clutch as an A2A server (docs/adapters.md "A2A"): the channel A2A requests run in (default:
   * the first channel) and the agents with an A2A endpoint of their own ("all", or manifest ids).
   */
  a2a: z
    .strictObject({
      channel: z.string().optional(),
      expose: z.union([z.literal("all"), z.array(z.string().min(1))]).default("all"),
    })
    .prefault({}),
  /**
   * Every task ends (docs/lifecycle.md): timeouts in seconds (null: none), what happens to the
   * tasks of an agent that goes offline, how model calls are retried, and the runaway guards.
   */
  lifecycle: z
    .strictObject({
      /** A task running longer ends with task.timeout; an agent's `limits.max_runtime_sec` overrides it. */
      task_timeout_sec: z.number().positive().nullable().default(1800),
      /** A routed request no agent accepted in this time goes to the next candidate. */
      accept_timeout_sec: z.number().positive().nullable().default(120),
      /** A run whose root task is older than this is timed out, with everything under it. */
      run_timeout_sec: z.number().positive().nullable().default(7200),
      /** The open tasks of an agent that went offline: routed to another agent, failed, or left waiting. */
      on_agent_offline: z.enum(["reroute", "fail", "wait"]).default("reroute"),
      /**
       * Model calls that fail for a passing reason (429, 5xx, network) and MCP calls whose server
       * crashed are tried this often in all.
       */
      retry_attempts: z.number().int().min(1).max(10).default(3),
      /** The wait before the second attempt, doubled for each later one, in ms. */
      retry_delay_ms: z.number().int().min(0).max(60_000).default(1000),
      /** Delegation deeper than this ends the delegating task (the root task is depth 0). */
      max_depth: z.number().int().min(1).max(50).default(6),
      /** A run with this many tasks takes no more. */
      max_tasks_per_run: z.number().int().min(1).max(10_000).default(200),
      /** Model turns one task may take; an agent's `limits.max_model_turns` overrides it. */
      max_model_turns: z.number().int().min(1).max(1000).default(40),
    })
    .prefault({}),
});

export type RegistrySettings = z.infer<typeof WorkspaceFileSchema>["registry"];
export type RoutingSettings = z.infer<typeof WorkspaceFileSchema>["routing"];
export type LifecycleSettings = z.infer<typeof WorkspaceFileSchema>["lifecycle"];
export type A2ASettings = z.infer<typeof WorkspaceFileSchema>["a2a"];

/** One agent of the workspace: its CAP manifest and the AgentCard derived from it. */
export interface WorkspaceAgent {
  /** Clutch agent id, `agent:<cap id>`. */
  agent_id: string;
  manifest: CapManifest;
  card: AgentCard;
  /** Clutch ids of the agents it may delegate to: the workspace's, or external agents registered over the API. */
  allowed_agents: string[];
  /** Clutch id of its overseer, or null. */
  overseer: string | null;
}

export interface Workspace {
  /** Absolute folder of workspace.json; null for NO_WORKSPACE. */
  dir: string | null;
  agents: Map<string, WorkspaceAgent>;
  channels: { name: string; topic?: string; entry_agent: string; answers: AnswerMode; suggestions: string[] }[];
  /** Absolute path of the mcpServers file; null: no MCP servers. */
  mcpConfigPath: string | null;
  /** Absolute path of the policy file (it may not exist); null: no policy, everything allowed. */
  policyPath: string | null;
  registry: RegistrySettings;
  routing: RoutingSettings;
  lifecycle: LifecycleSettings;
  a2a: A2ASettings;
  /** Concurrent tasks per agent, on every AgentCard of the workspace. */
  max_concurrency: number;
  /** The prices workspace.json names, as checked at load (server/usage/prices.ts serves the current ones). */
  prices: z.infer<typeof PricesSchema>;
}

const DEFAULTS = WorkspaceFileSchema.parse({});

/**
 * The workspace of a Clutch started without one (CLUTCH_WORKSPACE=none): no agents, no
 * channels, no MCP servers, no policy; registry, routing and lifecycle settings at their defaults.
 */
export const NO_WORKSPACE: Workspace = Object.freeze({
  dir: null,
  agents: new Map(),
  channels: [],
  mcpConfigPath: null,
  policyPath: null,
  registry: DEFAULTS.registry,
  routing: DEFAULTS.routing,
  lifecycle: DEFAULTS.lifecycle,
  a2a: DEFAULTS.a2a,
  max_concurrency: DEFAULTS.max_concurrency,
  prices: DEFAULTS.prices,
});

function readJson(file: string): unknown {
  try {
    return JSON.parse(fs.readFileSync(file, "utf8"));
  } catch (err) {
    throw new WorkspaceError(`${file}: ${(err as Error).message}`);
  }
}

function issuesOf(file: string, error: z.ZodError): string {
  return `${file}: ${error.issues.map((i) => `${i.path.join(".") || "(root)"}: ${i.message}`).join("; ")}`;
}

/** Load and check the workspace in `dir`. Throws WorkspaceError (see the module doc). */
export function loadWorkspace(dir: string): Workspace {
  const root = path.resolve(dir);
  const wsFile = path.join(root, "workspace.json");
  const ws = WorkspaceFileSchema.safeParse(readJson(wsFile));
  if (!ws.success) throw new WorkspaceError(issuesOf(wsFile, ws.error));

  const agentsDir = path.resolve(root, ws.data.agents);
  if (!fs.existsSync(agentsDir)) throw new WorkspaceError(`${wsFile}: agents folder ${agentsDir} does not exist`);
  const agents = new Map<string, WorkspaceAgent>();
  for (const name of fs.readdirSync(agentsDir).filter((f) => f.endsWith(".json")).sort()) {
    const file = path.join(agentsDir, name);
    const parsed = CapManifestSchema.safeParse(readJson(file));
    if (!parsed.success) throw new WorkspaceError(issuesOf(file, parsed.error));
    const manifest = parsed.data;
    const agent_id = capAgentIdToClutch(manifest.id);
    if (agents.has(agent_id)) throw new WorkspaceError(`${file}: agent id ${manifest.id} is defined twice`);
    agents.set(agent_id, workspaceAgent(manifest, ws.data.max_concurrency));
  }
  // allowed_agents may also name agents that register over the API (external agents, checked
  // when delegated to); an overseer reviews in-process, so it must be one of the manifests.
  for (const a of agents.values()) {
    if (a.overseer && !agents.has(a.overseer)) throw new WorkspaceError(`${a.manifest.id}: names overseer ${a.overseer.replace(/^agent:/, "")}, which is not defined in ${agentsDir}`);
  }
  const channels = ws.data.channels.map((c) => ({ ...c, entry_agent: capAgentIdToClutch(c.entry_agent) }));
  const a2a = ws.data.a2a;
  if (a2a.channel !== undefined && !channels.some((c) => c.name === a2a.channel)) throw new WorkspaceError(`${wsFile}: a2a.channel names #${a2a.channel}, which is not one of its channels`);
  for (const id of a2a.expose === "all" ? [] : a2a.expose) {
    if (!agents.has(capAgentIdToClutch(id))) throw new WorkspaceError(`${wsFile}: a2a.expose names ${id}, which is not defined in ${agentsDir}`);
  }
  for (const c of channels) {
    if (!agents.has(c.entry_agent)) throw new WorkspaceError(`${wsFile}: channel #${c.name} has entry_agent ${c.entry_agent}, which is not defined`);
  }
  return { dir: root, agents, channels, mcpConfigPath: path.resolve(root, ws.data.mcp), policyPath: path.resolve(root, ws.data.policy), registry: ws.data.registry, routing: ws.data.routing, lifecycle: ws.data.lifecycle, a2a: ws.data.a2a, max_concurrency: ws.data.max_concurrency, prices: ws.data.prices };
}

/** A workspace agent from its manifest (the card derived with the workspace's max_concurrency). */
function workspaceAgent(manifest: CapManifest, max_concurrency: number): WorkspaceAgent {
  return {
    agent_id: capAgentIdToClutch(manifest.id),
    manifest,
    card: manifestToAgentCard(manifest, { max_concurrency }),
    allowed_agents: manifest.allowed_agents.map(capAgentIdToClutch),
    overseer: manifest.overseer ? capAgentIdToClutch(manifest.overseer) : null,
  };
}

/** Agents and a channel to add to a workspace at run time (an imported PromptPack, server/workspace/promptpack.ts). */
export interface Team {
  manifests: CapManifest[];
  channel: { name: string; topic: string; entry_agent: string };
}

/**
 * The agents of `team` as `workspace` would hold them, checked against it: none may have the id
 * of one it has, nor its channel the name of one of its channels. Throws WorkspaceError saying
 * which. Changes nothing (see `addTeam`).
 */
export function teamAgents(workspace: Workspace, team: Team): WorkspaceAgent[] {
  const agents = team.manifests.map((m) => workspaceAgent(m, workspace.max_concurrency));
  const taken = agents.filter((a) => workspace.agents.has(a.agent_id)).map((a) => a.agent_id);
  if (taken.length) throw new WorkspaceError(`the workspace already has ${taken.join(", ")}`);
  if (workspace.channels.some((c) => c.name === team.channel.name)) throw new WorkspaceError(`the workspace already has a channel #${team.channel.name}`);
  return agents;
}

/**
 * Add `agents` (from `teamAgents`) and the team's channel to `workspace`, in place: the runner,
 * router and orchestrator see them at once. A team's channel is where people talk to the team,
 * so its entry agent takes every new message (docs/channels.md "Who answers").
 */
export function addTeam(workspace: Workspace, agents: readonly WorkspaceAgent[], channel: Team["channel"]): void {
  for (const a of agents) workspace.agents.set(a.agent_id, a);
  workspace.channels.push({ ...channel, entry_agent: capAgentIdToClutch(channel.entry_agent), answers: "every_message", suggestions: [] });
}
