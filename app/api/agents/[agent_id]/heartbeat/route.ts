/**
 * POST /api/agents/:agent_id/heartbeat { status?: "online" | "busy" | "draining",
 * active_tasks? }: an external agent's agent.heartbeat (Clutch Protocol §2.4). An
 * agent is offline once `offline_after_sec` pass without one. 202 {}; 400 invalid_heartbeat;
 * 404 unknown_agent (register first); 409 workspace_agent.
 */
import { recordHeartbeat } from "@/server/router/registration";
import { getClutch } from "@/server/instance";
import { json, pathParam, readJson, route } from "../../../_lib/http";

export const dynamic = "force-dynamic";

export const POST = route(async (req, { params }: { params: Promise<{ agent_id: string }> }) => {
  const { agent_id } = await params;
  const rt = getClutch();
  const body = await readJson(req, { empty: {} });
  await recordHeartbeat(rt.store, rt.registry, pathParam(agent_id), body);
  return json({}, 202);
});
