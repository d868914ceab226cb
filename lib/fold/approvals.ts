/**
 * Approvals, folded from `approval.*` events (Clutch's extension types for policy and approvals,
 * docs/protocol.md §2). Pure: the server's `approvals` projection (server/events/append.ts) and
 * the browser (channel cards, run headers) use this one transition, so an approval reads the same
 * live, after a reload and in a replay (docs/architecture.md, "Invariants": fold = projection).
 *
 *   approval.requested                    → pending   (a second request with the same id is ignored)
 *   approval.granted                      → granted
 *   approval.rejected                     → rejected
 *   approval.expired, outcome "rejected"  → expired   (timed out, counts as rejected)
 *   approval.expired, outcome "escalated" → pending, for `escalated_to` until the new `expires_at`
 *
 * The first decision wins: later ones (a race the server refuses) only join the history. Events
 * about an approval whose request is unknown are ignored, and so are events of another run or
 * channel than the request's and imported copies (lib/protocol/imported.ts): they never decide
 * anything (docs/identity.md "Imported runs are copies that never act").
 */
import type { StoredEvent } from "../protocol/envelope";
import { isEvent, type StoredEventOf } from "../protocol/events";
import { isImportedCopy } from "../protocol/imported";
import type { PayloadOf } from "../protocol/payloads";

/** The `approval.requested` payload: what will happen, who may approve, until when. */
export type ApprovalRequest = PayloadOf<"approval.requested">;

/** What a policy decision or an approval is about (lib/protocol `PolicySubject`). */
export type Subject = ApprovalRequest["subject"];

/** Who may decide: any member of the workspace, or the people named (`user:<slug>`). */
export type Approvers = ApprovalRequest["approvers"];

/** An overseer agent's verdict shown on an approval a person must confirm. */
export type Recommendation = NonNullable<ApprovalRequest["recommendation"]>;

/** Where an approval is. `expired` means it timed out and was rejected (an escalation stays pending). */
export type ApprovalState = "pending" | "granted" | "rejected" | "expired";

/** The message types of approvals. */
export const APPROVAL_TYPES = ["approval.requested", "approval.granted", "approval.rejected", "approval.expired"] as const;

/** An event that decided an approval: granted, rejected, or an expiry that rejected it. */
export type ApprovalOutcomeEvent = StoredEventOf<"approval.granted" | "approval.rejected" | "approval.expired">;

/** One approval folded from its events. Times are ISO 8601 strings. */
export interface ApprovalView {
  approval_id: string;
  /** The `approval.requested` event. */
  request: StoredEventOf<"approval.requested">;
  /** The request's payload (`request.payload`). */
  payload: ApprovalRequest;
  state: ApprovalState;
  /** Who may decide now (an escalation replaces the original approvers). */
  approvers: Approvers;
  /** The current deadline (an escalation may set a new one). */
  expires_at: string;
  /** The event that decided it, or null while pending. */
  outcome: ApprovalOutcomeEvent | null;
  /** Every later event about it folded here, oldest first (escalations and late decisions included). */
  history: StoredEvent[];
  /** The last escalation, while it is still pending. */
  escalation: StoredEventOf<"approval.expired"> | null;
}

const TYPES: ReadonlySet<string> = new Set(APPROVAL_TYPES);

/** True for the `approval.*` message types. */
export function isApprovalEvent(type: string): boolean {
  return TYPES.has(type);
}

/** The approval an event is about; null for events that are not `approval.*`. */
export function approvalIdOf(ev: StoredEvent): string | null {
  return isEvent(ev, ...APPROVAL_TYPES) ? ev.payload.approval_id : null;
}

/**
 * The approval after `ev`. `prev` is the approval before (undefined when not seen yet). Returns
 * `prev` unchanged for events that are not about it, and undefined for a decision about an
 * approval whose request is unknown.
 */
export function foldApproval(prev: ApprovalView | undefined, ev: StoredEvent): ApprovalView | undefined {
  const id = approvalIdOf(ev);
  if (!id || (prev && prev.approval_id !== id)) return prev;
  // An approval is decided only in its own run and channel, and never by an imported copy.
  if (isImportedCopy(ev)) return prev;
  if (prev && (ev.run_id !== prev.request.run_id || ev.thread_id !== prev.request.thread_id)) return prev;
  if (isEvent(ev, "approval.requested")) {
    if (prev) return prev;
    return {
      approval_id: id,
      request: ev,
      payload: ev.payload,
      state: "pending",
      approvers: ev.payload.approvers,
      expires_at: ev.payload.expires_at,
      outcome: null,
      history: [],
      escalation: null,
    };
  }
  if (!prev) return undefined;
  const next: ApprovalView = { ...prev, history: [...prev.history, ev] };
  if (prev.state !== "pending") return next;
  if (isEvent(ev, "approval.granted")) return { ...next, state: "granted", outcome: ev, escalation: null };
  if (isEvent(ev, "approval.rejected")) return { ...next, state: "rejected", outcome: ev, escalation: null };
  if (isEvent(ev, "approval.expired")) {
    if (ev.payload.outcome !== "escalated") return { ...next, state: "expired", outcome: ev, escalation: null };
    const to = ev.payload.escalated_to;
    return {
      ...next,
      approvers: to?.length ? to : prev.approvers,
      expires_at: ev.payload.expires_at ?? prev.expires_at,
      escalation: ev,
    };
  }
  return next;
}

/** Every approval requested in `events` (ascending by seq), by approval_id, after all of them. */
export function foldApprovals(events: readonly StoredEvent[]): Map<string, ApprovalView> {
  const out = new Map<string, ApprovalView>();
  for (const ev of events) {
    const id = approvalIdOf(ev);
    if (!id) continue;
    const next = foldApproval(out.get(id), ev);
    if (next) out.set(id, next);
  }
  return out;
}
