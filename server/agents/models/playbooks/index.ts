/**
 * The built-in model's playbooks, chosen by the agent's role: pm, analyst, qa (the seed's
 * example team), or a generic one for any other agent.
 */
import { analyst } from "./analyst";
import { generic } from "./generic";
import { pm } from "./pm";
import { qa, reviewedWork } from "./qa";
import type { Transcript } from "./transcript";
import type { Action, Playbook } from "./types";
import { bareId } from "./values";

export type Role = "pm" | "analyst" | "qa" | "generic";

export const PLAYBOOKS: Record<Role, Playbook> = { pm, analyst, qa, generic };

/**
 * The role of an agent: from its id (`agent:pm-1` → pm, `analyst-2` → analyst, `qa-1` → qa),
 * else from the start of its system prompt (the manifest's: "ProjectManager", "AnalystAgent",
 * "QAAgent"), else generic.
 */
export function roleOf(agentId: string, systemPrompt = ""): Role {
  const base = bareId(agentId).toLowerCase().replace(/[-_]?\d+$/, "");
  if (/^(pm|project[-_]?manager|manager|planner)$/.test(base)) return "pm";
  if (/analyst/.test(base)) return "analyst";
  if (/^(qa|quality|qa[-_]?agent|reviewer|verifier)$/.test(base)) return "qa";
  const head = systemPrompt.slice(0, 300);
  if (/project ?manager/i.test(head)) return "pm";
  if (/analyst/i.test(head)) return "analyst";
  if (/\bQA\b|QAAgent|quality/i.test(head)) return "qa";
  return "generic";
}

/** The next action of the agent whose prompt `t` holds. */
export function decide(t: Transcript): Action {
  const role = roleOf(t.meta.agent_id, t.system);
  if (role === "qa") {
    // qa-1 reviews; a work task with nothing to review gets the generic acknowledgement.
    const hasWork = t.meta.task_kind === "review" || Object.keys(reviewedWork(t).result).length > 0;
    return hasWork ? qa(t) : generic(t);
  }
  // A review task for an agent that is not a reviewer: the generic review.
  return t.meta.task_kind === "review" ? generic(t) : PLAYBOOKS[role](t);
}
