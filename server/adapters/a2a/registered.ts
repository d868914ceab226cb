/**
 * Registered A2A agents (docs/adapters.md "A2A"): an external agent whose AgentCard names
 * `endpoints.a2a.url` (its A2A agent card, or the base URL that serves it at
 * `/.well-known/agent-card.json`) is reached the way a workspace agent with `runtime: a2a` is
 * (client.ts): the tasks routed or delegated to it go out as A2A streams, and what streams back
 * becomes its events. This bridge does for those agents what the runner does for the workspace's:
 *
 *   a task.request addressed to it      → task.accept, then the A2A client's wake
 *   an answer to its question           → a wake: the answer goes back on the same A2A task
 *   task.cancel / task.timeout of its task → the stream stops and CancelTask is sent
 *   every heartbeat interval            → its card is fetched; while it answers, Clutch sends the
 *                                         agent's heartbeat, so it counts as online for routing
 *
 * Only in the channels the orchestrator acts in. Wakes of one task coalesce, as the runner's do.
 */
import { CapManifestSchema, isEvent, type AgentCard, type StoredEvent } from "@/lib/protocol";
import { TERMINAL_STATES, type TaskState } from "@/lib/fold/task-state";
import type { EventStore } from "../../events/store";
import type { EventTail } from "../../events/tail";
import type { AgentRegistry } from "../../router/registry";
import { sendHeartbeats } from "../../router/registration";
import { taskContext } from "../../agents/task-context";
import { currentRequest } from "../../agents/runner";
import { askerOf } from "../../agents/driver";
import type { WorkspaceAgent } from "../../workspace/workspace";
import { RunLog } from "../../agents/run-log";
import { log } from "../../log";
import type { A2AClientDriver } from "./client";
import { Wakes } from "../../agents/wakes";

/** The A2A agent card URL an AgentCard names (`endpoints.a2a.url`), or null. */
export function a2aCardUrlOf(card: AgentCard | undefined): string | null {
  const url = card?.endpoints?.a2a?.url;
  if (typeof url !== "string" || !/^https?:\/\//.test(url)) return null;
  return /\.json(\?.*)?$/.test(url) ? url : `${url.replace(/\/+$/, "")}/.well-known/agent-card.json`;
}

/** A registered agent as the A2A driver takes it: a workspace agent in shape, on runtime a2a. */
function asWorkspaceAgent(card: AgentCard, card_url: string): WorkspaceAgent {
  const manifest = CapManifestSchema.parse({
    id: card.agent_id.replace(/^agent:/, ""),
    system_prompt: card.display.desc ?? "",
    allowed_agents: [],
    delegate_rules: {},
    overseer: null,
    mcp_bindings: [],
    runtime: { kind: "a2a", card_url },
  });
  return { agent_id: card.agent_id, manifest, card, allowed_agents: [], overseer: null };
}

export interface RegisteredA2ADeps {
  store: EventStore;
  tail: EventTail;
  registry: AgentRegistry;
  driver: A2AClientDriver;
  /** Whether this Clutch acts in the channel (the orchestrator's scope). */
  inScope(thread_id: string): Promise<boolean>;
  /** Calls tried in all, and the wait before the second, ms (workspace lifecycle settings). */
  retry: { attempts: number; delay_ms: number };
  /** Whether an agent answers questions (one on the model loop): a delegator that does gets them, else people do. */
  answers(agent_id: string): boolean;
}

export class RegisteredA2AAgents {
  private unsubscribe: (() => void) | null = null;
  private timer: NodeJS.Timeout | null = null;
  private readonly wakes = new Wakes();

  constructor(private readonly deps: RegisteredA2ADeps) {}

  /** Follow the stream, and send the heartbeats of the agents whose card answers. */
  start(): void {
    this.unsubscribe = this.deps.tail.subscribe((ev) => this.onEvent(ev));
    const interval = this.deps.registry.config.heartbeat_interval_sec * 1000;
    this.timer = setInterval(() => void this.beat().catch((err) => log.warn({ err }, "A2A agents' heartbeat failed")), interval);
    this.timer.unref();
    void this.beat().catch((err) => log.warn({ err }, "A2A agents' heartbeat failed"));
  }

  /** Stop following; streams in flight are aborted. Resolves when they have stopped. */
  async stop(): Promise<void> {
    this.unsubscribe?.();
    if (this.timer) clearInterval(this.timer);
    await this.wakes.stop(true);
  }

  /** The registered agents with an A2A endpoint, and their card URLs. */
  private agents(): { agent_id: string; card: AgentCard; card_url: string }[] {
    return this.deps.registry.list().flatMap((a) => {
      const card_url = a.source === "external" ? a2aCardUrlOf(a.card) : null;
      return card_url ? [{ agent_id: a.agent_id, card: a.card, card_url }] : [];
    });
  }

  private async beat(): Promise<void> {
    const alive = [];
    for (const a of this.agents()) {
      const ok = await fetch(a.card_url, { signal: AbortSignal.timeout(5000) }).then(
        (r) => r.ok,
        () => false,
      );
      if (ok) alive.push({ agent_id: a.agent_id, name: a.card.display.name, active: this.wakes.count(`${a.agent_id}/`) });
    }
    if (!this.wakes.isStopped) await sendHeartbeats(this.deps.store, alive);
  }

  private onEvent(ev: StoredEvent): void {
    for (const { agent_id } of ev.to) {
      const agent = this.deps.registry.get(agent_id);
      const card_url = agent?.source === "external" ? a2aCardUrlOf(agent.card) : null;
      if (!agent || !card_url) continue;
      if (isEvent(ev, "task.request") || (isEvent(ev, "chat.message") && ev.payload.reply_to)) this.wake(asWorkspaceAgent(agent.card, card_url), ev.task_id, ev.thread_id);
      else if (isEvent(ev, "task.cancel", "task.timeout")) void this.wakes.abort(`${agent_id}/${ev.task_id}`, new Error(`task ${ev.task_id} ended`));
    }
  }

  private wake(agent: WorkspaceAgent, task_id: string, thread_id: string): void {
    const pass = async (signal: AbortSignal) => {
      if (await this.deps.inScope(thread_id)) await this.pass(agent, task_id, signal);
    };
    this.wakes.wake(`${agent.agent_id}/${task_id}`, pass, { agent_id: agent.agent_id, task_id });
  }

  /** One wake: accept the task if it was not yet, then hand it to the A2A client. */
  private async pass(agent: WorkspaceAgent, task_id: string, signal: AbortSignal): Promise<void> {
    const { store } = this.deps;
    const row = await store.queries.task(task_id);
    if (!row || row.assignee !== agent.agent_id || TERMINAL_STATES.has(row.state as TaskState)) return;
    const runLog = new RunLog(store, row.run_id);
    const events = await runLog.refresh();
    const current = currentRequest(events, task_id, agent.agent_id);
    if (!current) return;
    const { request, index } = current;
    const attempt = request.attempt ?? 1;
    const ctx = taskContext({ agent, instance_id: `${agent.manifest.id}/${task_id}`, run_id: row.run_id, thread_id: row.thread_id, task_id, parent_task_id: row.parent_task_id, kind: "work", request });
    if (!events.slice(index).some((e) => e.type === "task.accept" && e.task_id === task_id)) {
      await store.append(ctx.envelope("task.accept", { agent_id: agent.agent_id, instance_id: ctx.instance_id }, { to: [{ agent_id: request.from.agent_id }], attempt, idempotency_key: `${ctx.instance_id}:accept:${attempt}` }));
    }
    const asker = askerOf(request, this.deps.answers);
    await this.deps.driver.wake({ ctx, request, attempt, asker, events: () => runLog.refresh(), signal, store, retry: this.deps.retry });
  }
}
