/**
 * GET /api/people: { people: [{ id, agent_id, name, role, created_at, email?, deactivated?,
 * sign_in_lock?, deactivation? }] } oldest first, for member pickers and mentions; emails,
 * `sign_in_lock: { failures, locked_until }` while a person's sign-in is locked, and on a
 * deactivated person `deactivation: { by, at, reason }` (`by` is `system` for the identity
 * provider) only for admins (docs/identity.md).
 */
import { isAdmin } from "@/server/auth/principal";
import { getClutch } from "@/server/instance";
import { json } from "../_lib/http";
import { route } from "../_lib/route";

export const dynamic = "force-dynamic";

export const GET = route({ auth: "signed-in" }, async ({ principal }) => {
  const { identity } = getClutch();
  if (isAdmin(principal)) return json({ people: await identity.peopleWithLocks() });
  return json({ people: (await identity.people()).map(({ email: _email, ...p }) => p) });
});
