/**
 * POST /api/ag-ui/agents/:agent_id: one agent as an AG-UI agent (docs/adapters.md "AG-UI: Clutch's
 * agents as AG-UI agents"; server/adapters/ag-ui/server.ts). `agent_id` is the agent's id without
 * `agent:` (`pm-1`). The body is AG-UI's RunAgentInput; the run happens in the AG-UI channel
 * (workspace.json `a2a.channel`, else the first) and streams back as AG-UI events. Any signed-in
 * person or agent key, counted against its writes a minute. 400 invalid_body, 401, 403 (the
 * channel), 404 unknown_agent or no channel, 429. GET answers 405.
 */
import { z } from "zod";
import { ClutchError } from "@/server/errors";
import { getClutch } from "@/server/instance";
import { handleAgUi } from "@/server/adapters/ag-ui/server";
import { readJson } from "../../../_lib/http";
import { route } from "../../../_lib/route";

export const dynamic = "force-dynamic";

const Params = z.object({ agent_id: z.string().min(1, "agent_id: name the agent, e.g. pm-1").max(200) });

export const POST = route({ auth: "signed-in", params: Params }, async ({ req, principal, params }) => handleAgUi(getClutch(), principal, req, await readJson(req), params.agent_id));

export const GET = route({ auth: "signed-in", params: Params }, async () => {
  throw new ClutchError("method_not_allowed", "POST an AG-UI RunAgentInput to this endpoint; the run streams back as AG-UI events", 405);
});
