/**
 * Table tests for every rule of Clutch Protocol §4.2 (server/router/match.ts): the filters,
 * required capabilities with version ranges, the preference score, each tie-breaker, and the
 * routing.decision payload's shape against §4.3.
 */
import { describe, expect, it } from "vitest";
import { RoutingDecisionPayload, RoutingFailurePayload, type AgentCard, type Capability } from "@/lib/protocol";
import { route, type AgentView, type RouteRequest, type RoundRobin } from "./match";

function agent(name: string, caps: Capability[], o: Partial<Omit<AgentView, "card">> & { max?: number; security?: AgentCard["security"] } = {}): AgentView {
  return {
    agent_id: `agent:${name}`,
    card: { v: "clutch/0.1", agent_id: `agent:${name}`, display: { name }, capabilities: caps, limits: { max_concurrency: o.max ?? 2 }, ...(o.security ? { security: o.security } : {}) },
    online: o.online ?? true,
    load: o.load ?? 0,
    recent: o.recent ?? { ended: 0, succeeded: 0 },
    denied: o.denied ?? null,
  };
}
const req = (r: Partial<RouteRequest>): RouteRequest => ({ requires: [], prefers: [], ...r });
const research = (extra: Partial<Capability> = {}): Capability => ({ id: "skill:research", version: "1.0", ...extra });

function selected(r: RouteRequest, agents: AgentView[], rr?: RoundRobin): string {
  const out = route(r, agents, { rr });
  if (!out.ok) throw new Error(`expected a decision, got: ${out.payload.reason}`);
  return out.payload.selected;
}
function rejection(r: RouteRequest, agents: AgentView[], agent_id: string) {
  const out = route(r, agents);
  return out.payload.rejected?.find((x) => x.agent_id === agent_id);
}

describe("§4.2 step 2: required capabilities", () => {
  const ken = agent("ken", [research(), { id: "skill:writing", version: "2.1" }]);
  const rita = agent("rita", [research()]);
  it.each([
    { requires: ["skill:research"], expect: ["agent:ken", "agent:rita"] },
    { requires: ["skill:research", "skill:writing"], expect: ["agent:ken"] },
    { requires: ["skill:writing", "skill:design"], expect: [] },
  ])("requires $requires → candidates $expect (AND semantics)", ({ requires, expect: want }) => {
    const out = route(req({ requires }), [ken, rita]);
    expect(out.ok ? out.payload.candidates.sort() : []).toEqual(want);
  });

  it("names the missing capability for each agent it rejects", () => {
    expect(rejection(req({ requires: ["skill:research", "skill:writing"] }), [ken, rita], "agent:rita")).toEqual({
      agent_id: "agent:rita",
      filter: "requires",
      reason: "no skill:writing",
    });
  });

  it.each([
    { have: "1.2", range: "^1.2", ok: true },
    { have: "1.9.3", range: "^1.2", ok: true },
    { have: "2.0", range: "^1.2", ok: false },
    { have: "1.1", range: ">=1.2 <2", ok: false },
    { have: "1.4.0", range: "~1.4", ok: true },
    { have: "1.0", range: "1.x", ok: true },
    { have: "^1.0", range: ">=1.5", ok: true }, // a card may state a range: overlap is enough
    { have: "~1.0", range: ">=1.5", ok: false },
  ])("card version $have against @$range → $ok", ({ have, range, ok }) => {
    const out = route(req({ requires: [`skill:research@${range}`] }), [agent("ken", [research({ version: have })])]);
    expect(out.ok).toBe(ok);
    if (!ok) expect(out.payload.rejected![0]).toMatchObject({ filter: "requires", reason: expect.stringMatching(/outside/) });
  });

  it("a range against a card without a version rejects with the reason", () => {
    const out = route(req({ requires: ["skill:research@^1"] }), [agent("ken", [{ id: "skill:research" }])]);
    expect(out.payload.rejected![0]!.reason).toBe("skill:research has no version (^1 asked)");
  });

  it("an unreadable range fails the routing with a message a person can act on", () => {
    const out = route(req({ requires: ["skill:research@banana"] }), [ken]);
    expect(out).toMatchObject({ ok: false, retry: false, payload: { outcome: "failed" } });
    expect(out.payload.reason).toMatch(/"banana" is not a version range \(write e\.g\. \^1\.2/);
  });
});

describe("§4.2 step 1: hard filters", () => {
  const cases: { name: string; a: AgentView; r: Partial<RouteRequest>; filter: string; reason: RegExp; retry: boolean }[] = [
    {
      name: "CAP allowed_agents",
      a: agent("ken", [research()]),
      r: { allowed_agents: ["agent:rita"], delegator: "agent:pm-1" },
      filter: "allowed_agents",
      reason: /agent:pm-1 may delegate only to \[agent:rita\]/,
      retry: false,
    },
    { name: "security policy (the policy kernel)", a: agent("ken", [research()], { denied: "rule no-ken" }), r: {}, filter: "policy", reason: /no-ken/, retry: false },
    {
      name: "sandbox required",
      a: agent("ken", [research()], { security: { sandbox: false } }),
      r: { security: { sandbox: true } },
      filter: "security",
      reason: /needs a sandbox/,
      retry: false,
    },
    {
      name: "tool allowlist",
      a: agent("ken", [research({ tools: ["mcp:browser", "mcp:files"] })]),
      r: { security: { tool_allowlist: ["mcp:files"] } },
      filter: "tool_allowlist",
      reason: /uses browser, not on the task's allowlist \[mcp:files\]/,
      retry: false,
    },
    {
      name: "network access",
      a: agent("ken", [research()], { security: { network: "egress-restricted" } }),
      r: { security: { network: "egress" } },
      filter: "network",
      reason: /needs egress network access; the agent has egress-restricted/,
      retry: false,
    },
    { name: "offline", a: agent("ken", [research()], { online: false }), r: {}, filter: "offline", reason: /no recent heartbeat/, retry: true },
    { name: "concurrency limit", a: agent("ken", [research()], { load: 2, max: 2 }), r: {}, filter: "concurrency", reason: /at capacity: 2 of 2/, retry: true },
  ];
  it.each(cases)("$name removes the agent and says why", ({ a, r, filter, reason, retry }) => {
    const out = route(req({ requires: ["skill:research"], ...r }), [a]);
    expect(out.ok).toBe(false);
    if (out.ok) return;
    expect(out.retry).toBe(retry);
    expect(out.payload.rejected).toEqual([{ agent_id: a.agent_id, filter, reason: expect.stringMatching(reason) }]);
    expect(RoutingFailurePayload.safeParse(out.payload).success).toBe(true);
  });

  it("passes agents that meet each filter", () => {
    const ok = agent("ken", [research({ tools: ["mcp:files"] })], { load: 1, max: 2, security: { sandbox: true, network: "egress" } });
    expect(selected(req({ requires: ["skill:research"], security: { sandbox: true, tool_allowlist: ["mcp:files"], network: "egress" }, allowed_agents: ["agent:ken"] }), [ok])).toBe("agent:ken");
  });

  it("the tool allowlist looks at the tools of the capabilities the task requires", () => {
    const ken = agent("ken", [research({ tools: ["mcp:files"] }), { id: "skill:browse", tools: ["mcp:browser"] }]);
    expect(selected(req({ requires: ["skill:research"], security: { tool_allowlist: ["mcp:files"] } }), [ken])).toBe("agent:ken");
  });

  it("reports the most lasting reason: an offline agent without the capability is rejected for the capability", () => {
    expect(rejection(req({ requires: ["skill:design"] }), [agent("ken", [research()], { online: false })], "agent:ken")?.filter).toBe("requires");
  });

  it("with no agent at all the failure says so", () => {
    expect(route(req({ requires: ["skill:research"] }), []).payload.reason).toBe("no agent is registered");
  });
});

describe("§4.2 step 3: preference score", () => {
  const ken = agent("ken", [research({ tags: ["market", "fintech"], tools: ["mcp:browser"], cost_hint: "medium" })]);
  const rita = agent("rita", [research({ tags: ["market"], tools: ["mcp:files"], cost_hint: "low" }), { id: "skill:writing", version: "1.0" }]);
  it.each([
    { prefers: ["tool:browser"], ken: 1, rita: 0, pick: "agent:ken" },
    { prefers: ["mcp:files"], ken: 0, rita: 1, pick: "agent:rita" },
    { prefers: ["domain:fintech", "tag:market"], ken: 1, rita: 0.5, pick: "agent:ken" },
    { prefers: ["skill:writing"], ken: 0, rita: 1, pick: "agent:rita" },
    { prefers: ["cost:low"], ken: 0, rita: 1, pick: "agent:rita" },
    { prefers: ["tool:browser", "skill:writing", "cost:low"], ken: 0.4, rita: 0.6, pick: "agent:rita" },
  ])("prefers $prefers → ken $ken, rita $rita", ({ prefers, ken: k, rita: r, pick }) => {
    const out = route(req({ requires: ["skill:research"], prefers }), [ken, rita]);
    expect(out.ok && out.payload.scores).toEqual({ "agent:ken": k, "agent:rita": r });
    expect(out.ok && out.payload.selected).toBe(pick);
  });

  it("the envelope's domain counts as a domain preference", () => {
    const out = route(req({ requires: ["skill:research"], domain: "fintech" }), [rita, ken]);
    expect(out.ok && out.payload.selected).toBe("agent:ken");
    expect(out.ok && out.payload.ranked![0]!.matched).toEqual(["domain:fintech"]);
  });

  it("every candidate scores 1 when nothing is preferred", () => {
    const out = route(req({ requires: ["skill:research"] }), [ken, rita]);
    expect(out.ok && Object.values(out.payload.scores)).toEqual([1, 1]);
  });
});

describe("§3 payload types: what a card produces and consumes", () => {
  const typed = (name: string, card: Pick<AgentCard, "produces" | "consumes">): AgentView => {
    const a = agent(name, [research()]);
    return { ...a, card: { ...a.card, ...card } };
  };
  const summarizer = typed("summarizer", { produces: ["research.summary.v1"] });
  const coder = typed("coder", { produces: ["code.output.v1"], consumes: ["code.review.v1"] });
  const plain = agent("plain", [research()]);

  it("a request that expects a payload type passes over agents that declare only other types, and prefers one that produces it", () => {
    const r = req({ requires: ["skill:research"], expects: "research.summary.v1" });
    expect(selected(r, [plain, coder, summarizer])).toBe("agent:summarizer");
    expect(rejection(r, [plain, coder, summarizer], "agent:coder")).toEqual({ agent_id: "agent:coder", filter: "produces", reason: "produces [code.output.v1], not research.summary.v1" });
    const out = route(r, [plain, summarizer]);
    expect(out.ok && out.payload.ranked?.map((c) => [c.agent_id, c.score, c.matched])).toEqual([
      ["agent:summarizer", 1, ["produces:research.summary.v1"]],
      ["agent:plain", 0, []],
    ]);
    // A card that declares nothing may still take it.
    expect(selected(r, [plain, coder])).toBe("agent:plain");
  });

  it("a request whose input has a payload type passes over agents that consume only other types", () => {
    const r = req({ requires: ["skill:research"], input_type: "research.sources.v1" });
    expect(rejection(r, [coder, plain], "agent:coder")).toMatchObject({ filter: "consumes", reason: "consumes [code.review.v1], not research.sources.v1" });
    expect(selected(req({ requires: ["skill:research"], input_type: "code.review.v1" }), [coder])).toBe("agent:coder");
  });
});

describe("§4.2 step 4: tie-breakers", () => {
  it("least loaded first (share of max_concurrency)", () => {
    const out = route(req({ requires: ["skill:research"] }), [agent("ken", [research()], { load: 1, max: 2 }), agent("rita", [research()], { load: 1, max: 4 })]);
    expect(out.ok && out.payload).toMatchObject({ selected: "agent:rita", tie_break: { by: "least_loaded", among: ["agent:rita", "agent:ken"] } });
    expect(out.ok && out.payload.reason).toMatch(/least loaded \(1\/4\)/);
  });

  it("then the recent success rate", () => {
    const out = route(req({ requires: ["skill:research"] }), [
      agent("ken", [research()], { recent: { ended: 10, succeeded: 6 } }),
      agent("rita", [research()], { recent: { ended: 10, succeeded: 9 } }),
    ]);
    expect(out.ok && out.payload).toMatchObject({ selected: "agent:rita", tie_break: { by: "success_rate" } });
    expect(out.ok && out.payload.ranked!.map((r) => r.success_rate)).toEqual([0.9, 0.6]);
  });

  it("a proven agent beats a new one, a new one beats a failing one", () => {
    const fresh = agent("fresh", [research()]);
    expect(selected(req({ requires: ["skill:research"] }), [fresh, agent("good", [research()], { recent: { ended: 4, succeeded: 4 } })])).toBe("agent:good");
    expect(selected(req({ requires: ["skill:research"] }), [fresh, agent("bad", [research()], { recent: { ended: 4, succeeded: 0 } })])).toBe("agent:fresh");
  });

  it("then round robin, which takes turns per set of requirements", () => {
    const rr: RoundRobin = new Map();
    const three = [agent("c", [research()]), agent("a", [research()]), agent("b", [research()])];
    const picks = Array.from({ length: 6 }, () => selected(req({ requires: ["skill:research"] }), three, rr));
    expect(picks).toEqual(["agent:a", "agent:b", "agent:c", "agent:a", "agent:b", "agent:c"]);
    const out = route(req({ requires: ["skill:research"] }), three, { rr });
    expect(out.ok && out.payload.tie_break).toEqual({ by: "round_robin", among: ["agent:a", "agent:b", "agent:c"] });
  });

  it("a higher score beats a lighter load (tie-breakers only settle ties)", () => {
    const out = route(req({ requires: ["skill:research"], prefers: ["tag:fintech"] }), [
      agent("ken", [research({ tags: ["fintech"] })], { load: 1, max: 2 }),
      agent("rita", [research()], { load: 0, max: 2 }),
    ]);
    expect(out.ok && out.payload).toMatchObject({ selected: "agent:ken", tie_break: null });
  });
});

describe("§4.3 routing.decision payload", () => {
  it("has selected, candidates, reason and scores, plus how it got there", () => {
    const out = route(req({ requires: ["skill:research"], prefers: ["tool:browser"] }), [
      agent("ken", [research({ tools: ["mcp:browser"] })], { load: 1, max: 2, recent: { ended: 4, succeeded: 3 } }),
      agent("rita", [research()]),
      agent("sam", [{ id: "skill:design" }]),
    ]);
    expect(out.ok).toBe(true);
    if (!out.ok) return;
    const p = out.payload;
    expect(RoutingDecisionPayload.parse(p)).toEqual(p);
    expect(p).toMatchObject({
      selected: "agent:ken",
      candidates: ["agent:ken", "agent:rita"],
      scores: { "agent:ken": 1, "agent:rita": 0 },
      requires: ["skill:research"],
      prefers: ["tool:browser"],
      mode: "capability",
      rejected: [{ agent_id: "agent:sam", filter: "requires", reason: "no skill:research" }],
    });
    expect(p.reason).toBe("matched requires[skill:research], preference score 1.00 (tool:browser)");
    expect(p.ranked![0]).toEqual({ agent_id: "agent:ken", score: 1, matched: ["tool:browser"], load: 1, max_concurrency: 2, success_rate: 0.75 });
    for (const s of Object.values(p.scores)) {
      expect(s).toBeGreaterThanOrEqual(0);
      expect(s).toBeLessThanOrEqual(1);
    }
  });
});
