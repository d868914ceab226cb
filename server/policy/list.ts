/** Approvals as the inbox and the API show them, from the approvals projection. */
import type { ApprovalSummary } from "@/lib/api/types";
import type { Db } from "../db/client";
import type { Approval as ApprovalRow } from "../db/generated/client";

export function toApprovalSummary(a: ApprovalRow, thread_name: string | null): ApprovalSummary {
  return {
    approval_id: a.id,
    state: a.state as ApprovalSummary["state"],
    run_id: a.run_id,
    thread_id: a.thread_id,
    thread_name,
    task_id: a.task_id,
    agent_id: a.agent_id,
    kind: a.kind as ApprovalSummary["kind"],
    summary: a.summary,
    subject: a.subject as Record<string, unknown>,
    arguments: (a.arguments as Record<string, unknown> | null) ?? null,
    preview: a.preview,
    recommendation: (a.recommendation as ApprovalSummary["recommendation"]) ?? null,
    approvers: a.approvers as ApprovalSummary["approvers"],
    rule: a.rule,
    requested_at: a.requested_at.toISOString(),
    expires_at: a.expires_at.toISOString(),
    decided_at: a.decided_at?.toISOString() ?? null,
    decided_by: a.decided_by,
    comment: a.comment,
    request_seq: Number(a.request_seq),
  };
}

/** Approvals in `state` ("pending", "decided" or "all"), oldest first, optionally of one channel. */
export async function listApprovals(db: Db, state: "pending" | "decided" | "all", thread_id?: string, limit = 500): Promise<ApprovalSummary[]> {
  const rows = await db.approval.findMany({
    where: {
      ...(state === "pending" ? { state: "pending" } : state === "decided" ? { state: { not: "pending" } } : {}),
      ...(thread_id ? { thread_id } : {}),
    },
    orderBy: state === "decided" ? { decided_at: "desc" } : { requested_at: "asc" },
    take: limit,
  });
  const threads = new Map((await db.thread.findMany({ where: { id: { in: [...new Set(rows.map((r) => r.thread_id))] } } })).map((t) => [t.id, t.name]));
  return rows.map((r) => toApprovalSummary(r, threads.get(r.thread_id) ?? null));
}
