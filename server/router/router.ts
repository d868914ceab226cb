/**
 * The router (Clutch Protocol §4.1 "capability resolution is performed by the orchestrator /
 * router", §10 steps 1–3). A task.request addressed to `agent:orchestrator` (a person
 * writing to `@skill:research`, an agent delegating to a capability, a client of the API) is
 * routed: the router folds the registry, each agent's load and record and the policy into
 * server/router/match.ts and appends, in one batch,
 *
 *   routing.decision + the task.request again, to the chosen agent (same task_id, still from
 *     its requester, `meta.routed_from` naming the original), or
 *   routing.failure (outcome waiting) once, and the request waits: it is routed again whenever
 *     an agent registers, comes online or finishes a task, and fails after `wait_timeout_sec`, or
 *   routing.failure (outcome failed) + task.error NO_MATCHING_AGENT to the requester.
 *
 * `reroute` routes a routed task again, away from an agent that did not accept it in time or
 * went offline (server/lifecycle/deadlines.ts).
 *
 * Requests where some agent only lacks room or presence always wait (those are passing
 * states); `on_no_match` decides for requests nobody can ever take as things stand.
 *
 * The router is called only from the orchestrator's reaction chain, so decisions happen one at
 * a time and each sees the load the previous ones caused (the tasks projection is updated in
 * the same transaction as the routed request).
 */
import { makeMessage, type ClutchMessage, type PayloadOf, type StoredEvent, type StoredEventOf } from "@/lib/protocol";
import { TERMINAL_STATES, type TaskState } from "@/lib/fold/task-state";
import type { EventStore } from "../events/store";
import { log } from "../log";
import type { PolicyKernel } from "../policy/kernel";
import { decide } from "../policy/rules";
import type { RoutingSettings } from "../workspace/workspace";
import { DEFAULT_WEIGHTS, route, type AgentView, type RoundRobin, type RouteOutcome } from "./match";
import type { AgentRegistry } from "./registry";
import { agentStats } from "./stats";

export const ORCHESTRATOR = { agent_id: "agent:orchestrator", role: "orchestrator" } as const;

/**
 * The routing.decision of an agent chosen without capability matching (Clutch Protocol §2.5,
 * §4.3 "Routing Decision Event"; a channel's entry agent, an @mention, a delegation by id, an
 * overseer): payload `{ selected, candidates: [selected], reason, scores: { [selected]: 1 },
 * mode: "fixed", rejected? }` (`rejected` only when given), from agent:orchestrator, to nobody,
 * in the task `at`, with `idempotency_key` (§5.2) and `meta` when given.
 */
export function fixedRouting(
  at: { thread_id: string; run_id: string; task_id: string; parent_task_id: string | null },
  selected: string,
  why: { reason: string; rejected?: PayloadOf<"routing.decision">["rejected"] },
  idempotency_key: string,
  meta?: Record<string, unknown>,
): ClutchMessage {
  const payload: PayloadOf<"routing.decision"> = {
    selected,
    candidates: [selected],
    reason: why.reason,
    scores: { [selected]: 1 },
    mode: "fixed",
    ...(why.rejected ? { rejected: why.rejected } : {}),
  };
  return makeMessage({ type: "routing.decision", ...at, from: ORCHESTRATOR, to: [], payload, idempotency_key, ...(meta ? { meta } : {}) });
}

/** Whether a task.request asks the router to choose its agent. */
export function needsRouting(ev: Pick<StoredEvent, "type" | "to" | "from">): boolean {
  if (ev.type !== "task.request" || ev.from.agent_id === ORCHESTRATOR.agent_id) return false;
  return ev.to.length === 0 || ev.to[0]!.agent_id === ORCHESTRATOR.agent_id;
}

export interface RouterDeps {
  store: EventStore;
  registry: AgentRegistry;
  settings: RoutingSettings;
  /** The policy in force, for the `policy` filter (a rule that would deny the dispatch). */
  kernel?: PolicyKernel | null;
  /** CAP allowed_agents of a workspace agent; null for anyone else. */
  allowedAgentsOf(agent_id: string): string[] | null;
}

/** A task.request as the router gets it (from the orchestrator's reaction chain). */
type Request = StoredEventOf<"task.request">;

interface Waiting {
  ev: Request;
  since: number;
}

export class Router {
  private waiting = new Map<string, Waiting>();
  private rr: RoundRobin = new Map();

  /** See RouterDeps; `settings` are the workspace's `routing` (server/workspace/workspace.ts). */
  constructor(private readonly deps: RouterDeps) {}

  /** Requests waiting for an agent, oldest first. */
  get pending(): string[] {
    return [...this.waiting.keys()];
  }

  /** The agents as the router sees them now (one registry read and one stats query). */
  async snapshot(): Promise<AgentView[]> {
    const agents = this.deps.registry.list();
    const stats = await agentStats(
      this.deps.store.queries,
      agents.map((a) => a.agent_id),
    );
    return agents.map((a) => {
      const s = stats.get(a.agent_id)!;
      return { agent_id: a.agent_id, card: a.card, online: this.deps.registry.isOnline(a.agent_id), load: s.active, recent: s.recent };
    });
  }

  /** The policy's verdict on dispatching `ev` to each agent (a deny rule removes the agent). */
  private withPolicy(ev: Request, views: AgentView[]): AgentView[] {
    const policy = this.deps.kernel?.current();
    if (!policy) return views;
    return views.map((v) => {
      const m = decide(policy, {
        kind: "dispatch",
        agent: v.agent_id,
        capabilities: v.card.capabilities.map((c) => c.id),
        ...(ev.domain ? { domain: ev.domain } : {}),
        ...(ev.payload_type ? { payload_type: ev.payload_type } : {}),
      });
      return m.decision === "deny" ? { ...v, denied: `the policy denies it (${m.rule?.id ?? "default"}: ${m.reason})` } : v;
    });
  }

  /** Decide for one request (no events appended), on `views` (default: a fresh snapshot). */
  async decide(ev: Request, views?: AgentView[]): Promise<RouteOutcome> {
    const policy = ev.security?.policy;
    return route(
      {
        requires: ev.requires ?? [],
        prefers: ev.prefers ?? [],
        domain: ev.domain ?? null,
        security: policy ?? null,
        allowed_agents: this.deps.allowedAgentsOf(ev.from.agent_id),
        expects: ev.payload.expects?.payload_type ?? null,
        input_type: ev.payload.input_type ?? null,
        delegator: ev.from.agent_id,
      },
      this.withPolicy(ev, views ?? (await this.snapshot())),
      { weights: { ...DEFAULT_WEIGHTS, ...this.deps.settings.weights }, rr: this.rr },
    );
  }

  /**
   * Route a request (see the module doc). Returns the outcome (`settled`: it was routed or ended
   * already, so nothing is done). `views` lets a caller that routes many requests in a row
   * reuse one snapshot (the chosen agent's load is counted up).
   */
  async route(ev: Request, views?: AgentView[]): Promise<"routed" | "waiting" | "failed" | "settled"> {
    // Routed or ended already (a second attempt, a restart, or a fork that copied the routed request too).
    const task = await this.deps.store.queries.task(ev.task_id);
    if (task && (TERMINAL_STATES.has(task.state as TaskState) || (task.assignee && task.assignee !== ORCHESTRATOR.agent_id))) {
      this.waiting.delete(ev.task_id);
      return "settled";
    }
    const out = await this.decide(ev, views);
    const at = { thread_id: ev.thread_id, run_id: ev.run_id, task_id: ev.task_id, parent_task_id: ev.parent_task_id ?? null, from: ORCHESTRATOR };
    if (out.ok) {
      this.waiting.delete(ev.task_id);
      const chosen = views?.find((v) => v.agent_id === out.payload.selected);
      if (chosen) chosen.load++;
      // The request again, to the chosen agent: still from its requester, so the outcome goes back to them.
      const { v: _v, id: _id, ts: _ts, seq: _seq, idempotency_key: _k, to: _to, meta, ...rest } = ev;
      const routed = makeMessage({
        ...rest,
        to: [{ agent_id: out.payload.selected }],
        meta: { ...(meta ?? {}), routed_from: ev.id, routed_by: ORCHESTRATOR.agent_id },
        idempotency_key: `routed:${ev.task_id}:${ev.id}`,
      });
      await this.deps.store.append([
        makeMessage({ type: "routing.decision", ...at, to: [], payload: out.payload, idempotency_key: `routing:${ev.task_id}:${ev.id}` }),
        routed,
      ]);
      return "routed";
    }
    const since = this.waiting.get(ev.task_id)?.since ?? Date.now();
    const timeout = this.deps.settings.wait_timeout_sec;
    const expired = timeout != null && Date.now() - since >= timeout * 1000;
    const wait = !expired && (out.retry || this.deps.settings.on_no_match === "wait");
    if (wait) {
      this.waiting.set(ev.task_id, { ev, since });
      await this.deps.store.append(
        makeMessage({
          type: "routing.failure",
          ...at,
          to: [],
          payload: { ...out.payload, outcome: "waiting", reason: `${out.payload.reason}; waiting for an agent` },
          idempotency_key: `routing-wait:${ev.task_id}:${ev.id}`,
        }),
      );
      return "waiting";
    }
    this.waiting.delete(ev.task_id);
    const reason = expired ? `${out.payload.reason}; gave up after waiting ${timeout} s` : out.payload.reason;
    await this.deps.store.append([
      makeMessage({ type: "routing.failure", ...at, to: [], payload: { ...out.payload, outcome: "failed", reason }, idempotency_key: `routing-failed:${ev.task_id}:${ev.id}` }),
      makeMessage({
        type: "task.error",
        ...at,
        to: [{ agent_id: ev.from.agent_id }],
        payload: { code: "NO_MATCHING_AGENT", message: `No agent could take "${ev.payload.title ?? ev.task_id}": ${reason}`, retryable: true, details: { requires: ev.requires ?? [], prefers: ev.prefers ?? [] } },
        idempotency_key: `routing-error:${ev.task_id}:${ev.id}`,
      }),
    ]);
    return "failed";
  }

  /**
   * Route a routed task again, away from the agents in `exclude` (the one that did not accept in
   * time or went offline, and any tried before): routing.decision (its reason starting with `why`)
   * + the request to the next agent as a new attempt. `request` is the task's original request
   * to the router (it names what is required). "failed" when no other agent can take it; nothing
   * is appended then.
   */
  async reroute(request: Request, exclude: string[], why: string, attempt: number): Promise<"routed" | "failed"> {
    const views = (await this.snapshot()).filter((v) => !exclude.includes(v.agent_id));
    const out = await this.decide(request, views);
    if (!out.ok) return "failed";
    const at = { thread_id: request.thread_id, run_id: request.run_id, task_id: request.task_id, parent_task_id: request.parent_task_id ?? null };
    const { v: _v, id: _id, ts: _ts, seq: _seq, idempotency_key: _k, to: _to, meta, ...rest } = request;
    await this.deps.store.append([
      makeMessage({
        type: "routing.decision",
        ...at,
        from: ORCHESTRATOR,
        to: [],
        payload: { ...out.payload, reason: `${why}; ${out.payload.reason}` },
        attempt,
        idempotency_key: `rerouting:${request.task_id}:${attempt}`,
      }),
      makeMessage({
        ...rest,
        to: [{ agent_id: out.payload.selected }],
        attempt,
        meta: { ...(meta ?? {}), routed_from: request.id, routed_by: ORCHESTRATOR.agent_id, rerouted: why },
        idempotency_key: `rerouted:${request.task_id}:${attempt}`,
      }),
    ]);
    return "routed";
  }

  /** Route every waiting request again, oldest first (after a change that may free an agent). */
  async retryWaiting(): Promise<void> {
    if (!this.waiting.size) return;
    const views = await this.snapshot();
    for (const { ev } of [...this.waiting.values()]) {
      try {
        await this.route(ev, views);
      } catch (err) {
        log.warn({ err, task_id: ev.task_id }, "routing a waiting request failed");
      }
    }
  }
}
