/** GET /api/policy: the policy file's status ({ file, ok, error, loaded_at, rules }). */
import { getRuntime } from "@/server/runtime";
import { json, route } from "../_lib/http";

export const dynamic = "force-dynamic";

export const GET = route(async () => {
  const rt = getRuntime();
  return json(rt.approvals?.kernel.status() ?? { file: null, ok: true, error: null, loaded_at: new Date().toISOString(), rules: 0 });
});
