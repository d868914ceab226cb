/**
 * POST /api/approvals/:approval_id/decision { decision: "approve" | "reject", comment?,
 * arguments?, display_name? }: 200 { approval }; 400 invalid; 403 not_an_approver;
 * 404 unknown_approval; 409 not_pending (already decided).
 */
import { z } from "zod";
import { ClutchError } from "@/server/errors";
import { toApprovalSummary } from "@/server/policy/list";
import { NO_WORKSPACE } from "@/server/workspace/workspace";
import { getClutch } from "@/server/instance";
import { json, readJson, route } from "../../../_lib/http";

export const dynamic = "force-dynamic";

const Body = z.strictObject({
  decision: z.enum(["approve", "reject"], { error: 'decision is "approve" or "reject"' }),
  comment: z.string().trim().max(2000).optional(),
  arguments: z.record(z.string(), z.unknown(), { error: "arguments must be a JSON object" }).optional(),
  display_name: z.string().trim().min(1).max(80).optional(),
});

export const POST = route(async (req, { params }: { params: Promise<{ approval_id: string }> }) => {
  const { approval_id } = await params;
  const body = Body.safeParse(await readJson(req));
  if (!body.success) throw new ClutchError("invalid_decision", `${body.error.issues[0]!.path.join(".") || "body"}: ${body.error.issues[0]!.message}`, 400, body.error.issues);
  const rt = getClutch();
  if (rt.workspace === NO_WORKSPACE) throw new ClutchError("no_policy", "approvals need the agents' workspace; this server runs without one", 409);
  const row = await rt.approvals.decide(approval_id, body.data);
  const thread = await rt.store.getThread(row.thread_id);
  return json({ approval: toApprovalSummary(row, thread?.name ?? null) });
});
