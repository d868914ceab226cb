/**
 * DELETE /api/keys/:key_id: revoke a key, yours (or any, for an admin). 200 { key } with
 * `revoked_at` set; 404 unknown_key. A revoked key never authenticates again.
 */
import { z } from "zod";
import { isAdmin } from "@/server/auth/principal";
import { getClutch } from "@/server/instance";
import { json } from "../../_lib/http";
import { route } from "../../_lib/route";

export const dynamic = "force-dynamic";

export const DELETE = route({ auth: "person", params: z.object({ key_id: z.string().min(1) }) }, async ({ principal, params }) =>
  json({ key: await getClutch().identity.revokeKey(principal, params.key_id, isAdmin(principal) ? undefined : principal.agent_id) }),
);
