/**
 * The sales team's playbooks for Clutch's built-in model (server/agents/models/playbooks: the
 * core loads this module as the workspace's `playbooks/index.ts`): pm-1 plans and reports,
 * analyst-1 analyses, qa-1 reviews, on the example request only (request.ts). Any other agent,
 * and any case below that no playbook fits, gets the core's generic playbook.
 */
import { reviewedWork } from "@/server/agents/models/playbooks/common";
import type { Playbooks } from "@/server/agents/models/playbooks";
import type { Transcript } from "@/server/agents/models/playbooks/transcript";
import { bareId } from "@/server/agents/models/playbooks/values";
import { analyst } from "./analyst";
import { pm } from "./pm";
import { qa } from "./qa";

type Role = "pm" | "analyst" | "qa";

/**
 * The role of an agent: from its id (`agent:pm-1` → pm, `analyst-2` → analyst, `qa-1` → qa),
 * else from the start of its system prompt (the manifest's: "ProjectManager", "AnalystAgent",
 * "QAAgent"), else none.
 */
function roleOf(agentId: string, systemPrompt = ""): Role | null {
  const base = bareId(agentId).toLowerCase().replace(/[-_]?\d+$/, "");
  if (/^(pm|project[-_]?manager|manager|planner)$/.test(base)) return "pm";
  if (/analyst/.test(base)) return "analyst";
  if (/^(qa|quality|qa[-_]?agent|reviewer|verifier)$/.test(base)) return "qa";
  const head = systemPrompt.slice(0, 300);
  if (/project ?manager/i.test(head)) return "pm";
  if (/analyst/i.test(head)) return "analyst";
  if (/\bQA\b|QAAgent|quality/i.test(head)) return "qa";
  return null;
}

/**
 * Which playbook plays the agent of `t`: qa-1 reviews, but a work task with nothing to review
 * gets the generic playbook; so does a review task for an agent that is not a reviewer.
 */
function playing(t: Transcript): Role | null {
  const role = roleOf(t.meta.agent_id, t.system);
  if (role === "qa") return t.meta.task_kind === "review" || Object.keys(reviewedWork(t).result).length > 0 ? "qa" : null;
  return t.meta.task_kind === "review" ? null : role;
}

const playbooks: Playbooks = { roles: { pm, analyst, qa }, roleOf: playing };

export default playbooks;
