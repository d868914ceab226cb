/**
 * GET /api/agents: { agents: AgentSummary[] }, every registered agent with its AgentCard,
 * presence from heartbeats, load and recent record (server/router/directory.ts).
 * POST /api/agents: an AgentCard (Clutch Protocol §1.4) registers an external agent (201,
 * agent.register) or updates it (200, agent.update; the same card again changes nothing).
 * Body { agent } with its AgentSummary. 400 invalid_card with the fields at fault; 409
 * workspace_agent when the workspace's own manifests define that agent.
 */
import { registerAgent } from "@/server/router/registration";
import { listAgents } from "@/server/router/directory";
import { getClutch } from "@/server/instance";
import { json, readJson, route } from "../_lib/http";

export const dynamic = "force-dynamic";

export const GET = route(async () => {
  const rt = getClutch();
  return json({ agents: await listAgents(rt.store.queries, rt.registry) });
});

export const POST = route(async (req) => {
  const rt = getClutch();
  const { card, result } = await registerAgent(rt.store, rt.registry, await readJson(req));
  const agent = (await listAgents(rt.store.queries, rt.registry)).find((a) => a.agent_id === card.agent_id) ?? null;
  return json({ agent, result }, result === "registered" ? 201 : 200);
});
