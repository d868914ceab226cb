/**
 * GET /api/approvals?state=pending|decided|all&thread_id=: { approvals } oldest first (decided:
 * newest first), only those of channels the principal may read, and those of direct messages
 * whose rule names the person as an approver (server/policy/list.ts `decidableOutsideDms`).
 */
import { z } from "zod";
import { decidableOutsideDms, listApprovals } from "@/server/policy/list";
import { getClutch } from "@/server/instance";
import { json } from "../_lib/http";
import { route } from "../_lib/route";

export const dynamic = "force-dynamic";

const Query = z.strictObject({ state: z.enum(["pending", "decided", "all"]).default("pending"), thread_id: z.string().min(1).optional() });

export const GET = route({ auth: "signed-in", query: Query }, async ({ principal, query }) => {
  const { store, identity } = getClutch();
  const readable = await identity.channels.readable(principal);
  const approvals = await listApprovals(store.queries, query.state, query.thread_id);
  if (readable.all) return json({ approvals });
  const unread = approvals.filter((a) => !readable.ids.has(a.thread_id));
  const outside = principal.kind === "person" ? new Set((await decidableOutsideDms(store.queries, unread, principal)).map((a) => a.approval_id)) : new Set<string>();
  const visible = approvals.filter((a) => readable.ids.has(a.thread_id) || outside.has(a.approval_id));
  return json({ approvals: visible.map((a) => (outside.has(a.approval_id) ? { ...a, thread_name: null, outside_dm: true as const } : a)) });
});
