/**
 * An agent's status in words (the sidebar, `/agents`): "busy with 2 tasks, 1
 * waiting for an answer", "seen 4 s ago", "92% of last 13", and the directory link of an agent.
 */
import type { AgentSummary } from "@/lib/api/types";

/** The status of an agent in words, for accessible names and tooltips. */
export function statusText(a: Pick<AgentSummary, "status" | "active_tasks" | "waiting_tasks">): string {
  const parts: string[] = [a.status === "busy" ? `busy with ${a.active_tasks} task${a.active_tasks === 1 ? "" : "s"}` : a.status];
  if (a.waiting_tasks > 0) parts.push(`${a.waiting_tasks} waiting for an answer`);
  return parts.join(", ");
}

/** The status as one capitalised word: "Online", "Busy", "Offline". */
export const STATUS_WORD: Record<AgentSummary["status"], string> = { online: "Online", busy: "Busy", offline: "Offline" };

/**
 * How long ago `iso` was, for presence: "just now" under a second, then "4 s ago", "3 min ago",
 * "2 h ago", "5 d ago". `now` in ms. Empty for a missing or invalid time.
 */
export function sinceText(iso: string | null | undefined, now: number): string {
  if (!iso) return "";
  const ms = now - Date.parse(iso);
  if (!Number.isFinite(ms)) return "";
  if (ms < 1000) return "just now";
  const s = Math.floor(ms / 1000);
  if (s < 60) return `${s} s ago`;
  const m = Math.floor(s / 60);
  if (m < 60) return `${m} min ago`;
  const h = Math.floor(m / 60);
  if (h < 48) return `${h} h ago`;
  return `${Math.floor(h / 24)} d ago`;
}

/** "seen 4 s ago", or "never seen" without a heartbeat. */
export function seenText(a: Pick<AgentSummary, "last_seen_at">, now: number): string {
  const since = sinceText(a.last_seen_at, now);
  return since ? `seen ${since}` : "never seen";
}

/** Recent success rate: "92% of last 13", or "no history". */
export function successText(a: Pick<AgentSummary, "success_rate" | "recent_outcomes">): string {
  if (a.success_rate === null || a.success_rate === undefined || !a.recent_outcomes) return "no history";
  return `${Math.round(a.success_rate * 100)}% of last ${a.recent_outcomes}`;
}

/** The directory page of an agent: `/agents/agent%3Aanalyst-1`. */
export function agentHref(agentId: string): string {
  return `/agents/${encodeURIComponent(agentId)}`;
}
