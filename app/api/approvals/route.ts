/**
 * GET /api/approvals?state=pending|decided|all&thread_id=: { approvals } oldest first (decided:
 * newest first), only those of channels the principal may read, and those of direct messages
 * whose rule names the person as an approver (server/policy/list.ts `visibleApprovals`).
 */
import { z } from "zod";
import { visibleApprovals } from "@/server/policy/list";
import { getClutch } from "@/server/instance";
import { json } from "../_lib/http";
import { route } from "../_lib/route";

export const dynamic = "force-dynamic";

const Query = z.strictObject({ state: z.enum(["pending", "decided", "all"]).default("pending"), thread_id: z.string().min(1).optional() });

export const GET = route({ auth: "signed-in", query: Query }, async ({ principal, query }) => {
  const { store, identity } = getClutch();
  const readable = await identity.channels.readable(principal);
  return json({ approvals: await visibleApprovals(store.queries, readable, principal.kind === "person" ? principal : null, query.state, query.thread_id) });
});
