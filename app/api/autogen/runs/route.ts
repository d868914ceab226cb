/**
 * POST /api/autogen/runs `{ channel, task?, team?, model? }` (docs/adapters.md "AutoGen"): start watching
 * an AutoGen team run in `channel` (by name). Any signed-in person or agent key that may read the
 * channel (guests may not). 201 `{ run_id, thread_id, task_id, channel }`: post the run's
 * AgentChat messages to /api/autogen/runs/:run_id/messages. 404 unknown_thread.
 */
import { z } from "zod";
import { startAutogenRun } from "@/server/adapters/autogen/runs";
import { getClutch } from "@/server/instance";
import { json } from "../../_lib/http";
import { route } from "../../_lib/route";

export const dynamic = "force-dynamic";

const Body = z.strictObject({
  channel: z.string({ error: "channel is the name of the channel to show the run in" }).min(1).max(100),
  task: z.string().min(1).max(100_000).optional(),
  team: z.string().min(1).max(100).optional(),
  /** The model the team's clients use (e.g. gpt-4o-mini): what its token usage is priced as. */
  model: z.string().min(1).max(200).optional(),
});

export const POST = route({ auth: "signed-in", body: Body }, async ({ principal, body }) => json(await startAutogenRun(getClutch(), principal, body), 201));
