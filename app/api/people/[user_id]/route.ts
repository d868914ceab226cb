/**
 * PATCH /api/people/:user_id { role?, deactivated?, reason? } (admins): change a person's role,
 * or deactivate them (their sessions, keys and open sockets stop working at once; their events
 * stay) or activate them again (docs/identity.md). 200 { person }; 400 invalid_body; 404
 * unknown_user; 409 last_admin (the workspace keeps at least one active admin).
 */
import { z } from "zod";
import { ROLES } from "@/server/auth/principal";
import { getClutch } from "@/server/instance";
import { json } from "../../_lib/http";
import { route } from "../../_lib/route";

export const dynamic = "force-dynamic";

const Body = z
  .strictObject({
    role: z.enum(ROLES, { error: 'role is "admin", "member" or "guest"' }).optional(),
    deactivated: z.boolean({ error: "deactivated is true or false" }).optional(),
    reason: z.string().trim().max(500).optional(),
  })
  .refine((b) => b.role !== undefined || b.deactivated !== undefined, { message: "give role, deactivated, or both" });

export const PATCH = route({ auth: "admin", params: z.object({ user_id: z.string().min(1) }), body: Body }, async ({ principal, params, body }) => {
  const { identity } = getClutch();
  let person = body.role !== undefined ? await identity.setRole(principal, params.user_id, body.role) : await identity.person(params.user_id);
  if (body.deactivated !== undefined) person = await identity.setPersonDeactivated(principal, params.user_id, body.deactivated, body.reason);
  return json({ person });
});
