/**
 * GET /api/threads: { threads } by name: the channels the principal may read; for a person each
 * with `read`, how far they have read it (server/events/read-marks.ts), or null.
 * POST /api/threads { name, topic?, visibility? }: a signed-in member or admin creates a channel
 * and becomes its first member, with the channel read up to its start: what is said from then on
 * is unread for them (lib/unread.ts; a channel nobody marked for a person counts nothing for
 * them). 201 { thread }; 400 invalid_thread; 403 for guests; 409 name_taken.
 */
import { ClutchError } from "@/server/errors";
import { getClutch } from "@/server/instance";
import { json, readJson } from "../_lib/http";
import { route } from "../_lib/route";

export const dynamic = "force-dynamic";

export const GET = route({ auth: "signed-in" }, async ({ principal }) => {
  const { store, identity } = getClutch();
  const readable = await identity.channels.readable(principal);
  const threads = await store.listThreads();
  const visible = readable.all ? threads : threads.filter((t) => readable.ids.has(t.id));
  if (principal.kind !== "person") return json({ threads: visible });
  const marks = await identity.readMarks.of(principal.agent_id);
  return json({ threads: visible.map((t) => ({ ...t, read: marks.get(t.id) ?? null })) });
});

export const POST = route({ auth: "person" }, async ({ req, principal }) => {
  if (principal.role === "guest") throw new ClutchError("forbidden", "guests cannot create channels; ask a member or an admin", 403);
  const { store, identity } = getClutch();
  const thread = await store.createThread(await readJson(req), { agent_id: principal.agent_id, display_name: principal.name });
  await identity.readMarks.startAtEnd(principal.agent_id, [thread.id]);
  return json({ thread }, 201);
});
