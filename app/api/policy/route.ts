/** GET /api/policy: the policy file's status ({ file, ok, error, loaded_at, rules }). */
import { getClutch } from "@/server/instance";
import { json, route } from "../_lib/http";

export const dynamic = "force-dynamic";

export const GET = route(async () => {
  const rt = getClutch();
  return json(rt.approvals.kernel.status());
});
