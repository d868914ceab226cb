/**
 * POST /api/events: one ClutchMessage or an array (one transaction), sent by the signed-in
 * principal, as itself (server/auth/authorize-append.ts).
 * 201 { events } when any was new; 200 { events } when all were duplicates (the stored
 * originals); 400 with zod issues when any is invalid; 403 from_mismatch, reserved_type,
 * not_yourself, not_your_task; 422 unknown thread. A refused request stores nothing.
 */
import { getClutch } from "@/server/instance";
import { json, readJson } from "../_lib/http";
import { route } from "../_lib/route";

export const dynamic = "force-dynamic";

export const POST = route({ auth: "signed-in" }, async ({ req, principal }) => {
  const { store, identity } = getClutch();
  const { events, created } = await store.append(await readJson(req), { authorize: identity.authorizer(principal) });
  return json({ events }, created.some(Boolean) ? 201 : 200);
});
