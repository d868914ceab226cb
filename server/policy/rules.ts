/**
 * Matching a subject against the policy's rules (pure; seed 004 "Safety Kernel").
 * The first rule whose `match` holds decides; with none, the policy's default does.
 */
import type { z } from "zod";
import type { PolicySubject } from "@/lib/protocol";
import type { Match, Policy, Rule } from "./schema";

/**
 * What is about to happen, as policy.decision and approval.requested carry it (lib/protocol
 * `PolicySubject`, docs/protocol.md): a task dispatched to an agent, or a tool call by an agent.
 * `agent` runs the task or makes the call (`agent:pm-1`); `server_id` and `tool` name an MCP
 * tool, or `tool` alone a built-in one (`reply`, `delegate`, …); `recipient` is who a message or
 * delegation goes to (`user` for people, or an agent id).
 */
export type Subject = z.infer<typeof PolicySubject>;

export interface Matched {
  rule: Rule | null;
  decision: Rule["decision"] | Policy["default"];
  reason: string;
}

const bare = (id: string) => id.replace(/^agent:/, "");
const sameAgent = (a: string, b: string) => bare(a) === bare(b);
const any = (want: string[] | undefined, have: string[] | undefined) => !want || (have ?? []).some((h) => want.includes(h));
const one = (want: string[] | undefined, have: string | undefined, eq = (a: string, b: string) => a === b) =>
  !want || (have !== undefined && want.some((w) => eq(w, have)));

/** True when every field given in `m` holds for `s`. */
export function matches(m: Match, s: Subject): boolean {
  if (m.kind && m.kind !== s.kind) return false;
  if (!one(m.agent, s.agent, sameAgent)) return false;
  if (!any(m.capability, s.capabilities)) return false;
  if (m.tool !== undefined) {
    if (s.kind !== "tool_call") return false;
    if (typeof m.tool === "string") {
      if (s.server_id || s.tool !== m.tool) return false;
    } else {
      if (!one(m.tool.server_id, s.server_id) || !one(m.tool.tool, s.tool)) return false;
    }
  }
  if (!one(m.recipient, s.recipient, (w, h) => w === h || sameAgent(w, h))) return false;
  if (!one(m.payload_type, s.payload_type) || !one(m.domain, s.domain)) return false;
  if (!any(m.risk_tags, s.risk_tags) || !any(m.run_labels, s.run_labels)) return false;
  return true;
}

/** The deciding rule for `s`, or the default. */
export function decide(policy: Policy, s: Subject): Matched {
  const rule = policy.rules.find((r) => matches(r.match, s)) ?? null;
  if (!rule) return { rule: null, decision: policy.default, reason: `no rule matched; the default is ${policy.default}` };
  return { rule, decision: rule.decision, reason: rule.reason ?? `rule ${rule.id}` };
}
