/** GET /api/approvals?state=pending|decided|all&thread_id=: { approvals } oldest first (decided: newest first). */
import { z } from "zod";
import { ClutchError } from "@/server/errors";
import { listApprovals } from "@/server/policy/list";
import { getClutch } from "@/server/instance";
import { json, route } from "../_lib/http";

export const dynamic = "force-dynamic";

const Query = z.strictObject({ state: z.enum(["pending", "decided", "all"]).default("pending"), thread_id: z.string().min(1).optional() });

export const GET = route(async (req) => {
  const q = Query.safeParse(Object.fromEntries(new URL(req.url).searchParams));
  if (!q.success) throw new ClutchError("invalid_query", `${q.error.issues[0]!.path.join(".")}: ${q.error.issues[0]!.message}`, 400, q.error.issues);
  return json({ approvals: await listApprovals(getClutch().store.queries, q.data.state, q.data.thread_id) });
});
