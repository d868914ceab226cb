/**
 * An external agent's API keys (admins; docs/identity.md). GET → { keys }. POST { name? } →
 * 201 { id, key, summary }: the key is shown only in this answer; with it the agent registers
 * its AgentCard, sends heartbeats, subscribes and posts events as itself. 400 invalid_params for
 * an id that is not `agent:<name>`; 409 workspace_agent for the workspace's own agents (they run
 * inside Clutch and need no key).
 */
import { z } from "zod";
import { ClutchError } from "@/server/errors";
import { getClutch } from "@/server/instance";
import { json } from "../../../_lib/http";
import { route } from "../../../_lib/route";

export const dynamic = "force-dynamic";

const Params = z.object({ agent_id: z.string().regex(/^agent:[^\s]{1,190}$/, "an agent id looks like agent:<name>") });
const Body = z.strictObject({ name: z.string().trim().min(1).max(80, "a key name is at most 80 characters").optional() });

export const GET = route({ auth: "admin", params: Params }, async ({ params }) => json({ keys: await getClutch().identity.keys.list(params.agent_id) }));

export const POST = route({ auth: "admin", params: Params, body: Body.optional() }, async ({ principal, params, body }) => {
  const { identity, registry } = getClutch();
  if (registry.get(params.agent_id)?.source === "workspace") {
    throw new ClutchError("workspace_agent", `${params.agent_id} runs inside Clutch (the workspace's manifests) and needs no key`, 409);
  }
  const { key, summary } = await identity.createKey(principal, params.agent_id, body?.name ?? `${params.agent_id} key`);
  return json({ id: summary.id, key, summary }, 201);
});
