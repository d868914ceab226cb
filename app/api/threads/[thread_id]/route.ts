/**
 * GET /api/threads/:thread_id → { thread }. PATCH { visibility } ("public" | "private"): a
 * manager of the channel (admins and members who may read it, not guests) changes who can see
 * it. 200 { thread }; 404 unknown (or unreadable) thread; 409 direct_message: a DM stays private
 * (docs/channels.md "Direct messages").
 */
import { z } from "zod";
import { getClutch } from "@/server/instance";
import { json } from "../../_lib/http";
import { route } from "../../_lib/route";
import { assertManager } from "./members/manage";

export const dynamic = "force-dynamic";

const Params = z.object({ thread_id: z.string().min(1) });
const Body = z.strictObject({ visibility: z.enum(["public", "private"], { error: 'visibility is "public" or "private"' }) });

export const GET = route({ auth: "signed-in", params: Params }, async ({ principal, params: { thread_id } }) => {
  const { store, identity } = getClutch();
  await identity.channels.assertRead(principal, thread_id);
  return json({ thread: await store.getThread(thread_id) });
});

export const PATCH = route({ auth: "person", params: Params, body: Body }, async ({ principal, params: { thread_id }, body }) => {
  const { store, identity } = getClutch();
  await assertManager(principal, thread_id);
  if ((await store.getThread(thread_id))?.visibility !== body.visibility) {
    if (body.visibility === "private") await identity.addMember(principal, thread_id, principal.agent_id);
    await identity.setVisibility(principal, thread_id, body.visibility);
  }
  return json({ thread: await store.getThread(thread_id) });
});
