/**
 * The inbox's model of `GET /api/approvals` rows (lib/api/types.ts `ApprovalSummary`, the
 * server's `approvals` projection): a row's subject and channel, the words for kinds and states,
 * how long ago, and the filters. Pure: the names a person reads (an agent's card name, a
 * channel's `#sales` or a DM's other party; docs/channels.md "One name per agent") come in as
 * functions.
 */
import type { ApprovalSummary } from "@/lib/api/types";
import type { ApprovalState, Subject } from "@/lib/fold/approvals";
import { PolicySubject } from "@/lib/protocol";
import { subjectLabel } from "@/components/events/approval-model";
import type { ThreadRef } from "@/components/workspace/thread-title";

/** The inbox's two lists: pending approvals, and recently decided ones. */
export type InboxTab = "pending" | "decided";

/**
 * What a tab lists: pending approvals oldest first (as `GET /api/approvals?state=pending`
 * answers), decided ones newest decision first, at most 100.
 */
export function listFor(tab: InboxTab, list: readonly ApprovalSummary[]): readonly ApprovalSummary[] {
  if (tab === "pending") return list;
  return list.slice().sort((a, b) => Date.parse(b.decided_at ?? b.requested_at) - Date.parse(a.decided_at ?? a.requested_at)).slice(0, 100);
}

/** The approval in its channel: `/c/<thread_id>?approval=<approval_id>`. */
export function channelHref(a: Pick<ApprovalSummary, "thread_id" | "approval_id">): string {
  return `/c/${encodeURIComponent(a.thread_id)}?approval=${encodeURIComponent(a.approval_id)}`;
}

/** An approval summary's subject, typed (its row's kind and agent when the subject lacks them). */
export function subjectOf(a: Pick<ApprovalSummary, "subject" | "kind" | "agent_id">): Subject {
  const parsed = PolicySubject.safeParse({ kind: a.kind, agent: a.agent_id, ...a.subject });
  return parsed.success ? parsed.data : { kind: a.kind, agent: a.agent_id };
}

/**
 * Where an approval was asked, as a person reads it: `label` names the thread ("#sales", or the
 * other party of a DM: "Project Manager"); a DM the approver is not part of reads "A direct message".
 */
export function approvalChannel(a: Pick<ApprovalSummary, "thread_id" | "thread_name" | "outside_dm">, label: (ref: ThreadRef) => string): string {
  return a.outside_dm ? "A direct message" : label(a);
}

/** The names a person reads in an approval: an agent's (`useNameOf`) and its channel's (`approvalChannel`). */
export interface ApprovalNames {
  nameOf: (id: string) => string;
  channel: (a: ApprovalSummary) => string;
}

/** The words for an approval's state. */
export const STATE_WORD: Record<ApprovalState, string> = {
  pending: "Pending",
  granted: "Approved",
  rejected: "Rejected",
  expired: "Expired",
};

/** Short "kind" label for filters: "Tool call", "Dispatch", or the server's own kind. */
export function kindLabel(kind: string): string {
  if (kind === "tool_call") return "Tool call";
  if (kind === "dispatch") return "Dispatch";
  if (kind === "model_call") return "Budget";
  if (kind === "review") return "Review";
  return kind.replace(/[_-]+/g, " ").replace(/^\w/, (c) => c.toUpperCase());
}

/** "3 min ago", "2 h ago", "just now". */
export function ago(iso: string | null | undefined, now: number): string {
  if (!iso) return "";
  const ms = now - Date.parse(iso);
  if (!Number.isFinite(ms)) return "";
  if (ms < 45_000) return "just now";
  const m = Math.round(ms / 60_000);
  if (m < 60) return `${m} min ago`;
  const h = Math.round(m / 60);
  if (h < 48) return `${h} h ago`;
  return `${Math.round(h / 24)} d ago`;
}

/** The inbox's filters: text, and exact channel (thread id), agent id and kind; "" = any. */
export interface ApprovalFilters {
  text: string;
  channel: string;
  agent: string;
  kind: string;
}
export const NO_FILTERS: ApprovalFilters = { text: "", channel: "", agent: "", kind: "" };

/** True when any filter is set. */
export function isFiltered(f: ApprovalFilters): boolean {
  return Boolean(f.text || f.channel || f.agent || f.kind);
}

/**
 * Approvals that pass the filters. The text matches the summary, the agent (name and id), the
 * channel (as read and as stored), the subject as read ("Project Manager → reply to people"),
 * kind, comment and decider, case-insensitively; a leading "#" is ignored.
 */
export function filterApprovals(list: readonly ApprovalSummary[], f: ApprovalFilters, names: ApprovalNames): ApprovalSummary[] {
  const q = f.text.trim().toLowerCase().replace(/^#/, "");
  return list.filter((a) => {
    if (f.channel && a.thread_id !== f.channel) return false;
    if (f.agent && a.agent_id !== f.agent) return false;
    if (f.kind && a.kind !== f.kind) return false;
    if (!q) return true;
    const read = [names.nameOf(a.agent_id), names.channel(a), subjectLabel(subjectOf(a), names.nameOf)];
    const hay = [a.summary, a.agent_id, a.thread_name ?? "", a.run_title ?? "", ...read, a.kind, a.comment ?? "", a.decided_by ?? ""]
      .join("\n")
      .toLowerCase();
    return hay.includes(q);
  });
}

/** One option of a filter's select. */
export interface FilterOption {
  value: string;
  label: string;
}

/** The distinct values of `key` in `list` as options, sorted by label. */
export function filterOptions<T>(list: readonly T[], key: (t: T) => string, label: (t: T) => string): FilterOption[] {
  const seen = new Map<string, string>();
  for (const t of list) if (!seen.has(key(t))) seen.set(key(t), label(t));
  return [...seen].map(([value, l]) => ({ value, label: l })).sort((a, b) => a.label.localeCompare(b.label));
}
