/** GET /api/policy: the policy file's status ({ file, ok, error, loaded_at, rules }). */
import { getClutch } from "@/server/instance";
import { json } from "../_lib/http";
import { route } from "../_lib/route";

export const dynamic = "force-dynamic";

export const GET = route({ auth: "signed-in" }, async () => json(getClutch().approvals.kernel.status()));
