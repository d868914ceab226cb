/**
 * GET /api/runs/:run_id/compare: a fork beside the run it was forked from (docs/channels.md
 * "Forks"): 200 { at_seq, runs: { parent, fork } (RunSummary), said: { parent, fork }, figures, same }
 * (server/runs/compare.ts). 404 unknown_run (or a run in a channel the principal may not read);
 * 400 not_a_fork for a run that was not forked.
 */
import { z } from "zod";
import { compareWithParent } from "@/server/runs/compare";
import { getClutch } from "@/server/instance";
import { json } from "../../../_lib/http";
import { route } from "../../../_lib/route";

export const dynamic = "force-dynamic";

export const GET = route({ auth: "signed-in", params: z.object({ run_id: z.string().min(1) }) }, async ({ principal, params: { run_id } }) => {
  const { store, identity } = getClutch();
  return json(await compareWithParent(store, run_id, (thread_id) => identity.channels.canRead(principal, thread_id)));
});
