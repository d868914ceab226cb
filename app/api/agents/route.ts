/** GET /api/agents: { agents: AgentSummary[] } with status (online, busy, offline). */
import { listAgents } from "@/server/workspace/directory";
import { getRuntime } from "@/server/runtime";
import { json, route } from "../_lib/http";

export const dynamic = "force-dynamic";

export const GET = route(async () => {
  const rt = getRuntime();
  return json({ agents: await listAgents(rt.db, rt.workspace) });
});
