/**
 * First run (docs/identity.md): GET /api/setup → { needs_setup }; POST /api/setup { name, email,
 * password } creates the workspace's first account as its admin and signs it in (Set-Cookie).
 * 201 { person }; 400 invalid_body / invalid_sign_up; 409 already_set_up once anyone exists.
 */
import { SignUpSchema } from "@/server/auth/identity";
import { getClutch } from "@/server/instance";
import { json } from "../_lib/http";
import { route } from "../_lib/route";

export const dynamic = "force-dynamic";

export const GET = route({ auth: "public" }, async () => json({ needs_setup: await getClutch().identity.needsSetup() }));

export const POST = route({ auth: "public", body: SignUpSchema }, async ({ body }) => {
  const { person, headers } = await getClutch().identity.setUp(body);
  const res = json({ person }, 201);
  for (const cookie of headers.getSetCookie()) res.headers.append("set-cookie", cookie);
  return res;
});
