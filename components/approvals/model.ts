/**
 * Approvals as the browser sees them (issue 5): the state of each approval folded from a
 * channel's events (`approval.requested` → `approval.granted` / `approval.rejected` /
 * `approval.expired`), the summary the approvals API lists, and the small pure helpers the
 * channel card, the inbox and the policy lines share (who an id names, what a subject is, who
 * may approve).
 *
 * Pure: the same events always give the same approvals, live, after a reload and in a replay.
 */
import type { StoredEvent } from "@/lib/protocol";
import { personId } from "@/lib/people";

/** What a policy decision or an approval is about (lib/protocol `PolicySubject`). */
export interface Subject {
  kind: "dispatch" | "tool_call";
  agent: string;
  server_id?: string;
  tool?: string;
  recipient?: string;
  payload_type?: string;
  domain?: string;
  risk_tags?: string[];
  capabilities?: string[];
  run_labels?: string[];
}

/** Who may decide: any member of the workspace, or the people named (`user:<slug>`). */
export type Approvers = "any" | string[];

/** An overseer agent's verdict shown on a card a person must confirm. */
export interface Recommendation {
  decision: string;
  comments?: unknown;
}

/** `approval.requested` payload (lib/protocol `ApprovalRequestedPayload`). */
export interface ApprovalRequest {
  approval_id: string;
  subject: Subject;
  approvers: Approvers;
  summary: string;
  arguments?: Record<string, unknown>;
  preview?: string;
  recommendation?: Recommendation;
  expires_at: string;
  rule?: string | null;
  reason?: string;
}

/** Where an approval is. `expired` means it timed out and was rejected (an escalation stays pending). */
export type ApprovalState = "pending" | "granted" | "rejected" | "expired";

/** One approval folded from a channel's events. */
export interface ApprovalView {
  approval_id: string;
  /** The `approval.requested` event. */
  request: StoredEvent;
  payload: ApprovalRequest;
  state: ApprovalState;
  /** Who may decide now (an escalation replaces the original approvers). */
  approvers: Approvers;
  /** The current deadline (an escalation may set a new one). */
  expires_at: string;
  /** The event that decided it (granted, rejected, or an expiry that rejected). */
  outcome: StoredEvent | null;
  /** Every later event about it, oldest first (escalations included). */
  history: StoredEvent[];
  /** The last escalation, while it is still pending. */
  escalation: StoredEvent | null;
}

/** `GET /api/approvals` row (the server's projection of the log); lib/api/types.ts. */
export type { ApprovalSummary } from "@/lib/api/types";
import type { ApprovalSummary } from "@/lib/api/types";

/** An approval summary's subject, typed. */
export function subjectOf(a: Pick<ApprovalSummary, "subject" | "kind" | "agent_id">): Subject {
  const s = (a.subject ?? {}) as Partial<Subject>;
  return { ...s, kind: s.kind ?? a.kind, agent: typeof s.agent === "string" ? s.agent : a.agent_id } as Subject;
}

/** The event types of approvals. */
export const APPROVAL_TYPES: ReadonlySet<string> = new Set([
  "approval.requested",
  "approval.granted",
  "approval.rejected",
  "approval.expired",
]);

/** True for `approval.*` events. */
export function isApprovalEvent(type: string): boolean {
  return APPROVAL_TYPES.has(type);
}

function approvalIdOf(ev: StoredEvent): string | null {
  const id = (ev.payload as { approval_id?: unknown } | undefined)?.approval_id;
  return typeof id === "string" && id ? id : null;
}

/**
 * Every approval requested in `events` (ascending by seq), by approval_id, with its state after
 * all of them. Outcome events whose request is not loaded are ignored here (the outcome line
 * still renders on its own).
 */
export function foldApprovals(events: readonly StoredEvent[]): Map<string, ApprovalView> {
  const out = new Map<string, ApprovalView>();
  for (const ev of events) {
    if (typeof ev?.type !== "string" || !isApprovalEvent(ev.type)) continue;
    const id = approvalIdOf(ev);
    if (!id) continue;
    if (ev.type === "approval.requested") {
      if (out.has(id)) continue;
      const p = ev.payload as unknown as ApprovalRequest;
      out.set(id, {
        approval_id: id,
        request: ev,
        payload: p,
        state: "pending",
        approvers: p.approvers ?? "any",
        expires_at: p.expires_at,
        outcome: null,
        history: [],
        escalation: null,
      });
      continue;
    }
    const prev = out.get(id);
    if (!prev) continue;
    const next: ApprovalView = { ...prev, history: [...prev.history, ev] };
    // The first decision wins; later ones (a race the server refuses) only join the history.
    if (prev.state === "pending") {
      if (ev.type === "approval.granted") {
        next.state = "granted";
        next.outcome = ev;
        next.escalation = null;
      } else if (ev.type === "approval.rejected") {
        next.state = "rejected";
        next.outcome = ev;
        next.escalation = null;
      } else if (ev.type === "approval.expired") {
        const p = ev.payload as { outcome?: unknown; escalated_to?: unknown; expires_at?: unknown };
        if (p.outcome === "escalated") {
          if (Array.isArray(p.escalated_to) && p.escalated_to.length) next.approvers = p.escalated_to.filter((x): x is string => typeof x === "string");
          if (typeof p.expires_at === "string") next.expires_at = p.expires_at;
          next.escalation = ev;
        } else {
          next.state = "expired";
          next.outcome = ev;
          next.escalation = null;
        }
      }
    }
    out.set(id, next);
  }
  return out;
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
