/**
 * GET /api/agents/:agent_id/inbox?after=<seq>&limit=<n>: the events addressed to an agent (its
 * `to` names it), in every channel, in seq order (EventPage): its task requests, cancels and the
 * messages to it. For agents that poll instead of holding a socket (the socket's `subscribe
 * { agent_id }` streams the same). Only with that agent's own API key: 403 not_your_agent.
 */
import { z } from "zod";
import { ClutchError } from "@/server/errors";
import { getClutch } from "@/server/instance";
import { json, pageQuery } from "../../../_lib/http";
import { route } from "../../../_lib/route";

export const dynamic = "force-dynamic";

export const GET = route({ auth: "signed-in", params: z.object({ agent_id: z.string().min(1) }) }, async ({ req, principal, params: { agent_id } }) => {
  if (!(principal.kind === "agent" && principal.agent_id === agent_id)) {
    throw new ClutchError("not_your_agent", `only ${agent_id}'s own API key may read the events addressed to it; this request is ${principal.agent_id}`, 403);
  }
  return json(await getClutch().store.read({ to_agent: agent_id }, pageQuery(req.url)));
});
