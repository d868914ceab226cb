/** GET /api/runs/:run_id/events?after=<seq>&limit=<n> (or ?before=): EventPage in seq order. */
import { getClutch } from "@/server/instance";
import { json, pageQuery, route } from "../../../_lib/http";

export const dynamic = "force-dynamic";

export const GET = route(async (req, { params }: { params: Promise<{ run_id: string }> }) => {
  const { run_id } = await params;
  return json(await getClutch().store.read({ run_id }, pageQuery(req.url)));
});
