/**
 * "Who is the person who started run R?", read from the log (lib/fold/run-requester.ts has the
 * rule; docs/identity.md "Approvals need the right person"). Used by the policy kernel to record
 * an approval's `requester`, which `forbid_self_approval` compares with the person deciding.
 */
import { runRequester } from "@/lib/fold/run-requester";
import type { Queries } from "./queries";

/**
 * The requester of run `run_id`: `user:<id>` for a run a person started (by a chat message, over
 * A2A/ACP with their key, a workflow, or a fork or retry of such a run), `agent:<id>` for one an
 * external agent started, or null for a run with no root request yet. Reads the run's first root
 * requests (an indexed query); throws only when the database does.
 */
export async function requesterOfRun(queries: Pick<Queries, "rootRequests">, run_id: string): Promise<string | null> {
  return runRequester(await queries.rootRequests(run_id));
}
