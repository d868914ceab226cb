/**
 * PATCH /api/people/:user_id { role } (admins): change a person's role. 200 { person };
 * 404 unknown_user; 409 last_admin (the workspace keeps at least one admin).
 */
import { z } from "zod";
import { ROLES } from "@/server/auth/principal";
import { getClutch } from "@/server/instance";
import { json } from "../../_lib/http";
import { route } from "../../_lib/route";

export const dynamic = "force-dynamic";

const Body = z.strictObject({ role: z.enum(ROLES, { error: 'role is "admin", "member" or "guest"' }) });

export const PATCH = route({ auth: "admin", params: z.object({ user_id: z.string().min(1) }), body: Body }, async ({ principal, params, body }) =>
  json({ person: await getClutch().identity.setRole(principal, params.user_id, body.role) }),
);
