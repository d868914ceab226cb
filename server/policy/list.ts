/**
 * Approvals as the inbox and the API show them (`GET /api/approvals`), from the approvals
 * projection through the named queries (server/events/queries.ts).
 */
import type { ApprovalSummary } from "@/lib/api/types";
import { mayDecide, requestersOf, type Decider } from "@/lib/approvers";
import { isEvent } from "@/lib/protocol";
import type { Readable } from "../auth/access";
import type { ApprovalFilter, ApprovalRow, Queries } from "../events/queries";
import { runTitles } from "../events/runs";

/**
 * The wire shape of an approval row; `thread_name` is its thread's name, if known; `request` the
 * payload of its approval.requested (who asked for the work, the self-approval rule, and why the
 * policy holds it);
 * `run_title` its run's title (lib/run-title.ts), if known.
 */
export function toApprovalSummary(
  a: ApprovalRow,
  thread_name: string | null,
  request?: { requester?: string; requesters?: string[]; forbid_self_approval?: boolean; reason?: string } | null,
  run_title: string | null = null,
): ApprovalSummary {
  return {
    approval_id: a.id,
    state: a.state as ApprovalSummary["state"],
    run_id: a.run_id,
    thread_id: a.thread_id,
    thread_name,
    run_title,
    task_id: a.task_id,
    agent_id: a.agent_id,
    kind: a.kind as ApprovalSummary["kind"],
    summary: a.summary,
    subject: a.subject as Record<string, unknown>,
    arguments: (a.arguments as Record<string, unknown> | null) ?? null,
    preview: a.preview,
    recommendation: (a.recommendation as ApprovalSummary["recommendation"]) ?? null,
    approvers: a.approvers as ApprovalSummary["approvers"],
    requester: request?.requester ?? null,
    requesters: requestersOf(request),
    forbid_self_approval: request?.forbid_self_approval ?? false,
    rule: a.rule,
    reason: request?.reason ?? null,
    requested_at: a.requested_at.toISOString(),
    expires_at: a.expires_at.toISOString(),
    decided_at: a.decided_at?.toISOString() ?? null,
    decided_by: a.decided_by,
    comment: a.comment,
    request_seq: Number(a.request_seq),
  };
}

/**
 * The approvals among `approvals` that `person` may see and decide without reading their channel
 * (docs/identity.md "Approvals in direct messages"): those of a direct message whose rule names
 * its approvers (a list: `any` means the DM's own people), one of whom is `person`, who did not
 * ask for the work when the rule forbids it. Such an approver is shown the approval (its
 * summary, subject, arguments and the held message), nothing else of the DM.
 */
export async function decidableOutsideDms(queries: Queries, approvals: readonly ApprovalSummary[], person: Decider): Promise<ApprovalSummary[]> {
  const named = approvals.filter((a) => a.approvers !== "any" && mayDecide(a.approvers, person, { requesters: a.requesters, forbidSelf: a.forbid_self_approval }));
  const dms = await queries.dmThreads(named.map((a) => a.thread_id));
  return named.filter((a) => dms.has(a.thread_id));
}

/** Approvals in `state` ("pending", "decided" or "all"), optionally of one channel: oldest first (decided: newest first), at most `limit`. */
export async function listApprovals(queries: Queries, state: ApprovalFilter, thread_id?: string, limit = 500): Promise<ApprovalSummary[]> {
  const rows = await queries.approvals(state, thread_id, limit);
  const threads = await queries.threadNames(rows.map((r) => r.thread_id));
  const requests = await queries.eventsAtSeqs(rows.map((r) => Number(r.request_seq)));
  const titles = await runTitles(queries, await queries.runs(rows.map((r) => r.run_id)));
  return rows.map((r) => {
    const request = requests.get(Number(r.request_seq));
    const payload = request && isEvent(request, "approval.requested") ? request.payload : null;
    return toApprovalSummary(r, threads.get(r.thread_id) ?? null, payload, titles.get(r.run_id) ?? null);
  });
}

/**
 * The approvals in `state`, optionally of one channel (as `listApprovals`), that a principal who
 * may read `readable` sees: those of the channels they may read, and, for a person (`person`;
 * null for an agent), those of direct messages whose rule names them (`decidableOutsideDms`),
 * marked `outside_dm` and without their thread's name (docs/identity.md "Approvals in direct
 * messages"). Both `GET /api/approvals` and the For you inbox list approvals through it.
 */
export async function visibleApprovals(queries: Queries, readable: Readable, person: Decider | null, state: ApprovalFilter, thread_id?: string): Promise<ApprovalSummary[]> {
  const approvals = await listApprovals(queries, state, thread_id);
  if (readable.all) return approvals;
  const unread = approvals.filter((a) => !readable.ids.has(a.thread_id));
  const outside = person ? new Set((await decidableOutsideDms(queries, unread, person)).map((a) => a.approval_id)) : new Set<string>();
  return approvals
    .filter((a) => readable.ids.has(a.thread_id) || outside.has(a.approval_id))
    .map((a) => (outside.has(a.approval_id) ? { ...a, thread_name: null, outside_dm: true as const } : a));
}
