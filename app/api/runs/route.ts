/**
 * GET /api/runs?status=&waiting_on_me=&channel=&agent=&requester=&before=&limit=: the runs of
 * every channel the principal may read, newest first (docs/channels.md "Runs"). 200 { runs:
 * RunSummary[], next_cursor } — `next_cursor` goes in `before` for the next page, null at the end.
 *
 * - status: running (nobody waited on), waiting (on a person), active (either: in progress), ended;
 * - waiting_on_me=true: only runs that wait on the signed-in person (lib/fold/run-status.ts
 *   `waitsOnYou`); people only;
 * - channel: a channel id (404 unknown_thread when the principal may not read it);
 * - agent: runs with a task assigned to this agent; requester: runs this person asked for.
 *
 * 400 invalid_query names the field (an unknown status, a bad cursor, a limit outside 1..100,
 * waiting_on_me from an agent key).
 */
import { z } from "zod";
import { listRuns, parseRunCursor } from "@/server/events/runs";
import { ClutchError } from "@/server/errors";
import { getClutch } from "@/server/instance";
import { json } from "../_lib/http";
import { route } from "../_lib/route";

export const dynamic = "force-dynamic";

const Id = z.string().trim().min(1).max(200);

const Query = z.strictObject({
  status: z.enum(["running", "waiting", "active", "ended"], "status: running, waiting, active or ended").optional(),
  waiting_on_me: z.enum(["true", "false"], "waiting_on_me: true or false").optional(),
  channel: Id.optional(),
  agent: Id.optional(),
  requester: Id.optional(),
  before: z
    .string()
    .max(300)
    .refine((v) => parseRunCursor(v) !== null, "before: a cursor from next_cursor (<started_at>~<run_id>)")
    .optional(),
  limit: z.coerce.number("limit: a number from 1 to 100").int().min(1).max(100).default(50),
});

export const GET = route({ auth: "signed-in", query: Query }, async ({ principal, query }) => {
  const { store, identity } = getClutch();
  const waitingOnMe = query.waiting_on_me === "true";
  if (waitingOnMe && principal.kind !== "person") throw new ClutchError("invalid_query", "waiting_on_me: runs wait on people; an agent key is never waited on", 400);
  let thread_ids: string[] | "all";
  if (query.channel) {
    await identity.channels.assertRead(principal, query.channel);
    thread_ids = [query.channel];
  } else {
    const readable = await identity.channels.readable(principal);
    thread_ids = readable.all ? "all" : [...readable.ids];
  }
  const list = await listRuns(
    store.queries,
    { thread_ids, status: query.status, agent: query.agent, requester: query.requester, before: query.before ? parseRunCursor(query.before)! : undefined, limit: query.limit },
    waitingOnMe && principal.kind === "person" ? principal : undefined,
  );
  return json(list);
});
