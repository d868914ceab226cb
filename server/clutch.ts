/**
 * Building Clutch: `createClutch(options)` opens the database, starts the event store and its
 * tail, loads the agent registry, and brings the workspace's agents to work: its channels exist,
 * each agent announces its card and sends heartbeats, and the MCP hub, the policy kernel and
 * approvals, the agent runner, the router and the orchestrator start, the orchestrator carrying
 * on every unfinished run (docs/architecture.md, "Layers" and "From request to socket"). On
 * PostgreSQL, requests reach the workspace's agents through the durable dispatch queue
 * (server/dispatch/queue.ts; docs/lifecycle.md); the agents' turns are jobs every node of the
 * deployment takes, up to its own concurrency (server/dispatch/turns.ts), and of the nodes one
 * elected leader follows the log for them (the orchestrator, the router, workflows and group
 * chats); the others stand by to take that over (server/cluster/leader.ts; docs/deploy.md
 * "Where agents run").
 *
 * It returns every part, fully built; `stop()` takes them down again. server.ts builds one per
 * process and puts Next.js and the Socket.IO gateway in front of it; tests and benches build
 * their own; whoever serves the routes registers it for them (server/instance.ts `setClutch`).
 *
 * Without a workspace (`workspaceDir: null`, CLUTCH_WORKSPACE=none) Clutch is the log and its
 * API alone: the workspace is NO_WORKSPACE, no agent runs, and the orchestrator does not follow
 * the stream.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import type { LanguageModel } from "ai";
import { McpHub } from "./adapters/mcp/hub";
import { StreamHub } from "./streams/hub";
import { LocalBus, PgBus, streamsChannel, type StreamBus } from "./streams/bus";
import type { ResolvedSpec } from "./agents/models";
import { AgentRunner } from "./agents/runner";
import { McpToolCaller } from "./adapters/mcp/tool-caller";
import { ArtifactStore } from "./artifacts/store";
import { authSecret, createAuth } from "./auth/auth";
import { Identity } from "./auth/identity";
import type { SignInLimitPolicy } from "./auth/sign-in-limit";
import { OIDC_PROVIDER_ID, type OidcSettings, type ProviderProfile, type RefreshedTokens } from "./auth/sso";
import { openEventLog } from "./events/open";
import type { EventStore } from "./events/store";
import { log } from "./log";
import { Orchestrator, type ChannelBinding } from "./orchestrator/orchestrator";
import { DispatchQueue } from "./dispatch/queue";
import { TurnQueue } from "./dispatch/turns";
import { LeaderLease } from "./cluster/leader";
import { WebhookDelivery, webhookSecret } from "./adapters/webhook/webhook";
import { A2AClientDriver } from "./adapters/a2a/client";
import { RegisteredA2AAgents } from "./adapters/a2a/registered";
import { LangGraphDriver } from "./adapters/langgraph/graph";
import { postgresCheckpointer } from "./adapters/langgraph/hosts";
import { answersQuestions } from "./agents/driver";
import { Approvals } from "./policy/approvals";
import { PolicyKernel } from "./policy/kernel";
import { Budgets } from "./policy/budgets";
import { PriceBook } from "./usage/prices";
import { announceAgents, startHeartbeats } from "./router/registration";
import { AgentRegistry, type RegistryConfig } from "./router/registry";
import { Router } from "./router/router";
import { ClutchError } from "./errors";
import { SchemaRegistry } from "./schemas/registry";
import { PackImports, storedTeam } from "./workspace/imports";
import { WorkflowRunner } from "./workflows/runner";
import { GroupChatRunner } from "./orchestrator/group-chat";
import type { GroupChatShape } from "@/lib/group-chat/turns";
import { WorkflowStore } from "./workflows/store";
import { A2ATaskRecords } from "./adapters/a2a/tasks";
import type { ClutchParts } from "./adapters/parts";
import { addTeam, loadWorkspace, NO_WORKSPACE, teamAgents, type Workspace, type WorkspaceAgent } from "./workspace/workspace";
import { recordAudit } from "./auth/audit";
import type { Principal } from "./auth/principal";
import { isEvent } from "@/lib/protocol";
import { startTraces, type TraceExport } from "./telemetry";

export interface ClutchOptions {
  /** The PostgreSQL to use; unset: the embedded PGlite under `<dataDir>/pgdata`. */
  databaseUrl?: string;
  /** `databaseUrl` is an embedded database served elsewhere (tests): one connection only. */
  embeddedUrl?: boolean;
  /**
   * Connections of the Prisma pool on PostgreSQL (default 10). The test suite's Clutches use
   * fewer: many run side by side on one PostgreSQL (vitest.config.ts).
   */
  poolSize?: number;
  /**
   * Apply pending migrations on start (default true). False for a process whose parent applied
   * them just before starting it (the realtime process), so a start migrates once, and for the
   * tests (test/global-setup.ts migrated their database). Ignored on the embedded database.
   */
  migrate?: boolean;
  /**
   * Clutch's data folder: the embedded database (`<dataDir>/pgdata`). Artifacts an older Clutch
   * kept under `<dataDir>/artifacts` are imported into the database at start (server/artifacts/store.ts).
   */
  dataDir: string;
  /** Folder of workspace.json (server/workspace/workspace.ts); null: no agents. */
  workspaceDir: string | null;
  /** The model of each agent (server/agents/models); required with a workspace that has agents. */
  modelFor?: (agent: WorkspaceAgent) => LanguageModel;
  /**
   * The model of an imported AutoGen team's own `model_client` (its SelectorGroupChat selector or
   * MagenticOne orchestrator), given the team's id (its channel's name) and the imported spec (null
   * when the import mapped none). Unset: the team's first agent's model.
   */
  teamModelFor?: (team_id: string, spec: ResolvedSpec | null) => LanguageModel;
  /** Registry settings that override the workspace's (from the environment, server/config.ts). */
  registry?: Partial<RegistryConfig>;
  /** Act in every channel, not only the workspace's (the server; see server/orchestrator). */
  allChannels?: boolean;
  /** Create #general when the log has no channel yet, so a first visit lands somewhere (the server). */
  defaultChannel?: boolean;
  /** Folder MCP server commands run in (default: the folder of the workspace's mcp.json, which relative paths in it name). */
  cwd?: string;
  /** The first admin, created on first start when nobody has an account (CLUTCH_ADMIN_EMAIL / _PASSWORD). */
  admin?: { email: string; password: string; name?: string };
  /** The app's public URL (CLUTCH_PUBLIC_URL), for sign-in's origin checks; unset: taken from each request. */
  publicUrl?: string;
  /** The server's own HTTP port: without publicUrl, sign-in trusts the page's address on this port (default: any). */
  port?: number;
  /**
   * This node's name (CLUTCH_NODE_NAME): each event of the agents' work here says it in
   * `meta.node`, and traces carry it as `host.name` (docs/deploy.md). Default: the host's name and
   * the port (or the process id without one).
   */
  nodeName?: string;
  /**
   * Agents' passes this node runs at once, of every run of its deployment (CLUTCH_AGENT_CONCURRENCY;
   * default 4, server/dispatch/turns.ts). PostgreSQL only: on the embedded database every pass runs
   * in the one process, each agent up to its card's `limits.max_concurrency`.
   */
  agentConcurrency?: number;
  /** Limits on failed sign-ins (server/auth/sign-in-limit.ts; default DEFAULT_SIGN_IN_POLICY). */
  signInPolicy?: Partial<SignInLimitPolicy>;
  /**
   * Single sign-on through the company's OpenID Connect provider (CLUTCH_OIDC_*, server/auth/sso.ts),
   * and whether passwords stay (CLUTCH_PASSWORD_SIGN_IN). Unset: email and password only.
   */
  sso?: { oidc: OidcSettings; passwordSignIn: boolean };
  /** The clock of presence and deadlines, ms since the epoch (default Date.now; tests swap it). */
  clock?: () => number;
  /**
   * The deployment this node belongs to (default `clutch`), the same on every node of it: its
   * nodes share the durable dispatch queue's jobs (`<deployment>.dispatch`, server/dispatch/queue.ts)
   * and elect one leader that does the agents' work (server/cluster/leader.ts); its imported
   * PromptPacks and its workflows are its workspace's, and its A2A tasks its own. Tests sharing a database give each Clutch its own.
   */
  deployment?: string;
  /**
   * Export runs as OpenTelemetry traces when an OTLP endpoint is set (default true;
   * server/telemetry). False for a process beside the one that exports (the realtime process),
   * so each span is sent once.
   */
  traces?: boolean;
  /**
   * Exported traces carry the titles, summaries and messages of runs in private channels and DMs
   * too (CLUTCH_TRACE_PRIVATE_CONTENT, server/config.ts; default false: "(private)" in their place,
   * docs/observability.md "What a trace carries").
   */
  tracePrivateContent?: boolean;
  /** Largest artifact, bytes (CLUTCH_ARTIFACT_MAX_BYTES; default DEFAULT_ARTIFACT_MAX_BYTES, 100 MiB). */
  artifactMaxBytes?: number;
  /** How long a new invite link works, hours (CLUTCH_INVITE_TTL_HOURS; default DEFAULT_INVITE_TTL_HOURS, 7 days). */
  inviteTtlHours?: number;
  /** How often a standby node tries to become the leader, and a leader probes its session, ms (default 2000). */
  leaseRetryMs?: number;
}

/** A running Clutch: every part, fully built (the ones the protocol endpoints use are `ClutchParts`'). */
export interface Clutch extends ClutchParts {
  /** The policy gate and the approvals people decide. */
  approvals: Approvals;
  /** The workspace's model prices, reloaded when workspace.json changes (server/usage/prices.ts). */
  prices: PriceBook;
  /** Every payload type's schema, built in and added (Clutch Protocol §3; docs/schemas.md). */
  schemas: SchemaRegistry;
  /** The workflows (Clutch Protocol §3.4; docs/workflows.md), from the workspace folder and edited since. */
  workflows: WorkflowStore;
  /**
   * Import a PromptPack (RFC 0007, docs/promptpacks.md) or an AutoGen team (docs/adapters.md
   * "AutoGen"; `team` picks one of a gallery's, `id` names it) as a team: its agents join the
   * workspace and start working at once (on this node when it leads), in a new channel named
   * after the pack or team.
   * Throws ClutchError no_workspace (409), invalid_pack (400, issues with JSONPaths),
   * pack_exists / pack_conflict (409).
   */
  importPack(input: { pack: unknown; variables?: Record<string, string>; team?: string | number; id?: string }, by: Principal): Promise<PackImportResult>;
  /** Where large tool results are kept: the database's `artifacts` table, which every node serves. */
  artifacts: ArtifactStore;
  /** The agent loop of the workspace's agents. */
  runner: AgentRunner;
  /** Runs, delegation and review; it follows the stream only when there is a workspace. */
  orchestrator: Orchestrator;
  /** The signing secret of an external agent's webhook (server/adapters/webhook/webhook.ts). */
  webhookSecretOf(agent_id: string): string;
  /**
   * Where the workspace's agents work, for `GET /api/health`: `here` (the only node, or the
   * leader of several), `standby` (another node leads; this one takes over if it goes), `none`
   * (no workspace).
   */
  agents(): "here" | "standby" | "none";
  /**
   * This node's part of the agents' turns (docs/deploy.md "Where agents run"): its name, how many
   * passes it may run at once and how many it runs now; null on the embedded database or without a
   * workspace (every pass runs in the one process).
   */
  turns(): { name: string; agent_concurrency: number; running: number } | null;
  /** The deployment this node belongs to (ClutchOptions.deployment; default `clutch`). */
  deployment: string;
  /** Which database Clutch runs on (for `GET /api/health`). */
  databaseKind: "embedded" | "postgres";
  /**
   * The OpenTelemetry trace export (server/telemetry; docs/observability.md), null when no OTLP
   * endpoint is set (nothing of OpenTelemetry is loaded then).
   */
  traces: TraceExport | null;
  /**
   * Stop the agents, the tail and the database, in that order. Work in flight (a reaction, an agent's step) gets `graceMs` (default:
   * no limit) to finish; past it, it is left to the next start, whose recovery picks it up: every
   * append is atomic and every reaction idempotent, so nothing is half done (docs/architecture.md).
   */
  stop(opts?: { graceMs?: number }): Promise<void>;
}

/** What `importPack` made. */
export interface PackImportResult {
  pack: { id: string; name: string; version: string | null };
  channel: ChannelBinding;
  /** The new agents' ids, entry first. */
  agents: string[];
  /** What the pack names that Clutch left out (tools without an implementation). */
  warnings: string[];
  /** How tools that are not prompt keys were read as the team's agents. */
  notes: string[];
}

/** How long the agents' steps in flight get when this node's leader session is lost, ms. */
const LOST_LEASE_GRACE_MS = 3000;

/** How often superseded heartbeats are compacted, and how long all of them are kept (docs/architecture.md). */
const COMPACTION_MS = 10 * 60 * 1000;
const HEARTBEATS_KEPT_SEC = 3600;

function readVersion(): string {
  try {
    return JSON.parse(fs.readFileSync(path.resolve("package.json"), "utf8")).version as string;
  } catch {
    return "0.0.0";
  }
}

/** Create #general on a log with no channel, so a first visit lands somewhere. */
async function ensureDefaultChannel(store: EventStore): Promise<void> {
  if ((await store.listThreads()).length > 0) return;
  await store.createThread({ name: "general", topic: "Talk to the team, people and agents" }, { agent_id: "system", display_name: "Clutch" });
}

/** Create the channels (the workspace's) that do not exist yet; returns their bindings. */
async function ensureChannels(store: EventStore, channels: Workspace["channels"]): Promise<ChannelBinding[]> {
  const out: ChannelBinding[] = [];
  for (const c of channels) {
    const thread = (await store.queries.threadByName(c.name)) ?? (await store.createThread({ name: c.name, topic: c.topic }, { agent_id: "system", display_name: "Clutch" }));
    out.push({ thread_id: thread.id, name: c.name, entry_agent: c.entry_agent, answers: c.answers, suggestions: c.suggestions });
  }
  return out;
}

/**
 * The group chat an imported AutoGen team runs in its channel (server/orchestrator/group-chat.ts):
 * its pattern's turn-taking fields in `shape` (what the log keeps), and the team's own model spec
 * beside it (model specs stay out of the log). Null for a PromptPack.
 */
function groupChatOfTeam(team: ReturnType<typeof storedTeam>): TeamChat | null {
  const p = team.autogen?.pattern;
  if (!p) return null;
  const shape: GroupChatShape = {
    kind: p.kind,
    participants: p.participants.map(({ name, kind, agent_id, description }) => ({ name, kind, agent_id, description })),
    selector_prompt: p.selector_prompt,
    allow_repeated_speaker: p.allow_repeated_speaker,
    max_selector_attempts: p.max_selector_attempts,
    handoffs: p.handoffs,
    termination: p.termination,
    max_turns: p.max_turns,
    ...(p.graph ? { graph: p.graph } : {}),
    ...(p.kind === "magentic_one" ? { max_stalls: p.max_stalls, final_answer_prompt: p.final_answer_prompt } : {}),
  };
  return { shape, team: team.pack.name, model: p.team_model };
}

/** An imported team's group chat: its shape, its label, its own model spec. */
interface TeamChat {
  shape: GroupChatShape;
  team: string;
  model: ResolvedSpec | null;
}

/**
 * Add every imported PromptPack's team to `workspace` (docs/promptpacks.md). A pack that no
 * longer fits (its agents or channel now in the workspace folder) is logged and left out.
 */
async function addImportedTeams(workspace: Workspace, packs: PackImports, groupChats: Map<string, TeamChat>): Promise<void> {
  for (const stored of await packs.list()) {
    try {
      const team = storedTeam(stored);
      addTeam(workspace, teamAgents(workspace, team), team.channel);
      const chat = groupChatOfTeam(team);
      if (chat) groupChats.set(team.channel.name, chat);
    } catch (err) {
      log.error({ err, pack: stored.id }, "an imported PromptPack no longer fits the workspace; its team is left out");
    }
  }
}

/** The model of each agent: `options.modelFor`, which a workspace with agents cannot do without. */
function modelsFor(options: ClutchOptions, workspace: Workspace): (agent: WorkspaceAgent) => LanguageModel {
  if (options.modelFor) return options.modelFor;
  if (workspace.agents.size) throw new Error("createClutch: a workspace with agents needs modelFor (server/agents/models)");
  return (agent) => {
    throw new Error(`no model for ${agent.agent_id}`);
  };
}

/**
 * Build and start Clutch (see the module doc). Throws WorkspaceError when the workspace is
 * invalid, an Error when it has agents and no `modelFor` was given, and the database's error
 * when it cannot be opened or migrated.
 */
export async function createClutch(options: ClutchOptions): Promise<Clutch> {
  const workspace = options.workspaceDir ? loadWorkspace(options.workspaceDir) : NO_WORKSPACE;

  const eventLog = await openEventLog(options);
  const { store, tail } = eventLog;
  // Imported PromptPacks are part of the workspace (docs/promptpacks.md).
  const deployment = options.deployment ?? "clutch";
  const packs = new PackImports(eventLog.db, deployment);
  /** The group chat each imported AutoGen team's channel runs, by channel name (server/orchestrator/group-chat.ts). */
  const groupChats = new Map<string, TeamChat>();
  if (workspace !== NO_WORKSPACE) await addImportedTeams(workspace, packs, groupChats);
  const workflows = new WorkflowStore(eventLog.db, deployment);
  await workflows.seedFrom(workspace.dir);
  const a2aTasks = new A2ATaskRecords(eventLog.db, deployment);
  const modelFor = modelsFor(options, workspace);
  // Payload types are checked against the schema registry on every append (docs/schemas.md).
  const schemas = new SchemaRegistry(eventLog.db);
  await schemas.refresh();
  store.setPayloadCheck((messages) => schemas.checkMessages(messages));
  const registry = new AgentRegistry({ config: { ...workspace.registry, ...options.registry }, ...(options.clock ? { now: options.clock } : {}) });
  const serverSecret = authSecret(options.dataDir);
  const origins = { ...(options.publicUrl ? { publicUrl: options.publicUrl } : {}), ...(options.port ? { port: options.port } : {}) };
  // A session ended (signed out, revoked): its sockets end on every node (docs/identity.md "Live connections").
  const auth = createAuth(eventLog.db, {
    secret: serverSecret,
    origins,
    onSessionEnded: (ended) => identity.sessionEnded(ended),
    checkProfileName: (name, user_id) => identity.checkProfileName(name, user_id),
    ...(options.sso ? { oidc: options.sso.oidc, sso: () => identity.sso } : {}),
  });
  // A refresh token spent at the provider, through better-auth's own provider (server/auth/sso.ts `recheck`).
  const atProvider = async () => {
    const provider = (await auth.$context).socialProviders.find((p) => p.id === OIDC_PROVIDER_ID);
    if (!provider?.refreshAccessToken) throw new Error("the identity provider's discovery has not answered yet");
    return provider;
  };
  const refreshAtProvider = async (refreshToken: string) => (await atProvider()).refreshAccessToken!(refreshToken);
  // The claims for fresh tokens: the ID token verified against the provider's keys, then userinfo.
  const userInfoAtProvider = async (tokens: RefreshedTokens) => (await (await atProvider()).getUserInfo(tokens)) as ProviderProfile | null;
  // Names people see are unique across people and every agent the registry knows (server/auth/names.ts).
  const identity = new Identity(eventLog.db, store, auth, (id) => registry.get(id)?.card, {
    origins,
    signInPolicy: options.signInPolicy,
    agents: () => registry.list(),
    inviteTtlHours: options.inviteTtlHours,
    ...(options.sso ? { sso: { ...options.sso, refresh: refreshAtProvider, userInfo: userInfoAtProvider } } : {}),
  });
  // The append authorizer's cache forgets what each committed event makes stale, here or on another node (server/auth/append-cache.ts).
  const unfollowAppendCache = identity.followTail(tail);
  if (options.admin) await identity.ensureAdmin(options.admin);
  await registry.load(store.queries);
  const unfollowRegistry = tail.subscribe((ev) => void registry.apply(ev));
  const unfollowAudit = tail.subscribe((ev) => {
    if (!isEvent(ev, "audit.change")) return;
    // Who may do what changed (here or on another node): no cached key principal outlives it.
    identity.forgetPrincipals();
    if (ev.payload.action === "team.imported") void mountImported(ev.payload.detail as Record<string, unknown> | undefined).catch((err) => log.error({ err }, "adding an imported team failed"));
  });
  const unfollow = () => {
    unfollowRegistry();
    unfollowAppendCache();
    unfollowAudit();
  };
  registry.start();
  // Superseded heartbeats leave the log every COMPACTION_MS, on one node at a time (server/events/compaction.ts).
  const compaction = setInterval(() => {
    store
      .compactHeartbeats({ offline_after_sec: registry.offlineAfterSec, keep_recent_sec: HEARTBEATS_KEPT_SEC })
      .then((n) => n && log.info({ deleted: n }, "heartbeats compacted"))
      .catch((err) => log.warn({ err }, "heartbeat compaction failed"));
  }, COMPACTION_MS);
  compaction.unref();
  // People signed in through the provider are asked about again as their check falls due, on every node (server/auth/sso.ts).
  const ssoRecheck = identity.sso
    ? setInterval(
        () => void identity.sso?.recheck().catch((err) => log.warn({ err }, "the identity provider's check of signed-in people failed")),
        Math.min(60_000, Math.max(1_000, (identity.sso.settings.recheckSec * 1000) / 2)),
      )
    : null;
  ssoRecheck?.unref();

  if (options.defaultChannel) await ensureDefaultChannel(store);
  const channels = await ensureChannels(store, workspace.channels);


  const hub = workspace.mcpConfigPath
    ? await McpHub.fromFile(workspace.mcpConfigPath, options.cwd ? { cwd: options.cwd } : {})
    : new McpHub({ mcpServers: {} }, { cwd: options.cwd });
  const artifacts = new ArtifactStore(eventLog.db, options.artifactMaxBytes ? { maxBytes: options.artifactMaxBytes } : {});
  // Artifacts an older Clutch kept on this node's disk move into the database, once (docs/deploy.md).
  await artifacts
    .importFromDisk(options.dataDir)
    .then((moved) => (moved.imported || moved.failed) && log.info(moved, "artifacts imported from the data folder into the database"))
    .catch((err) => log.error({ err }, "artifacts in the data folder could not be imported into the database; the files are kept, the next start tries again"));
  const kernel = new PolicyKernel(workspace.policyPath, {
    onChange: (s) => (s.ok ? log.info({ file: s.file, rules: s.rules }, "policy loaded") : log.error({ file: s.file, error: s.error }, "policy invalid")),
  });
  kernel.watch();
  const approvals = new Approvals(store, kernel);
  const prices = new PriceBook(workspace.dir ? path.join(workspace.dir, "workspace.json") : null, workspace.prices);
  prices.watch();
  const budgets = new Budgets({ queries: store.queries, kernel, approvals, prices: () => prices.current() });
  const tools = new McpToolCaller(hub, artifacts);
  const a2a = new A2AClientDriver();
  const agui = new (await import("./adapters/ag-ui/driver")).AgUiClientDriver();
  const onPostgres = Boolean(options.databaseUrl && !options.embeddedUrl);
  // Streaming replies, statuses and typing, heard by every process of the deployment (server/streams/hub.ts).
  const bus: StreamBus = onPostgres ? await PgBus.connect(options.databaseUrl!, eventLog.sql, streamsChannel(deployment)) : new LocalBus();
  const streams = new StreamHub({ bus });
  // In-process LangGraph graphs keep their threads in PostgreSQL, so an interrupted one resumes after a restart.
  const graphs = new LangGraphDriver(workspace.dir, onPostgres ? postgresCheckpointer(options.databaseUrl!) : undefined);
  const nodeName = options.nodeName ?? `${os.hostname()}:${options.port ?? process.pid}`;
  // On PostgreSQL the agents' turns are jobs any node of the deployment takes (server/dispatch/turns.ts).
  const turns =
    onPostgres && workspace !== NO_WORKSPACE
      ? new TurnQueue({ connectionString: options.databaseUrl!, deployment, bus, webhookIdentifier: `${deployment}.webhook`, ...(options.agentConcurrency ? { concurrency: options.agentConcurrency } : {}) })
      : null;
  const runner = new AgentRunner({
    store,
    workspace,
    tools,
    modelFor,
    gate: (g) => approvals.gate(g),
    isRegistered: (id) => registry.has(id),
    schemas,
    budgets: (at) => budgets.check(at),
    drivers: { a2a, langgraph: graphs, "langgraph-server": graphs, "ag-ui": agui },
    streams,
    node: nodeName,
    ...(turns ? { turns } : {}),
  });
  for (const a of workspace.agents.values()) registry.upsertWorkspaceAgent(a);
  const router = new Router({
    store,
    registry,
    settings: workspace.routing,
    kernel,
    allowedAgentsOf: (id) => workspace.agents.get(id)?.allowed_agents ?? null,
  });
  // Events addressed to external agents with a webhook go out as signed POSTs, in the orchestrator's
  // channels; on PostgreSQL each is a job of the durable queue, committed with the event.
  const webhooks: WebhookDelivery | null =
    workspace !== NO_WORKSPACE
      ? new WebhookDelivery({
          store,
          tail,
          registry,
          serverSecret,
          inScope: (thread_id): Promise<boolean> => orchestrator.actsIn(thread_id),
          attempts: workspace.lifecycle.retry_attempts,
          delayMs: workspace.lifecycle.retry_delay_ms,
        })
      : null;
  // On PostgreSQL a request to a workspace agent commits with its dispatch job (server/dispatch/queue.ts).
  const queue =
    onPostgres && workspace.agents.size
      ? new DispatchQueue({
          connectionString: options.databaseUrl!,
          identifier: `${deployment}.dispatch`,
          isLocalAgent: (id) => workspace.agents.has(id),
          ...(webhooks ? { webhooks: { identifier: `${deployment}.webhook`, agentsOf: webhooks.agentsOf } } : {}),
        })
      : null;
  if (queue) {
    await queue.migrate();
    store.setInTx(queue.enqueueInTx);
  }
  if (turns) {
    await turns.migrate();
    // Every node takes turns and webhook deliveries, leader or not: a killed node's are swept to the others.
    if (queue && webhooks) webhooks.start({ follow: false });
    await turns.start((job, signal) => runner.runTurn(job.agent_id, job.task_id, signal), queue && webhooks ? (job) => webhooks.deliverJob(job) : undefined);
  }
  const orchestrator = new Orchestrator({
    store,
    tail,
    workspace,
    runner,
    channels,
    approvals,
    router,
    registry,
    allChannels: options.allChannels,
    now: options.clock,
    tools,
    durableDispatch: Boolean(queue),
    deployment,
    groupChatOf: (thread_id) => {
      const name = channels.find((c) => c.thread_id === thread_id)?.name;
      return name ? (groupChats.get(name) ?? null) : null;
    },
  });
  // Registered agents whose card names an A2A endpoint are reached like workspace agents on runtime a2a.
  const a2aAgents =
    workspace !== NO_WORKSPACE
      ? new RegisteredA2AAgents({
          store,
          tail,
          registry,
          driver: a2a,
          inScope: (thread_id) => orchestrator.actsIn(thread_id),
          retry: { attempts: workspace.lifecycle.retry_attempts, delay_ms: workspace.lifecycle.retry_delay_ms },
          answers: answersQuestions(workspace),
        })
      : null;

  // Workflow runs and group chats advance where the agents work (server/workflows/runner.ts, server/orchestrator/group-chat.ts).
  const workflowRunner = new WorkflowRunner({ store, tail, schemas, inScope: (thread_id) => orchestrator.actsIn(thread_id) });
  const groupChatRunner = new GroupChatRunner({
    store,
    tail,
    // The selector and the MagenticOne orchestrator speak with the team's own model client (group-chat.ts meters each call).
    teamModel: (thread_id, shape) => {
      const name = channels.find((c) => c.thread_id === thread_id)?.name;
      const chat = name ? groupChats.get(name) : undefined;
      if (name && chat && options.teamModelFor) return options.teamModelFor(name, chat.model);
      const first = shape.participants.find((p) => p.agent_id && workspace.agents.has(p.agent_id));
      if (!first) throw new Error("the team has no agent whose model could stand in for the team's model client");
      return modelFor(workspace.agents.get(first.agent_id!)!);
    },
    // A group chat is a team's channel's: this node's channels, not another deployment's on the same database.
    inScope: (thread_id) => channels.some((c) => c.thread_id === thread_id),
  });

  // The agents' work: on the only node, or on the leader of several (docs/deploy.md).
  let working = false;
  let stopHeartbeats = () => {};
  const agentWork = {
    async start(): Promise<void> {
      working = true;
      // With the turn queue the runner is the node's, not the leader's: it runs from start to stop.
      if (!turns) runner.start();
      if (channels[0]) await announceAgents(store, workspace.agents.values(), channels[0].thread_id);
      await agentWork.beat();
      orchestrator.start();
      await workflowRunner.start();
      await groupChatRunner.start();
      // Without the queue (the embedded database) the leader delivers from the live stream.
      if (!queue) webhooks?.start({ follow: true });
      a2aAgents?.start();
      await orchestrator.recover();
      if (queue) {
        const unlocked = await queue.unlockAbandoned();
        if (unlocked) log.info({ workers: unlocked }, "dispatch jobs of stopped workers unlocked");
        await queue.start((job) => orchestrator.dispatchJob(job));
      }
      log.info({ agents: [...workspace.agents.keys()], channels: channels.map((c) => c.name) }, "agents started");
    },
    /** Heartbeats for every agent of the workspace, those added since the last call included. */
    async beat(): Promise<void> {
      stopHeartbeats();
      stopHeartbeats = await startHeartbeats(
        store,
        [...workspace.agents.values()].map((a) => ({ agent_id: a.agent_id, name: a.card.display.name })),
        registry.config.heartbeat_interval_sec,
        (id) => runner.load(id),
      );
    },
    /** Work in flight gets `graceMs` (none: no limit); `abort` stops the agents' steps at once. */
    async stop({ graceMs, abort = false }: { graceMs?: number; abort?: boolean }): Promise<void> {
      if (!working) return;
      working = false;
      stopHeartbeats();
      const grace = graceMs === undefined ? null : new Promise<void>((r) => setTimeout(r, graceMs).unref());
      const within = (p: Promise<void>) => (grace ? Promise.race([p, grace]) : p);
      // Deliveries in hand stop first (a queue's job is kept for the next leader), so the queue's stop does not wait on them.
      await within(Promise.all([queue ? undefined : webhooks?.stop(), queue?.stop()]).then(() => undefined));
      await within(a2aAgents?.stop() ?? Promise.resolve());
      await within(workflowRunner.stop());
      await within(groupChatRunner.stop());
      await within(orchestrator.stop());
      if (turns) return;
      await within(runner.stop({ abort }));
      // Steps that outlived the grace stop now, before the database closes (the next start carries them on from the log).
      if (grace) await runner.stop({ abort: true });
    },
  };
  // Runs as OpenTelemetry traces, when an OTLP endpoint is set; sent by the node doing the agents' work.
  const traces = options.traces === false ? null : await startTraces({
    store,
    tail,
    nameOf: (id) => registry.get(id)?.card.display.name,
    exporting: () => workspace === NO_WORKSPACE || working,
    version: readVersion(),
    privateContent: options.tracePrivateContent ?? false,
  });
  let stopping: { graceMs?: number } = {};
  const lease =
    onPostgres && workspace !== NO_WORKSPACE
      ? new LeaderLease({
          connectionString: options.databaseUrl!,
          name: deployment,
          retryMs: options.leaseRetryMs,
          onAcquire: () => agentWork.start(),
          // A lost session: another node may lead already, so the agents stop at once.
          onRelease: (lost) => agentWork.stop(lost ? { graceMs: LOST_LEASE_GRACE_MS, abort: true } : stopping),
        })
      : null;
  if (lease) {
    if (!(await lease.start())) log.info({ deployment }, "another node leads: this one stands by to take the agents' work over");
  } else if (workspace !== NO_WORKSPACE) {
    await agentWork.start();
  }

  /** Add an imported team to the live workspace: its agents, its channel, and (leading) their cards and heartbeats. */
  async function mountTeam(team: ReturnType<typeof storedTeam>, agents: WorkspaceAgent[]): Promise<ChannelBinding> {
    addTeam(workspace, agents, team.channel);
    const chat = groupChatOfTeam(team);
    if (chat) groupChats.set(team.channel.name, chat);
    for (const a of agents) registry.upsertWorkspaceAgent(a);
    const [binding] = await ensureChannels(store, [workspace.channels.at(-1)!]);
    channels.push(binding!);
    if (working) {
      await announceAgents(store, agents, binding!.thread_id);
      await agentWork.beat();
    }
    return binding!;
  }

  /**
   * A team another node of this deployment imported (its `team.imported` audit.change): read from
   * the `promptpacks` table and added here too, within the tail's delay. A pack already here (this
   * node imported it, or saw it before) is left as it is.
   */
  async function mountImported(detail: Record<string, unknown> | undefined): Promise<void> {
    if (workspace === NO_WORKSPACE || detail?.deployment !== deployment || typeof detail.pack_id !== "string") return;
    if (workspace.channels.some((c) => c.name === detail.channel)) return;
    const stored = (await packs.list()).find((p) => p.id === detail.pack_id);
    if (!stored || workspace.channels.some((c) => c.name === detail.channel)) return;
    const team = storedTeam(stored);
    await mountTeam(team, teamAgents(workspace, team));
    log.info({ pack: stored.id }, "a PromptPack imported on another node is added here");
  }

  const clutch: Clutch = {
    store,
    tail,
    identity,
    registry,
    workspace,
    channels,
    approvals,
    prices,
    schemas,
    workflows,
    a2aTasks,
    artifacts,
    runner,
    orchestrator,
    streams,
    bus,
    async importPack(input, by) {
      if (workspace === NO_WORKSPACE) throw new ClutchError("no_workspace", "this Clutch runs without a workspace (CLUTCH_WORKSPACE=none), so it has no agents to add a team to");
      const { team, agents } = await packs.importTeam(workspace, input, by.agent_id, async (name) => Boolean(await store.queries.threadByName(name)));
      const binding = await mountTeam(team, agents);
      // The other nodes of the deployment add the team when they see this (mountImported).
      await recordAudit(store, by, {
        action: "team.imported",
        subject: `pack:${deployment}/${team.pack.id}`,
        summary: `imported the ${team.autogen ? "AutoGen team" : "PromptPack"} ${team.pack.name} as a team in #${binding.name}`,
        detail: { deployment, pack_id: team.pack.id, channel: binding.name, agents: agents.map((a) => a.agent_id) },
      });
      log.info({ pack: team.pack.id, kind: team.autogen ? "autogen" : "promptpack", agents: agents.map((a) => a.agent_id), by: by.agent_id }, "team imported");
      return { pack: team.pack, channel: binding, agents: agents.map((a) => a.agent_id), warnings: team.warnings, notes: team.notes };
    },
    webhookSecretOf: (agent_id) => webhookSecret(serverSecret, agent_id),
    agents: () => (workspace === NO_WORKSPACE ? "none" : working ? "here" : "standby"),
    turns: () => (turns ? { name: nodeName, agent_concurrency: turns.concurrency, running: turns.load } : null),
    deployment,
    databaseKind: eventLog.databaseKind,
    version: readVersion(),
    traces,
    async stop(opts = {}) {
      clearInterval(compaction);
      if (ssoRecheck) clearInterval(ssoRecheck);
      kernel.close();
      prices.close();
      store.setInTx(null);
      stopping = opts;
      if (lease) await lease.stop();
      else await agentWork.stop(opts);
      if (turns) {
        // Passes in hand finish their step (or are aborted past the grace) and go back to the queue
        // for the other nodes; deliveries in hand stop (their jobs are kept and made again).
        await Promise.all([turns.stop(opts.graceMs), runner.stop(), queue ? webhooks?.stop() : undefined]);
        await runner.stop({ abort: true });
        await turns.close();
      }
      await queue?.close();
      await hub.close();
      await streams.close();
      registry.stop();
      unfollow();
      await traces?.stop();
      await eventLog.close();
    },
  };
  return clutch;
}
