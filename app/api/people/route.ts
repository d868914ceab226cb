/**
 * GET /api/people: { people: [{ id, agent_id, name, role, created_at, email? }] } oldest first,
 * for member pickers and mentions; emails only for admins.
 */
import { isAdmin } from "@/server/auth/principal";
import { getClutch } from "@/server/instance";
import { json } from "../_lib/http";
import { route } from "../_lib/route";

export const dynamic = "force-dynamic";

export const GET = route({ auth: "signed-in" }, async ({ principal }) => {
  const people = await getClutch().identity.people();
  return json({ people: isAdmin(principal) ? people : people.map(({ email: _email, ...p }) => p) });
});
