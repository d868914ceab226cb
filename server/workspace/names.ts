/**
 * The name a person reads for an agent in a sentence Clutch writes into an event (an approval's
 * summary, a routing reason, a task's error; docs/channels.md "One name per agent"): its
 * AgentCard's display name when the workspace knows the agent (`agent:pm-1` → "Project
 * Manager"), else its bare id (`agent:ken` → "ken"). The ids stay in the events' structured
 * fields (`subject.agent`, `selected`, `to`).
 */
import type { Workspace } from "./workspace";

export function agentDisplayName(workspace: Pick<Workspace, "agents">, agent_id: string): string {
  return workspace.agents.get(agent_id)?.card.display.name.trim() || agent_id.replace(/^(agent|user):/, "");
}
