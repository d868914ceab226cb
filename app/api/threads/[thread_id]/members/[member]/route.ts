/**
 * DELETE /api/threads/:thread_id/members/:member: remove a member (a manager of the channel, or
 * the member themself: leaving). 200 { members }; 404 unknown thread; 409 direct_message: nobody
 * is removed from a DM, nor leaves it (docs/channels.md "Direct messages").
 */
import { z } from "zod";
import { getClutch } from "@/server/instance";
import { json } from "../../../../_lib/http";
import { route } from "../../../../_lib/route";
import { assertManager, membersOf } from "../manage";

export const dynamic = "force-dynamic";

export const DELETE = route({ auth: "person", params: z.object({ thread_id: z.string().min(1), member: z.string().min(1) }) }, async ({ principal, params: { thread_id, member } }) => {
  const { identity } = getClutch();
  if (member === principal.agent_id) await identity.channels.assertRead(principal, thread_id);
  else await assertManager(principal, thread_id);
  await identity.removeMember(principal, thread_id, member);
  return json({ members: await membersOf(thread_id) });
});
