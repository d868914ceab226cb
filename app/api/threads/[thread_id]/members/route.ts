/**
 * A channel's members (docs/identity.md, "Channels"). GET → { members: [{ member, name,
 * added_by, added_at }] } for anyone who may read the channel. POST { member } (`user:<id>` or
 * `agent:<id>`) adds one: any admin or member of the workspace who may read the channel (not
 * guests). 200 { members }; 404 unknown (or unreadable) thread; 422 unknown_member; 409
 * direct_message: nobody is added to a DM (docs/channels.md "Direct messages").
 */
import { z } from "zod";
import { ClutchError } from "@/server/errors";
import { getClutch } from "@/server/instance";
import { json } from "../../../_lib/http";
import { route } from "../../../_lib/route";
import { assertManager, membersOf } from "./manage";

export const dynamic = "force-dynamic";

const Params = z.object({ thread_id: z.string().min(1) });
const Body = z.strictObject({ member: z.string().regex(/^(user|agent):\S+$/, "a member is user:<id> or agent:<name>") });

export const GET = route({ auth: "signed-in", params: Params }, async ({ principal, params: { thread_id } }) => {
  await getClutch().identity.channels.assertRead(principal, thread_id);
  return json({ members: await membersOf(thread_id) });
});

export const POST = route({ auth: "person", params: Params, body: Body }, async ({ principal, params: { thread_id }, body }) => {
  const { identity, registry } = getClutch();
  await assertManager(principal, thread_id);
  const known = body.member.startsWith("user:") ? await identity.person(body.member.slice(5)) : registry.get(body.member);
  if (!known) throw new ClutchError("unknown_member", `${body.member} is neither a person of this workspace nor a registered agent`, 422);
  await identity.addMember(principal, thread_id, body.member);
  return json({ members: await membersOf(thread_id) });
});
