/**
 * Router benchmark: 1,000 AgentCards with realistic capability sets, 10,000 routing decisions,
 * p50 and p99 of one decision (docs/benchmarks.md). Target: p99 < 1 ms.
 *
 *   node --import tsx bench/router.ts [--agents=1000] [--decisions=10000] [--seed=7]
 *
 * One decision is `route()` of server/router/match.ts (Clutch §4.2: every filter, required
 * capabilities with version ranges, the preference score, tie-breakers) over all the agents,
 * as the router runs it on a snapshot of the registry (indexed once by capability id). Agents have 1–4 skills from a
 * vocabulary of 60 (versions 1.0–3.4), 2–6 tags of 40, up to 4 MCP servers of 15, a cost
 * hint, max_concurrency 1–8, a random load and record, and 90 % are online. Requests require
 * 1–2 skills (30 % with a version range), prefer 0–3 tools, tags, domains or a cost, and 10 %
 * carry a tool allowlist. Seeded, so runs are comparable. Prints the figures and writes
 * bench/results/router.json.
 */
import fs from "node:fs";
import path from "node:path";
import type { AgentCard, Capability } from "@/lib/protocol";
import { poolOf, route, type AgentView, type RoundRobin, type RouteRequest } from "@/server/router/match";

const arg = (name: string, fallback: number) => Number(process.argv.find((a) => a.startsWith(`--${name}=`))?.split("=")[1] ?? fallback);
const AGENTS = arg("agents", 1000);
const DECISIONS = arg("decisions", 10_000);
let seed = arg("seed", 7);

/** mulberry32: a small seeded PRNG. */
function rand(): number {
  seed |= 0;
  seed = (seed + 0x6d2b79f5) | 0;
  let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
  t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
  return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
}
const int = (lo: number, hi: number) => lo + Math.floor(rand() * (hi - lo + 1));
const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rand() * xs.length)]!;
const some = <T>(xs: readonly T[], n: number): T[] => [...new Set(Array.from({ length: n }, () => pick(xs)))];

const SKILLS = Array.from({ length: 60 }, (_, i) => `skill:${["research", "data-analysis", "review", "planning", "writing", "coding", "support", "translation", "design", "ops"][i % 10]}${i >= 10 ? `-${Math.floor(i / 10)}` : ""}`);
const TAGS = Array.from({ length: 40 }, (_, i) => ["sales", "fintech", "market", "legal", "sql", "python", "eu", "us", "health", "retail"][i % 10] + (i >= 10 ? String(Math.floor(i / 10)) : ""));
const SERVERS = Array.from({ length: 15 }, (_, i) => `mcp:${["browser", "files", "data", "docs", "search"][i % 5]}${i >= 5 ? Math.floor(i / 5) : ""}`);
const COSTS = ["low", "medium", "high"] as const;

function makeAgent(i: number): AgentView {
  const tools = some(SERVERS, int(0, 4));
  const capabilities: Capability[] = some(SKILLS, int(1, 4)).map((id) => ({
    id,
    version: `${int(1, 3)}.${int(0, 4)}`,
    tags: some(TAGS, int(2, 6)),
    ...(tools.length ? { tools } : {}),
    trust_level: rand() < 0.8 ? "sandbox" : "prod",
    cost_hint: pick(COSTS),
  }));
  if (tools.length) capabilities.push({ id: "tool:mcp", servers: tools });
  const max = int(1, 8);
  const card: AgentCard = {
    v: "clutch/0.1",
    agent_id: `agent:bench-${i}`,
    display: { name: `bench-${i}` },
    capabilities,
    limits: { max_concurrency: max },
    security: { sandbox: rand() < 0.9, network: pick(["none", "egress-restricted", "egress"]) },
  };
  const ended = int(0, 20);
  return { agent_id: card.agent_id, card, online: rand() < 0.9, load: int(0, max), recent: { ended, succeeded: int(0, ended) }, denied: rand() < 0.02 ? "rule bench-deny" : null };
}

function makeRequest(): RouteRequest {
  const requires = some(SKILLS, int(1, 2)).map((s) => (rand() < 0.3 ? `${s}@${pick(["^1.0", ">=1.2 <3", "2.x", "~3.1"])}` : s));
  const prefers = Array.from({ length: int(0, 3) }, () => {
    const k = int(0, 3);
    return k === 0 ? `tool:${pick(SERVERS).slice(4)}` : k === 1 ? `tag:${pick(TAGS)}` : k === 2 ? `domain:${pick(TAGS)}` : `cost:${pick(COSTS)}`;
  });
  return {
    requires,
    prefers,
    domain: rand() < 0.3 ? pick(TAGS) : null,
    security: rand() < 0.1 ? { tool_allowlist: some(SERVERS, 3) } : null,
  };
}

const agents = poolOf(Array.from({ length: AGENTS }, (_, i) => makeAgent(i))); // the router's snapshot
const requests = Array.from({ length: DECISIONS }, makeRequest);
const rr: RoundRobin = new Map();
for (let i = 0; i < 500; i++) route(requests[i % requests.length]!, agents, { rr }); // warm up

const times: number[] = [];
let routed = 0;
for (const r of requests) {
  const t0 = process.hrtime.bigint();
  const out = route(r, agents, { rr });
  times.push(Number(process.hrtime.bigint() - t0) / 1e6);
  if (out.ok) routed++;
}
times.sort((a, b) => a - b);
const q = (p: number) => times[Math.min(times.length - 1, Math.floor(p * times.length))]!;
const result = {
  agents: AGENTS,
  decisions: DECISIONS,
  routed,
  failed: DECISIONS - routed,
  p50_ms: +q(0.5).toFixed(3),
  p99_ms: +q(0.99).toFixed(3),
  max_ms: +times.at(-1)!.toFixed(3),
  target_p99_ms: 1,
  node: process.version,
  at: new Date().toISOString(),
};
console.log(`router: ${AGENTS} agents, ${DECISIONS} decisions (${routed} routed, ${DECISIONS - routed} no match)`);
console.log(`one decision: p50 ${result.p50_ms} ms, p99 ${result.p99_ms} ms, max ${result.max_ms} ms (target p99 < 1 ms: ${result.p99_ms < 1 ? "met" : "NOT met"})`);
const out = path.resolve("bench/results/router.json");
fs.mkdirSync(path.dirname(out), { recursive: true });
fs.writeFileSync(out, JSON.stringify(result, null, 2) + "\n");
