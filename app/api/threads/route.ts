/**
 * GET /api/threads: { threads } by name.
 * POST /api/threads { name, topic?, display_name? }: 201 { thread }; 400 invalid_thread; 409 name_taken.
 */
import { personId } from "@/lib/people";
import { getClutch } from "@/server/instance";
import { json, readJson, route } from "../_lib/http";

export const dynamic = "force-dynamic";

export const GET = route(async () => json({ threads: await getClutch().store.listThreads() }));

export const POST = route(async (req) => {
  const body = await readJson(req);
  const name = body && typeof body === "object" ? (body as { display_name?: unknown }).display_name : undefined;
  const by = typeof name === "string" && name.trim() ? { agent_id: personId(name), display_name: name.trim() } : { agent_id: "user:anonymous", display_name: "Someone" };
  const thread = await getClutch().store.createThread(body, by);
  return json({ thread }, 201);
});
