/**
 * POST /api/acp: Clutch as an ACP server (seed 003; docs/adapters.md "ACP"), MCP JSON-RPC over
 * Streamable HTTP, stateless: `initialize`, `agents/list`, `agents/run` (progress as
 * `notifications/agents/run/progress` on the call's event stream), and the same notification sent
 * by an agent about a task it works on, whose text streams into the channel as a growing reply
 * (202; docs/adapters.md "ACP"). Any signed-in person or agent
 * key (`Authorization: Bearer clk_…`); the body is read with the API's JSON limits.
 * GET and DELETE answer 405: there are no sessions and no standalone stream.
 */
import { ClutchError } from "@/server/errors";
import { getClutch } from "@/server/instance";
import { handleAcp } from "@/server/adapters/acp/server";
import { readJson } from "../_lib/http";
import { route } from "../_lib/route";

export const dynamic = "force-dynamic";

/** Largest ACP request body, in bytes. */
const MAX_ACP_BODY_BYTES = 1024 * 1024;

export const POST = route({ auth: "signed-in" }, async ({ req, principal }) => {
  const body = await readJson(req, { maxBytes: MAX_ACP_BODY_BYTES });
  return handleAcp(getClutch(), principal, req, body);
});

const notAllowed = route({ auth: "signed-in" }, async () => {
  throw new ClutchError("method_not_allowed", "this ACP endpoint is stateless: POST JSON-RPC requests to it (there are no sessions and no standalone stream)", 405);
});
export const GET = notAllowed;
export const DELETE = notAllowed;
