/**
 * POST /api/agents/:agent_id/heartbeat { status?: "online" | "busy" | "draining",
 * active_tasks? }: an external agent's agent.heartbeat (Clutch Protocol §2.4). An
 * agent is offline once `offline_after_sec` pass without one. 202 {}; 400 invalid_heartbeat;
 * 404 unknown_agent (register first); 409 workspace_agent. Sent with the agent's own API key
 * (or by an admin); 403 not_yourself for another agent's key. An agent whose card declares
 * signing keys signs the body like an envelope, with `agent_id` and `ts` in it
 * (server/auth/signatures.ts `heartbeatSignatureProblem`): 403 signature_required /
 * unknown_kid / signature_invalid otherwise.
 */
import { recordHeartbeat } from "@/server/router/registration";
import { getClutch } from "@/server/instance";
import { z } from "zod";
import { ClutchError } from "@/server/errors";
import { isAdmin } from "@/server/auth/principal";
import { json, readJson } from "../../../_lib/http";
import { route } from "../../../_lib/route";

export const dynamic = "force-dynamic";

export const POST = route({ auth: "signed-in", params: z.object({ agent_id: z.string().min(1) }) }, async ({ req, principal, params: { agent_id } }) => {
  if (principal.agent_id !== agent_id && !isAdmin(principal)) throw new ClutchError("not_yourself", `this key speaks for ${principal.agent_id}, not ${agent_id}`, 403);
  const rt = getClutch();
  const body = await readJson(req, { empty: {} });
  // An agent's own key: a keyed agent signs the body (docs/identity.md "Signed messages").
  await recordHeartbeat(rt.store, rt.registry, agent_id, body, { signed: principal.kind === "agent" });
  return json({}, 202);
});
