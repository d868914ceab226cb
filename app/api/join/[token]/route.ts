/**
 * Invite links (docs/identity.md): GET /api/join/:token → { invite: { role, expires_at, … } }
 * while it is open; POST /api/join/:token { name, email, password } signs up with the invite's
 * role and signs in (Set-Cookie): 201 { person }. 404 / 410 invalid_invite (unknown, used,
 * expired, revoked); 409 email_taken.
 */
import { z } from "zod";
import { SignUpSchema } from "@/server/auth/identity";
import { getClutch } from "@/server/instance";
import { json } from "../../_lib/http";
import { route } from "../../_lib/route";

export const dynamic = "force-dynamic";

const Params = z.object({ token: z.string().min(1).max(200) });

export const GET = route({ auth: "public", params: Params }, async ({ params }) => {
  const invite = await getClutch().identity.openInvite(params.token);
  return json({ invite: { role: invite.role, note: invite.note, expires_at: invite.expires_at } });
});

export const POST = route({ auth: "public", params: Params, body: SignUpSchema }, async ({ params, body }) => {
  const { person, headers } = await getClutch().identity.acceptInvite(params.token, body);
  const res = json({ person }, 201);
  for (const cookie of headers.getSetCookie()) res.headers.append("set-cookie", cookie);
  return res;
});
