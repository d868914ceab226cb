/**
 * POST /api/runs/:run_id/fork { at_seq }: a new run whose first events are copies of this
 * run's events up to seq at_seq, continuing live (server/runs/runs.ts), by a signed-in person
 * who may read the run's channel. 201 { run }; 400 invalid_fork; 404 unknown_run.
 */
import { z } from "zod";
import { ClutchError } from "@/server/errors";
import { forkRun } from "@/server/runs/runs";
import { getClutch } from "@/server/instance";
import { json, readJson } from "../../../_lib/http";
import { route } from "../../../_lib/route";

export const dynamic = "force-dynamic";

const ForkSchema = z.strictObject({ at_seq: z.number().int().positive("at_seq is the seq of an event of the run") });

export const POST = route({ auth: "person", params: z.object({ run_id: z.string().min(1) }) }, async ({ req, principal, params: { run_id } }) => {
  const body = ForkSchema.safeParse(await readJson(req));
  if (!body.success) throw new ClutchError("invalid_fork", `at_seq: ${body.error.issues[0]!.message}`, 400, body.error.issues);
  const { store, identity } = getClutch();
  const first = (await store.read({ run_id }, { limit: 1 })).events[0];
  if (first && !(await identity.channels.canRead(principal, first.thread_id))) throw new ClutchError("unknown_run", `run ${run_id} does not exist`, 404);
  return json({ run: await forkRun(store, run_id, body.data.at_seq, principal.agent_id) }, 201);
});
