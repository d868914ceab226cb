/**
 * Pure helpers of the agent directory (`/agents`): the search filter, capability
 * labels, the MCP bindings a card lists, and resolving the agent ids a CAP manifest names.
 */
import type { AgentSummary } from "@/lib/api/types";
import type { Capability } from "@/lib/protocol/agent-card";

/** Which agents the list shows: everyone, or one status. */
export type StatusFilter = "all" | AgentSummary["status"];

/** "skill:data-analysis@1.2", or just the id without a version. */
export function capabilityLabel(c: Pick<Capability, "id" | "version">): string {
  return c.version ? `${c.id}@${c.version}` : c.id;
}

/**
 * Agents whose name, id, capability id or capability tag contains every word of `text`
 * (case-insensitive), and whose status matches `status`. Keeps the input order.
 */
export function filterAgents(agents: readonly AgentSummary[], text: string, status: StatusFilter = "all"): AgentSummary[] {
  const words = text.toLowerCase().split(/\s+/).filter(Boolean);
  return agents.filter((a) => {
    if (status !== "all" && a.status !== status) return false;
    if (words.length === 0) return true;
    const hay = [a.name, a.agent_id, ...a.card.capabilities.flatMap((c) => [c.id, capabilityLabel(c), ...(c.tags ?? [])])]
      .join("\n")
      .toLowerCase();
    return words.every((w) => hay.includes(w));
  });
}

/** One MCP server an agent may use, with the tools and scopes it is allowed (CAP `mcp_bindings`). */
export interface McpBinding {
  server: string;
  description?: string;
  scopes: string[];
  tools: string[];
}

const strings = (v: unknown): string[] => (Array.isArray(v) ? v.filter((x): x is string => typeof x === "string") : []);

/** The `mcp_bindings` of one capability (present on `tool:mcp` capabilities from CAP manifests). */
export function bindingsOfCapability(cap: Capability): McpBinding[] {
  const list = cap.mcp_bindings;
  if (!Array.isArray(list)) return [];
  const out: McpBinding[] = [];
  for (const b of list) {
    if (!b || typeof b !== "object") continue;
    const o = b as Record<string, unknown>;
    out.push({
      server: String(o.server ?? o.server_id ?? "?"),
      description: typeof o.description === "string" ? o.description : undefined,
      scopes: strings(o.scopes),
      tools: strings(o.allowed_tools),
    });
  }
  return out;
}

/** Every MCP binding an agent's card lists, over all its capabilities. */
export function bindingsOf(agent: Pick<AgentSummary, "card">): McpBinding[] {
  return agent.card.capabilities.flatMap(bindingsOfCapability);
}

/**
 * The registered agent a CAP manifest means by `ref` (`qa-1` or `agent:qa-1`): an exact id
 * first, then `agent:<ref>`, then the same bare id. Undefined when none is registered.
 */
export function resolveAgent(agents: readonly AgentSummary[], ref: string): AgentSummary | undefined {
  const bare = (id: string) => (id.includes(":") ? id.slice(id.indexOf(":") + 1) : id);
  return (
    agents.find((a) => a.agent_id === ref) ??
    agents.find((a) => a.agent_id === `agent:${ref}`) ??
    agents.find((a) => bare(a.agent_id) === bare(ref))
  );
}

/** How many agents have each status. */
export function countByStatus(agents: readonly AgentSummary[]): Record<AgentSummary["status"], number> {
  const out = { online: 0, busy: 0, offline: 0 };
  for (const a of agents) out[a.status] += 1;
  return out;
}
