/**
 * An agent's status in words (issue 3 sidebar): "busy with 2 tasks, 1 waiting for an answer".
 */
import type { AgentSummary } from "@/lib/api/types";

/** The status of an agent in words, for accessible names and tooltips. */
export function statusText(a: Pick<AgentSummary, "status" | "active_tasks" | "waiting_tasks">): string {
  const parts: string[] = [a.status === "busy" ? `busy with ${a.active_tasks} task${a.active_tasks === 1 ? "" : "s"}` : a.status];
  if (a.waiting_tasks > 0) parts.push(`${a.waiting_tasks} waiting for an answer`);
  return parts.join(", ");
}
