/**
 * GET /api/autogen/runs/:run_id/input?request_id=&wait= (docs/adapters.md "AutoGen"): the answer
 * a person gave in the channel to the question of a UserInputRequestedEvent (`request_id`;
 * default the run's latest), waiting up to `wait` seconds (0–60, default 30) for it: a long poll
 * for the forwarder's `input_func`. 200 `{ request_id, question_id, text, from }`; 204 when no
 * answer came in time (ask again). Only the run's starter. 404 unknown_run, unknown_request; 403
 * not_your_run.
 */
import { z } from "zod";
import { waitForInput } from "@/server/adapters/autogen/runs";
import { getClutch } from "@/server/instance";
import { json } from "../../../../_lib/http";
import { route } from "../../../../_lib/route";

export const dynamic = "force-dynamic";

const Query = z.object({
  request_id: z.string().min(1).max(200).optional(),
  wait: z.coerce.number({ error: "wait is seconds, 0 to 60" }).min(0).max(60).default(30),
});

export const GET = route({ auth: "signed-in", params: z.object({ run_id: z.string().min(1).max(200) }), query: Query }, async ({ req, principal, params, query }) => {
  const answer = await waitForInput(getClutch(), principal, params.run_id, { request_id: query.request_id, wait_sec: query.wait, signal: req.signal });
  return answer ? json(answer) : new Response(null, { status: 204 });
});
