/**
 * POST /api/approvals/:approval_id/decision { decision: "approve" | "reject", comment?,
 * arguments? }: the signed-in person's decision. 200 { approval }; 400 invalid; 403
 * not_an_approver; 404 unknown_approval (also for an approval in a channel the person may not
 * read, unless it is a direct message's and its rule names them: docs/identity.md "Approvals in
 * direct messages"); 409 not_pending (already decided).
 */
import { z } from "zod";
import type { Decider } from "@/lib/approvers";
import { isEvent } from "@/lib/protocol";
import type { ApprovalRow } from "@/server/events/queries";
import { ClutchError } from "@/server/errors";
import { decidableOutsideDms, toApprovalSummary } from "@/server/policy/list";
import { runTitles } from "@/server/events/runs";
import { NO_WORKSPACE } from "@/server/workspace/workspace";
import { getClutch } from "@/server/instance";
import { json, readJson } from "../../../_lib/http";
import { route } from "../../../_lib/route";

export const dynamic = "force-dynamic";

const Body = z.strictObject({
  decision: z.enum(["approve", "reject"], { error: 'decision is "approve" or "reject"' }),
  comment: z.string().trim().max(2000).optional(),
  arguments: z.record(z.string(), z.unknown(), { error: "arguments must be a JSON object" }).optional(),
});

/** Whether `person` may decide approval row `row` of a direct message they are not in (docs/identity.md "Approvals in direct messages"). */
async function decidesOutsideDm(rt: ReturnType<typeof getClutch>, row: ApprovalRow, person: Decider): Promise<boolean> {
  const request = await rt.store.queries.eventAtSeq(Number(row.request_seq));
  const asked = request && isEvent(request, "approval.requested") ? request.payload : null;
  return (await decidableOutsideDms(rt.store.queries, [toApprovalSummary(row, null, asked)], person)).length > 0;
}

export const POST = route({ auth: "person", params: z.object({ approval_id: z.string().min(1) }) }, async ({ req, principal, params: { approval_id } }) => {
  const body = Body.safeParse(await readJson(req));
  if (!body.success) throw new ClutchError("invalid_decision", `${body.error.issues[0]!.path.join(".") || "body"}: ${body.error.issues[0]!.message}`, 400, body.error.issues);
  const rt = getClutch();
  if (rt.workspace === NO_WORKSPACE) throw new ClutchError("no_policy", "approvals need the agents' workspace; this server runs without one", 409);
  const pending = await rt.store.queries.approval(approval_id);
  if (!pending || !((await rt.identity.channels.canRead(principal, pending.thread_id)) || (await decidesOutsideDm(rt, pending, principal)))) {
    throw new ClutchError("unknown_approval", `there is no approval ${approval_id}`, 404);
  }
  const row = await rt.approvals.decide(approval_id, body.data, { agent_id: principal.agent_id, display_name: principal.name, role: principal.role, email: principal.email });
  const thread = await rt.store.getThread(row.thread_id);
  const titles = await runTitles(rt.store.queries, await rt.store.queries.runs([row.run_id]));
  return json({ approval: toApprovalSummary(row, thread?.name ?? null, null, titles.get(row.run_id) ?? null) });
});
