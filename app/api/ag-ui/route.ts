/**
 * POST /api/ag-ui: the workspace's agents as an AG-UI agent (docs/adapters.md "AG-UI: Clutch's
 * agents as AG-UI agents"; server/adapters/ag-ui/server.ts). The body is AG-UI's RunAgentInput;
 * the request goes to the agent it @mentions, is routed by the capabilities it @mentions, or
 * goes to the entry agent of the AG-UI channel (workspace.json `a2a.channel`, else the first).
 * The answer is the run as AG-UI events (`text/event-stream`, or AG-UI's protobuf framing when
 * Accept asks for it). Any signed-in person or agent key (`Authorization: Bearer clk_…`), counted
 * against its writes a minute. 400 invalid_body (not a RunAgentInput; no user message; a resume
 * entry naming no question of the caller's), 401, 403 (the channel), 404 (no channel), 429.
 * GET answers 405.
 */
import { ClutchError } from "@/server/errors";
import { getClutch } from "@/server/instance";
import { handleAgUi } from "@/server/adapters/ag-ui/server";
import { readJson } from "../_lib/http";
import { route } from "../_lib/route";

export const dynamic = "force-dynamic";

export const POST = route({ auth: "signed-in" }, async ({ req, principal }) => handleAgUi(getClutch(), principal, req, await readJson(req), null));

export const GET = route({ auth: "signed-in" }, async () => {
  throw new ClutchError("method_not_allowed", "POST an AG-UI RunAgentInput to this endpoint; the run streams back as AG-UI events", 405);
});
