/**
 * POST /api/streams/:stream_id/append { markdown_text }: add text to the signed-in principal's own
 * open stream (server/streams/api.ts; docs/adapters.md "Streaming replies"). 200 { stream_id,
 * length }; 400 invalid_body (empty, or the text would pass a message's limit); 403
 * not_your_stream; 404 unknown_stream; 409 stream_ended (saying how, and by whom if stopped) /
 * stream_elsewhere; 429 rate_limited (one write per call).
 */
import { z } from "zod";
import { getClutch } from "@/server/instance";
import { AppendStreamSchema, appendToStream } from "@/server/streams/api";
import { json } from "../../../_lib/http";
import { route } from "../../../_lib/route";

export const dynamic = "force-dynamic";

export const POST = route({ auth: "signed-in", params: z.object({ stream_id: z.string().min(1) }), body: AppendStreamSchema }, async ({ principal, params: { stream_id }, body }) =>
  json(await appendToStream(getClutch(), principal, stream_id, body)),
);
