/**
 * POST /api/streams/:stream_id/stop (server/streams/api.ts; docs/adapters.md "Streaming replies"):
 * - by its author, { markdown_text?, payload_type?, payload? } (the body may be empty): store the
 *   final text as one chat.message and end the stream; 201 { event } (200 with the same event
 *   when the stop is retried);
 * - by a person, the run's requester or an admin, {}: Stop someone else's stream: its text so far
 *   from its author (`meta.stopped_by`) and the cancel of its open task, in one append; 200 { events }.
 * 400 invalid_body; 403 not_your_stream (naming who may); 404 unknown_stream; 409 stream_ended.
 */
import { z } from "zod";
import { getClutch } from "@/server/instance";
import { StopStreamSchema, stopStream } from "@/server/streams/api";
import { json } from "../../../_lib/http";
import { route } from "../../../_lib/route";

export const dynamic = "force-dynamic";

export const POST = route(
  { auth: "signed-in", params: z.object({ stream_id: z.string().min(1) }), body: StopStreamSchema, emptyBody: true },
  async ({ principal, params: { stream_id }, body }) => {
    const outcome = await stopStream(getClutch(), principal, stream_id, body);
    return outcome.by === "author" ? json({ event: outcome.event }, outcome.created ? 201 : 200) : json({ events: outcome.events });
  },
);
