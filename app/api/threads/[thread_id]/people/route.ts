/**
 * GET /api/threads/:thread_id/people → { people: [{ agent_id, name, handle, role }] }: the people
 * who may read the channel, and so may be @mentioned in it (docs/channels.md "Mentions"): the
 * composer's completion. `handle` is what follows `@` (lib/mentions.ts `personHandle`). No
 * e-mail addresses. For signed-in people (403 forbidden for an agent key); 404 unknown_thread
 * for a channel the caller may not read.
 */
import { z } from "zod";
import { personHandle } from "@/lib/mentions";
import { getClutch } from "@/server/instance";
import { json } from "../../../_lib/http";
import { route } from "../../../_lib/route";

export const dynamic = "force-dynamic";

export const GET = route({ auth: "person", params: z.object({ thread_id: z.string().min(1) }) }, async ({ principal, params: { thread_id } }) => {
  const { identity } = getClutch();
  await identity.channels.assertRead(principal, thread_id);
  const people = await identity.channels.people(thread_id);
  return json({ people: people.map((p) => ({ ...p, handle: personHandle(p.name) })) });
});
