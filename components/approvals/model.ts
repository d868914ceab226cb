/**
 * Approvals as the browser sees them (issue 5): the state of each approval folded from a
 * channel's events (`approval.requested` → `approval.granted` / `approval.rejected` /
 * `approval.expired`), the summary the approvals API lists, and the small pure helpers the
 * channel card, the inbox and the policy lines share (who an id names, what a subject is, who
 * may approve).
 *
 * Pure: the same events always give the same approvals, live, after a reload and in a replay.
 */
import type { Approvers, Subject } from "@/lib/fold/approvals";
import { personId } from "@/lib/people";

/** `GET /api/approvals` row (the server's projection of the log); lib/api/types.ts. */
export type { ApprovalSummary } from "@/lib/api/types";
import type { ApprovalSummary } from "@/lib/api/types";

/** An approval summary's subject, typed. */
export function subjectOf(a: Pick<ApprovalSummary, "subject" | "kind" | "agent_id">): Subject {
  const s = (a.subject ?? {}) as Partial<Subject>;
  return { ...s, kind: s.kind ?? a.kind, agent: typeof s.agent === "string" ? s.agent : a.agent_id } as Subject;
}

/** `agent:pm-1` → `pm-1`, `user:dana` → `dana`. */
export function bare(id: string | undefined | null): string {
  if (!id) return "";
  const i = id.indexOf(":");
  return i > 0 && i < id.length - 1 ? id.slice(i + 1) : id;
}

/** A person id as a readable name: `user:dana-whitfield` → "dana-whitfield"; `user` → "people". */
export function personLabel(id: string): string {
  if (id === "user" || id === "user:*") return "people";
  return bare(id);
}

/** "DataServer.process_data", "reply", or "" for a dispatch. */
export function toolLabel(s: Subject | undefined): string {
  if (!s?.tool) return "";
  return s.server_id ? `${s.server_id}.${s.tool}` : s.tool;
}

/**
 * What a subject is, as one short phrase: "analyst-1 → DataServer.process_data",
 * "pm-1 → reply to people", "task → analyst-1".
 */
export function subjectLabel(s: Subject | undefined): string {
  if (!s) return "";
  const agent = bare(s.agent);
  const to = s.recipient ? (s.recipient === "user" || s.recipient.startsWith("user:") ? "people" : bare(s.recipient)) : "";
  if (s.kind === "dispatch") return `task → ${agent}${to && to !== agent ? ` (for ${to})` : ""}`;
  const tool = toolLabel(s);
  return `${agent} → ${tool || "tool"}${to ? ` to ${to}` : ""}`;
}

/** "anyone" or "dana-whitfield, lee". */
export function approversLabel(a: Approvers): string {
  if (a === "any") return "anyone in the workspace";
  return a.map(personLabel).join(", ");
}

/** Whether the person with this display name may decide. */
export function mayApprove(a: Approvers, displayName: string): boolean {
  if (a === "any") return true;
  const me = personId(displayName);
  return a.some((x) => x === me || x === "user" || x === "user:*");
}

/** Short "kind" label for filters: "Tool call", "Dispatch", or the server's own kind. */
export function kindLabel(kind: string): string {
  if (kind === "tool_call") return "Tool call";
  if (kind === "dispatch") return "Dispatch";
  if (kind === "review") return "Review";
  return kind.replace(/[_-]+/g, " ").replace(/^\w/, (c) => c.toUpperCase());
}

/**
 * Checks an edited arguments document: it must parse as JSON and be an object (not an array,
 * null or a scalar). Answers the object, or an error a person can act on.
 */
export function parseArguments(text: string): { ok: true; value: Record<string, unknown> } | { ok: false; error: string } {
  if (!text.trim()) return { ok: false, error: "Arguments can’t be empty: write a JSON object, e.g. {}" };
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (err) {
    const msg = err instanceof Error ? err.message : String(err);
    return { ok: false, error: `Not valid JSON: ${msg.replace(/^JSON\.parse: /, "")}` };
  }
  if (value === null || typeof value !== "object" || Array.isArray(value)) {
    return { ok: false, error: `Arguments must be a JSON object ({ … }), not ${value === null ? "null" : Array.isArray(value) ? "an array" : `a ${typeof value}`}` };
  }
  return { ok: true, value: value as Record<string, unknown> };
}

/** Time left until `iso` as "in 59 min", "in 12 s", "expired"; and whether it is urgent (< 5 min). */
export function timeLeft(iso: string, now: number): { text: string; urgent: boolean; over: boolean } {
  const ms = Date.parse(iso) - now;
  if (!Number.isFinite(ms)) return { text: "", urgent: false, over: false };
  if (ms <= 0) return { text: "expired", urgent: true, over: true };
  const s = Math.ceil(ms / 1000);
  let text: string;
  if (s < 60) text = `${s} s`;
  else if (s < 3600) text = `${Math.floor(s / 60)} min ${String(s % 60).padStart(2, "0")} s`;
  else if (s < 86_400) text = `${Math.floor(s / 3600)} h ${Math.floor((s % 3600) / 60)} min`;
  else text = `${Math.floor(s / 86_400)} d ${Math.floor((s % 86_400) / 3600)} h`;
  return { text, urgent: ms < 5 * 60_000, over: false };
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

/**
 * Approvals that pass the filters. The text matches the summary, agent, channel name, subject
 * ("pm-1 → reply to people"), kind, comment and decider, case-insensitively; a leading "#" is
 * ignored.
 */
export function filterApprovals(list: readonly ApprovalSummary[], f: ApprovalFilters): ApprovalSummary[] {
  const q = f.text.trim().toLowerCase().replace(/^#/, "");
  return list.filter((a) => {
    if (f.channel && a.thread_id !== f.channel) return false;
    if (f.agent && a.agent_id !== f.agent) return false;
    if (f.kind && a.kind !== f.kind) return false;
    if (!q) return true;
    const hay = [a.summary, a.agent_id, a.thread_name ?? "", subjectLabel(subjectOf(a)), a.kind, a.comment ?? "", a.decided_by ?? ""]
      .join("\n")
      .toLowerCase();
    return hay.includes(q);
  });
}

/**
 * Arguments to show: a text argument that is the preview itself (a reply's `text`, a report) is
 * named rather than repeated, since the preview shows it rendered.
 */
export function argumentsForDisplay(args: Record<string, unknown>, preview?: string | null): Record<string, unknown> {
  const p = preview?.trim();
  if (!p) return args;
  let changed = false;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(args)) {
    if (typeof v === "string" && v.trim() === p && v.length > 80) {
      out[k] = `‹shown as Preview below · ${v.length.toLocaleString()} characters›`;
      changed = true;
    } else out[k] = v;
  }
  return changed ? out : args;
}
