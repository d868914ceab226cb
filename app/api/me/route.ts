/**
 * GET /api/me: who this request is. 200 { principal: { kind, agent_id, name?, email?, role?,
 * user_id? } }; 401 unauthenticated (the app then shows sign-in, or setup on first run).
 */
import { json } from "../_lib/http";
import { route } from "../_lib/route";

export const dynamic = "force-dynamic";

export const GET = route({ auth: "signed-in" }, async ({ principal }) => {
  const { kind, agent_id } = principal;
  return json({ principal: principal.kind === "person" ? { kind, agent_id, user_id: principal.user_id, name: principal.name, email: principal.email, role: principal.role } : { kind, agent_id } });
});
