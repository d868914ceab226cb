/**
 * Invites (admins; docs/identity.md). GET /api/invites → { invites } newest first.
 * POST /api/invites { role, note? } → 201 { invite, token, path }: `path` (/join/<token>) is the
 * link to pass on; the token is shown only in this answer and expires at `invite.expires_at`, after
 * CLUTCH_INVITE_TTL_HOURS (default 7 days; docs/limits.md).
 */
import { z } from "zod";
import { ROLES } from "@/server/auth/principal";
import { getClutch } from "@/server/instance";
import { json } from "../_lib/http";
import { route } from "../_lib/route";

export const dynamic = "force-dynamic";

const Body = z.strictObject({
  role: z.enum(ROLES, { error: 'role is "admin", "member" or "guest"' }),
  note: z.string().trim().max(200, "a note is at most 200 characters").optional(),
});

export const GET = route({ auth: "admin" }, async () => json({ invites: await getClutch().identity.invites() }));

export const POST = route({ auth: "admin", body: Body }, async ({ principal, body }) => {
  const { token, invite } = await getClutch().identity.invite(principal, body.role, body.note ?? "");
  return json({ invite, token, path: `/join/${token}` }, 201);
});
