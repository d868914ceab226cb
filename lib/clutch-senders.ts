/**
 * Clutch's own senders: the orchestrator, the policy kernel, workflows and the system. Their
 * events are Clutch speaking, never an agent's: they are shown as "Clutch", and a reply to one is
 * not a follow-up (docs/channels.md "Follow-ups").
 */
export const CLUTCH_SENDERS: ReadonlySet<string> = new Set(["agent:orchestrator", "agent:policy", "agent:workflow", "system"]);

/** True when `agent_id` is one of Clutch's own senders. */
export function isClutchSender(agent_id: string): boolean {
  return CLUTCH_SENDERS.has(agent_id);
}
