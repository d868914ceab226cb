/**
 * DELETE /api/people/:user_id/sign-in-lock (admins): lift the lock on a person's sign-in after too
 * many failed passwords, and clear their count of failures (docs/identity.md, "Signing in").
 * 200 { person }; 404 unknown_user. Recorded as `audit.change` `member.sign_in_unlocked` when
 * there was a lock.
 */
import { z } from "zod";
import { getClutch } from "@/server/instance";
import { json } from "../../../_lib/http";
import { route } from "../../../_lib/route";

export const dynamic = "force-dynamic";

export const DELETE = route({ auth: "admin", params: z.object({ user_id: z.string().min(1) }) }, async ({ principal, params }) =>
  json({ person: await getClutch().identity.unlockSignIn(principal, params.user_id) }),
);
