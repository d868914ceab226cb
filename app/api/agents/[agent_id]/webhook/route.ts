/**
 * GET /api/agents/:agent_id/webhook: how Clutch calls an external agent's webhook
 * (server/adapters/webhook/webhook.ts): `{ url, secret, scheme }`, `url` from its AgentCard's
 * `endpoints.webhook.url` (null without one), `secret` the `whsec_…` its deliveries are signed
 * with (Standard Webhooks). For that agent's own key, or an admin; 403 not_your_agent otherwise,
 * 404 unknown_agent for an agent that never registered.
 */
import { z } from "zod";
import { isAdmin } from "@/server/auth/principal";
import { ClutchError } from "@/server/errors";
import { webhookUrlOf } from "@/server/adapters/webhook/webhook";
import { getClutch } from "@/server/instance";
import { json } from "../../../_lib/http";
import { route } from "../../../_lib/route";

export const dynamic = "force-dynamic";

export const GET = route({ auth: "signed-in", params: z.object({ agent_id: z.string().min(1) }) }, async ({ principal, params: { agent_id } }) => {
  if (!(principal.kind === "agent" && principal.agent_id === agent_id) && !isAdmin(principal)) {
    throw new ClutchError("not_your_agent", `only ${agent_id}'s own API key (or an admin) may read its webhook secret; this request is ${principal.agent_id}`, 403);
  }
  const rt = getClutch();
  const agent = rt.registry.get(agent_id);
  if (!agent || agent.source !== "external") throw new ClutchError("unknown_agent", `${agent_id} is not a registered external agent: POST its AgentCard to /api/agents first`, 404);
  return json({ url: webhookUrlOf(agent.card), secret: rt.webhookSecretOf(agent_id), scheme: "Standard Webhooks: webhook-id, webhook-timestamp, webhook-signature (v1, HMAC-SHA256)" });
});
