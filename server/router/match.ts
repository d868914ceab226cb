/**
 * The routing decision (Clutch Protocol §4.2 "Matching Algorithm", §4.3 "Routing Decision
 * Event"): a pure function from a request and the agents as the registry sees them to the
 * payload of a routing.decision or a routing.failure.
 *
 *   1. filters: every agent must pass all of them. They are checked from the most lasting reason
 *      to the most passing one, and an agent is reported with the first it fails:
 *        requires        every required capability (AND), by id, within its version range
 *        allowed_agents  CAP: the delegator may only delegate to these
 *        produces        the request `expects` a payload type (§3.4) and the agent's card declares
 *                        the types it produces, without that one (a card that declares none passes)
 *        consumes        likewise for the request's `input_type` and the card's `consumes`
 *        policy          the policy kernel would deny the dispatch
 *        security        the task asks for a sandbox and the agent runs outside one
 *        tool_allowlist  the agent's tools for this task are not all on the task's allowlist
 *        network         the agent has less network access than the task needs
 *        offline         no heartbeat for the registry's offline threshold
 *        concurrency     its tasks in progress reached limits.max_concurrency
 *   2. preference score in 0..1: the weighted share of prefers[] (and the envelope's domain)
 *      it matches: `tool:x`/`mcp:x` against its tools, `domain:x`/`tag:x` against capability
 *      tags, `cost:low` against cost hints, anything else as a capability (with optional range);
 *      a request that `expects` a payload type prefers agents whose card produces it
 *      (`produces:<type>`, weighted as a capability).
 *   3. tie-breakers among the best score: least loaded (tasks / max_concurrency), then recent
 *      success rate (Laplace-smoothed, so a new agent counts as 50 %), then round robin.
 *
 * The result is `retry: true` when some agent passed every lasting filter and failed only on
 * `offline` or `concurrency`: the request can wait for it.
 *
 * Speed (bench/router.ts): an AgentPool indexes agents by capability id, so a decision only
 * looks closely at agents that offer every required id. Agents that offer none are listed in
 * `rejected` one by one while the list stays short (MAX_LISTED); beyond that they are counted
 * in `rejected_summary`, so a decision among 1,000 agents stays small and readable.
 */
import type { AgentCard, Capability, PayloadOf } from "@/lib/protocol";
import { findCapability, parseRequirement, RequirementError, type Requirement } from "./requirement";

/** An agent as the router sees it at the moment of the decision. */
export interface AgentView {
  agent_id: string;
  card: AgentCard;
  online: boolean;
  /** Tasks in progress (pending or running). */
  load: number;
  /** Ended tasks among its recent ones, and how many of them succeeded. */
  recent: { ended: number; succeeded: number };
  /** The policy kernel's verdict on dispatching this task to it (absent: allowed). */
  denied?: string | null;
}

/** What is asked (the task.request's routing fields). */
export interface RouteRequest {
  requires: readonly string[];
  prefers: readonly string[];
  domain?: string | null;
  security?: { sandbox?: boolean; tool_allowlist?: readonly string[]; network?: string } | null;
  /** CAP allowed_agents of the delegating agent; null when a person or the API asks. */
  allowed_agents?: readonly string[] | null;
  /** Who asks, for the explanation. */
  delegator?: string | null;
  /** The payload type the result must have (task.request `expects.payload_type`, §3.4). */
  expects?: string | null;
  /** The payload type of the request's input (task.request `input_type`). */
  input_type?: string | null;
}

/** Weights of the preference kinds (§4.2 "weighted match on tags, tools, domain"). */
export interface PreferenceWeights {
  tool: number;
  tag: number;
  domain: number;
  capability: number;
  cost: number;
}
export const DEFAULT_WEIGHTS: PreferenceWeights = { tool: 1, tag: 1, domain: 1, capability: 1, cost: 0.5 };

/** Agents indexed by capability id (build once per snapshot with `poolOf`). */
export interface AgentPool {
  all: readonly AgentView[];
  byCapability: Map<string, AgentView[]>;
}

/** Index `views` by capability id. */
export function poolOf(views: readonly AgentView[]): AgentPool {
  const byCapability = new Map<string, AgentView[]>();
  for (const v of views) {
    for (const id of new Set(v.card.capabilities.map((c) => c.id))) {
      const list = byCapability.get(id);
      if (list) list.push(v);
      else byCapability.set(id, [v]);
    }
  }
  return { all: views, byCapability };
}

/** Rejections listed one by one at most; the rest are counted (`rejected_summary`). */
export const MAX_LISTED = 50;

/** Round-robin memory: the agent last chosen per set of requirements. */
export type RoundRobin = Map<string, string>;

export type RouteOutcome =
  | { ok: true; payload: PayloadOf<"routing.decision"> }
  | { ok: false; payload: PayloadOf<"routing.failure">; retry: boolean };

type Rejection = { agent_id: string; filter: string; reason: string };
const PASSING = new Set(["offline", "concurrency"]);
const NETWORK_LEVEL: Record<string, number> = { none: 0, "egress-restricted": 1, egress: 2 };

const bare = (tool: string) => tool.replace(/^(mcp|tool):/, "").toLowerCase();
const pct = (n: number) => `${Math.round(n * 100)}%`;
const round = (n: number) => Math.round(n * 1000) / 1000;

function maxOf(card: AgentCard): number {
  return card.limits?.max_concurrency ?? 1;
}

/** Tools the agent brings to the task: those of the capabilities it matched, or all of them. */
function toolsFor(caps: readonly Capability[]): Set<string> {
  const out = new Set<string>();
  for (const c of caps) for (const t of [...(c.tools ?? []), ...(c.servers ?? [])]) out.add(bare(t));
  return out;
}

/** The first lasting filter the agent fails, as a rejection; null when it passes them all. */
function lastingFilter(agent: AgentView, req: RouteRequest, required: Requirement[]): Rejection | null {
  const reject = (filter: string, reason: string) => ({ agent_id: agent.agent_id, filter, reason });
  const caps = agent.card.capabilities;
  const matched: Capability[] = [];
  for (const r of required) {
    const found = findCapability(caps, r);
    if ("reason" in found) return reject("requires", found.reason);
    matched.push(found.cap);
  }
  if (req.allowed_agents && !req.allowed_agents.includes(agent.agent_id)) {
    return reject("allowed_agents", `${req.delegator ?? "the delegator"} may delegate only to [${req.allowed_agents.join(", ") || "nobody"}]`);
  }
  const { produces, consumes } = agent.card;
  if (req.expects && produces?.length && !produces.includes(req.expects)) return reject("produces", `produces [${produces.join(", ")}], not ${req.expects}`);
  if (req.input_type && consumes?.length && !consumes.includes(req.input_type)) return reject("consumes", `consumes [${consumes.join(", ")}], not ${req.input_type}`);
  if (agent.denied) return reject("policy", agent.denied);
  const sec = req.security ?? {};
  if (sec.sandbox === true && agent.card.security?.sandbox === false) return reject("security", "the task needs a sandbox and the agent runs outside one");
  if (sec.tool_allowlist) {
    const allowed = new Set(sec.tool_allowlist.map(bare));
    const outside = [...toolsFor(required.length ? matched : caps)].filter((t) => !allowed.has(t));
    if (outside.length) return reject("tool_allowlist", `uses ${outside.join(", ")}, not on the task's allowlist [${sec.tool_allowlist.join(", ")}]`);
  }
  if (sec.network && NETWORK_LEVEL[sec.network] !== undefined) {
    const has = agent.card.security?.network ?? "egress-restricted";
    if ((NETWORK_LEVEL[has] ?? 0) < NETWORK_LEVEL[sec.network]!) return reject("network", `the task needs ${sec.network} network access; the agent has ${has}`);
  }
  return null;
}

function passingFilter(agent: AgentView): Rejection | null {
  if (!agent.online) return { agent_id: agent.agent_id, filter: "offline", reason: "no recent heartbeat" };
  const max = maxOf(agent.card);
  if (agent.load >= max) return { agent_id: agent.agent_id, filter: "concurrency", reason: `at capacity: ${agent.load} of ${max} tasks in progress` };
  return null;
}

/** The prefers[] entries (and `domain:<envelope domain>`) an agent matches, and its score. */
function preference(card: AgentCard, prefs: readonly string[], w: PreferenceWeights): { score: number; matched: string[] } {
  if (!prefs.length) return { score: 1, matched: [] };
  let total = 0;
  let got = 0;
  const matched: string[] = [];
  const caps = card.capabilities;
  for (const p of prefs) {
    const colon = p.indexOf(":");
    const kind = colon < 0 ? "" : p.slice(0, colon);
    const value = p.slice(colon + 1).toLowerCase();
    let weight: number;
    let hit: boolean;
    if (kind === "tool" || kind === "mcp") {
      weight = w.tool;
      hit = caps.some((c) => [...(c.tools ?? []), ...(c.servers ?? [])].some((t) => bare(t) === value));
    } else if (kind === "domain" || kind === "tag") {
      weight = kind === "domain" ? w.domain : w.tag;
      hit = caps.some((c) => c.tags?.some((t) => t.toLowerCase() === value));
    } else if (kind === "produces") {
      weight = w.capability;
      hit = Boolean(card.produces?.includes(value));
    } else if (kind === "cost") {
      weight = w.cost;
      hit = caps.some((c) => c.cost_hint === value);
    } else {
      weight = w.capability;
      let req: Requirement | null = null;
      try {
        req = parseRequirement(p);
      } catch {
        req = null;
      }
      hit = Boolean(req) && "cap" in findCapability(caps, req!);
    }
    total += weight;
    if (hit) {
      got += weight;
      matched.push(p);
    }
  }
  return { score: total > 0 ? round(got / total) : 1, matched };
}

/**
 * Route one request among `agents` (§4.2). Pure but for `rr`, which it updates with the
 * choice. Never throws: an unreadable version range is a failed routing with that reason.
 */
export function route(req: RouteRequest, agents: readonly AgentView[] | AgentPool, opts: { weights?: PreferenceWeights; rr?: RoundRobin } = {}): RouteOutcome {
  const pool = "byCapability" in agents ? agents : poolOf(agents);
  const weights = opts.weights ?? DEFAULT_WEIGHTS;
  const implied = [...(req.domain ? [`domain:${req.domain}`] : []), ...(req.expects ? [`produces:${req.expects}`] : [])];
  const prefs = [...req.prefers, ...implied.filter((p) => !req.prefers.includes(p))];
  const echo = { requires: [...req.requires], prefers: [...req.prefers] };
  let required: Requirement[];
  try {
    required = req.requires.map(parseRequirement);
  } catch (err) {
    if (!(err instanceof RequirementError)) throw err;
    return { ok: false, retry: false, payload: { reason: err.message, ...echo, outcome: "failed", rejected: [] } };
  }

  // Only agents that offer every required capability id need a closer look.
  let offering: readonly AgentView[] = pool.all;
  if (required.length) {
    const lists = required.map((r) => pool.byCapability.get(r.id) ?? []).sort((a, b) => a.length - b.length);
    const others = lists.slice(1).map((l) => new Set(l));
    offering = lists[0]!.filter((a) => others.every((s) => s.has(a)));
  }

  const rejected: Rejection[] = [];
  const passed: AgentView[] = [];
  let waitable = false;
  for (const a of offering) {
    const lasting = lastingFilter(a, req, required);
    if (lasting) {
      rejected.push(lasting);
      continue;
    }
    const passing = passingFilter(a);
    if (passing) {
      rejected.push(passing);
      waitable = true;
      continue;
    }
    passed.push(a);
  }
  const lacking = pool.all.length - offering.length;
  let rejected_summary: { filter: string; count: number; reason: string }[] | undefined;
  if (lacking > 0 && rejected.length + lacking <= MAX_LISTED) {
    const has = new Set(offering);
    for (const a of pool.all) if (!has.has(a)) rejected.push(lastingFilter(a, req, required)!);
  } else if (lacking > 0) {
    rejected_summary = [{ filter: "requires", count: lacking, reason: `${lacking} agents do not offer ${required.map((r) => r.id).join(" and ")}` }];
  }
  if (rejected.length > MAX_LISTED) {
    const byFilter = new Map<string, number>();
    for (const r of rejected.slice(MAX_LISTED)) byFilter.set(r.filter, (byFilter.get(r.filter) ?? 0) + 1);
    rejected_summary = [...(rejected_summary ?? []), ...[...byFilter].map(([filter, count]) => ({ filter, count, reason: `${count} more agents removed by ${filter}` }))];
    rejected.length = MAX_LISTED;
  }
  const rejections = { rejected, ...(rejected_summary ? { rejected_summary } : {}) };
  const asked = req.requires.length ? `requires[${req.requires.join(", ")}]` : "no required capability";

  if (!passed.length) {
    const busy = rejected.filter((r) => PASSING.has(r.filter));
    const reason = !pool.all.length
      ? "no agent is registered"
      : busy.length
        ? `${busy.length} agent${busy.length === 1 ? "" : "s"} match ${asked} but none can take it now (${[...new Set(busy.map((r) => r.filter))].join(", ")})`
        : `no agent matches ${asked}`;
    return { ok: false, retry: waitable, payload: { reason, ...echo, ...rejections } };
  }

  const ranked = passed
    .map((a) => {
      const { score, matched } = preference(a.card, prefs, weights);
      const max = maxOf(a.card);
      const smoothed = (a.recent.succeeded + 1) / (a.recent.ended + 2);
      return { a, score, matched, ratio: a.load / max, smoothed, max };
    })
    .sort((x, y) => y.score - x.score || x.ratio - y.ratio || y.smoothed - x.smoothed || (x.a.agent_id < y.a.agent_id ? -1 : 1));

  // Tie-breakers among the best score.
  let tiePool = ranked.filter((r) => r.score === ranked[0]!.score);
  const tied = tiePool.map((r) => r.a.agent_id);
  let by: "least_loaded" | "success_rate" | "round_robin" | null = null;
  if (tiePool.length > 1) {
    const minRatio = Math.min(...tiePool.map((r) => r.ratio));
    const lighter = tiePool.filter((r) => r.ratio === minRatio);
    if (lighter.length < tiePool.length) by = "least_loaded";
    tiePool = lighter;
  }
  if (tiePool.length > 1) {
    const best = Math.max(...tiePool.map((r) => r.smoothed));
    const better = tiePool.filter((r) => r.smoothed === best);
    if (better.length < tiePool.length) by = "success_rate";
    tiePool = better;
  }
  let chosen = tiePool[0]!;
  if (tiePool.length > 1) {
    by = "round_robin";
    const key = [...req.requires].sort().join("&");
    const last = opts.rr?.get(key);
    chosen = tiePool.find((r) => last !== undefined && r.a.agent_id > last) ?? tiePool[0]!;
  }
  if (opts.rr) opts.rr.set([...req.requires].sort().join("&"), chosen.a.agent_id);

  // Selected first, then the rest in rank order.
  const order = [chosen, ...ranked.filter((r) => r !== chosen)];
  const parts = [`matched ${asked}`];
  if (prefs.length) parts.push(`preference score ${chosen.score.toFixed(2)}${chosen.matched.length ? ` (${chosen.matched.join(", ")})` : ""}`);
  if (by === "least_loaded") parts.push(`least loaded (${chosen.a.load}/${chosen.max})`);
  if (by === "success_rate") parts.push(`best recent success rate (${pct(chosen.a.recent.ended ? chosen.a.recent.succeeded / chosen.a.recent.ended : 0.5)})`);
  if (by === "round_robin") parts.push(`round robin among ${tiePool.length} equal agents`);
  if (ranked.length === 1) parts.push("the only agent that passed every filter");

  return {
    ok: true,
    payload: {
      selected: chosen.a.agent_id,
      candidates: order.map((r) => r.a.agent_id),
      reason: parts.join(", "),
      scores: Object.fromEntries(order.map((r) => [r.a.agent_id, r.score])),
      ...echo,
      mode: "capability",
      ranked: order.map((r) => ({
        agent_id: r.a.agent_id,
        score: r.score,
        matched: r.matched,
        load: r.a.load,
        max_concurrency: r.max,
        success_rate: r.a.recent.ended ? round(r.a.recent.succeeded / r.a.recent.ended) : null,
      })),
      tie_break: by ? { by, among: tied } : null,
      ...rejections,
    },
  };
}
