/** DELETE /api/invites/:invite_id (admins): revoke an open invite. 200 { revoked: boolean } (false when it was no longer open). */
import { z } from "zod";
import { getClutch } from "@/server/instance";
import { json } from "../../_lib/http";
import { route } from "../../_lib/route";

export const dynamic = "force-dynamic";

export const DELETE = route({ auth: "admin", params: z.object({ invite_id: z.string().min(1) }) }, async ({ principal, params }) =>
  json({ revoked: await getClutch().identity.revokeInvite(principal, params.invite_id) }),
);
