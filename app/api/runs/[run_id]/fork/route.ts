/**
 * POST /api/runs/:run_id/fork { at_seq }: a new run whose first events are copies of this
 * run's events up to seq at_seq, continuing live (server/runs/runs.ts). 201 { run };
 * 400 invalid_fork; 404 unknown_run.
 */
import { z } from "zod";
import { ClutchError } from "@/server/errors";
import { forkRun } from "@/server/runs/runs";
import { getClutch } from "@/server/instance";
import { json, readJson, route } from "../../../_lib/http";

export const dynamic = "force-dynamic";

const ForkSchema = z.strictObject({ at_seq: z.number().int().positive("at_seq is the seq of an event of the run") });

export const POST = route(async (req, { params }: { params: Promise<{ run_id: string }> }) => {
  const { run_id } = await params;
  const body = ForkSchema.safeParse(await readJson(req));
  if (!body.success) throw new ClutchError("invalid_fork", `at_seq: ${body.error.issues[0]!.message}`, 400, body.error.issues);
  return json({ run: await forkRun(getClutch().store, run_id, body.data.at_seq) }, 201);
});
