/**
 * Starting the workspace's agents (issue 3 step 1): the channels it names exist (#sales),
 * each agent announces itself with agent.register (or agent.update when its card changed),
 * joins the registry and sends heartbeats (issue 6), and the MCP hub, the agent runner, the
 * router and the orchestrator start, then carry on every unfinished run.
 */
import { isDeepStrictEqual } from "node:util";
import type { LanguageModel } from "ai";
import { makeMessage, type AgentCard } from "@/lib/protocol";
import { McpHub } from "../adapters/mcp/hub";
import { ArtifactStore } from "../artifacts/store";
import { AgentRunner } from "../agents/runner";
import { McpToolCaller } from "../agents/tool-caller";
import { fromRow } from "../events/codec";
import { conversationIds } from "../events/threads";
import { log } from "../log";
import { Orchestrator, type ChannelBinding } from "../orchestrator/orchestrator";
import { Approvals } from "../policy/approvals";
import { PolicyKernel } from "../policy/kernel";
import type { Runtime } from "../runtime";
import { Router } from "../router/router";
import { startHeartbeats } from "../router/registration";
import { loadWorkspace, type Workspace, type WorkspaceAgent } from "./workspace";

export interface AgentSystem {
  workspace: Workspace;
  channels: ChannelBinding[];
  hub: McpHub;
  runner: AgentRunner;
  orchestrator: Orchestrator;
  stop(): Promise<void>;
}

export interface AgentSystemOptions {
  /** Folder of workspace.json. */
  workspaceDir: string;
  /** Where artifacts are kept (`<dataDir>/artifacts`). */
  dataDir: string;
  /** The model of each agent. */
  modelFor(agent: WorkspaceAgent): LanguageModel;
  /** Repo root MCP server commands run in (default cwd). */
  cwd?: string;
  /** Act in every channel, not only the workspace's (the server; see server/orchestrator). */
  allChannels?: boolean;
  /** Registry settings that override workspace.json (from the environment). */
  registry?: { heartbeat_interval_sec?: number; offline_after_missed?: number };
}

/** Create the workspace's channels that do not exist yet; returns their bindings. */
async function ensureChannels(rt: Runtime, ws: Workspace): Promise<ChannelBinding[]> {
  const out: ChannelBinding[] = [];
  for (const c of ws.channels) {
    let thread = await rt.db.thread.findUnique({ where: { name: c.name } });
    if (!thread) {
      await rt.store.createThread({ name: c.name, topic: c.topic }, { agent_id: "system", display_name: "Clutch" });
      thread = await rt.db.thread.findUniqueOrThrow({ where: { name: c.name } });
    }
    out.push({ thread_id: thread.id, name: c.name, entry_agent: c.entry_agent });
  }
  return out;
}

/** agent.register for a new agent, agent.update when its card differs from the last one announced. */
async function announceAgents(rt: Runtime, ws: Workspace, home: ChannelBinding | undefined): Promise<void> {
  if (!home) return;
  for (const agent of ws.agents.values()) {
    const last = await rt.db.event.findFirst({
      where: { from_agent_id: agent.agent_id, type: { in: ["agent.register", "agent.update"] } },
      orderBy: { seq: "desc" },
    });
    const lastCard = last ? (fromRow(last).payload as { card?: AgentCard }).card : undefined;
    if (lastCard && isDeepStrictEqual(lastCard, agent.card)) continue;
    await rt.store.append(
      makeMessage({
        type: lastCard ? "agent.update" : "agent.register",
        thread_id: home.thread_id,
        ...conversationIds(home.thread_id),
        from: { agent_id: agent.agent_id, role: "worker", display_name: agent.card.display.name },
        to: [],
        payload: { card: agent.card },
      }),
    );
  }
}

/** Load the workspace, announce its agents and start the orchestration. */
export async function startAgentSystem(rt: Runtime, opts: AgentSystemOptions): Promise<AgentSystem> {
  const workspace = loadWorkspace(opts.workspaceDir);
  rt.workspace = workspace;
  const channels = await ensureChannels(rt, workspace);
  await announceAgents(rt, workspace, channels[0]);
  const hub = await McpHub.fromFile(workspace.mcpConfigPath, { cwd: opts.cwd ?? process.cwd() });
  rt.artifacts = new ArtifactStore(opts.dataDir);
  const kernel = new PolicyKernel(workspace.policyPath, {
    onChange: (s) => (s.ok ? log.info({ file: s.file, rules: s.rules }, "policy loaded") : log.error({ file: s.file, error: s.error }, "policy invalid")),
  });
  kernel.watch();
  const approvals = new Approvals(rt.store, kernel);
  rt.approvals = approvals;
  const runner = new AgentRunner({
    store: rt.store,
    workspace,
    tools: new McpToolCaller(hub, rt.artifacts),
    modelFor: opts.modelFor,
    gate: (g) => approvals.gate(g),
  });
  const registry = rt.registry;
  registry.config = { ...workspace.registry, ...opts.registry };
  for (const a of workspace.agents.values()) registry.upsertWorkspaceAgent(a);
  const stopHeartbeats = await startHeartbeats(
    rt.store,
    [...workspace.agents.values()].map((a) => ({ agent_id: a.agent_id, name: a.card.display.name })),
    registry.config.heartbeat_interval_sec,
    (id) => runner.load(id),
  );
  const router = new Router({
    store: rt.store,
    registry,
    settings: workspace.routing,
    kernel,
    allowedAgentsOf: (id) => workspace.agents.get(id)?.allowed_agents ?? null,
  });
  const orchestrator = new Orchestrator({ store: rt.store, tail: rt.tail, workspace, runner, channels, approvals, router, registry, allChannels: opts.allChannels });
  orchestrator.start();
  await orchestrator.recover();
  log.info({ agents: [...workspace.agents.keys()], channels: channels.map((c) => c.name) }, "agents started");
  return {
    workspace,
    channels,
    hub,
    runner,
    orchestrator,
    async stop() {
      stopHeartbeats();
      kernel.close();
      await orchestrator.stop();
      await runner.stop();
      await hub.close();
    },
  };
}
