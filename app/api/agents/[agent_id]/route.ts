/**
 * PATCH /api/agents/:agent_id { disabled, reason? } (admins): disable an external agent (its
 * keys stop working, it cannot register or post) or enable it again. 200 { agent_id, disabled }.
 * 409 workspace_agent for the workspace's own agents (change their manifests instead).
 */
import { z } from "zod";
import { ClutchError } from "@/server/errors";
import { getClutch } from "@/server/instance";
import { json } from "../../_lib/http";
import { route } from "../../_lib/route";

export const dynamic = "force-dynamic";

const Body = z.strictObject({ disabled: z.boolean({ error: "disabled is true or false" }), reason: z.string().trim().max(200).optional() });

export const PATCH = route({ auth: "admin", params: z.object({ agent_id: z.string().min(1) }), body: Body }, async ({ principal, params, body }) => {
  const { identity, registry } = getClutch();
  if (registry.get(params.agent_id)?.source === "workspace") {
    throw new ClutchError("workspace_agent", `${params.agent_id} runs inside Clutch; change its manifest instead`, 409);
  }
  await identity.setAgentDisabled(principal, params.agent_id, body.disabled, body.reason ?? "");
  return json({ agent_id: params.agent_id, disabled: body.disabled });
});
