/**
 * GET /api/threads: { threads } by name.
 * POST /api/threads { name, topic? }: 201 { thread }; 400 invalid_thread; 409 name_taken.
 */
import { getRuntime } from "@/server/runtime";
import { json, readJson, route } from "../_lib/http";

export const dynamic = "force-dynamic";

export const GET = route(async () => json({ threads: await getRuntime().store.listThreads() }));

export const POST = route(async (req) => {
  const body = await readJson(req);
  const thread = await getRuntime().store.createThread(body, { agent_id: "user:anonymous", display_name: "Someone" });
  return json({ thread }, 201);
});
