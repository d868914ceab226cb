/**
 * A person's own API keys, for scripts (`Authorization: Bearer <key>`; docs/identity.md).
 * GET /api/keys → { keys } (yours; `?all=true` for admins: every key, agents' included).
 * POST /api/keys { name } → 201 { id, key, summary }: the key is shown only in this answer.
 */
import { z } from "zod";
import { ClutchError } from "@/server/errors";
import { getClutch } from "@/server/instance";
import { json } from "../_lib/http";
import { route } from "../_lib/route";

export const dynamic = "force-dynamic";

const Query = z.strictObject({ all: z.enum(["true", "false"]).optional() });
const Body = z.strictObject({ name: z.string().trim().min(1, "give the key a name, e.g. the script that uses it").max(80, "a key name is at most 80 characters") });

export const GET = route({ auth: "person", query: Query }, async ({ principal, query }) => {
  const all = query.all === "true";
  if (all && principal.role !== "admin") throw new ClutchError("forbidden", "only an admin may list every key", 403);
  return json({ keys: await getClutch().identity.keys.list(all ? undefined : principal.agent_id) });
});

export const POST = route({ auth: "person", body: Body }, async ({ principal, body }) => {
  const { key, summary } = await getClutch().identity.createKey(principal, principal.agent_id, body.name);
  return json({ id: summary.id, key, summary }, 201);
});
