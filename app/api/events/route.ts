/**
 * POST /api/events: one ClutchMessage or an array (one transaction).
 * 201 { events } when any was new; 200 { events } when all were duplicates (the stored
 * originals); 400 with zod issues when any is invalid (nothing stored); 422 unknown thread.
 */
import { getClutch } from "@/server/instance";
import { json, readJson, route } from "../_lib/http";

export const dynamic = "force-dynamic";

export const POST = route(async (req) => {
  const body = await readJson(req);
  const { events, created } = await getClutch().store.append(body);
  return json({ events }, created.some(Boolean) ? 201 : 200);
});
