/**
 * POST /api/streams { thread_id, run_id?, task_id?, to?, reply_to?, markdown_text? }: start a
 * streaming reply written by the signed-in principal, as itself (server/streams/api.ts;
 * docs/adapters.md "Streaming replies"). Allowed when POST /api/events would let it append that
 * chat.message. 201 { stream_id, thread_id, run_id, task_id }; 400 invalid_body; 403 from the
 * append authorizer (from_mismatch, signature_required, ...); 422 unknown_thread / unknown_run /
 * unknown_task / unknown_message; 429 rate_limited (one write per call).
 */
import { getClutch } from "@/server/instance";
import { StartStreamSchema, startStream } from "@/server/streams/api";
import { json } from "../_lib/http";
import { route } from "../_lib/route";

export const dynamic = "force-dynamic";

export const POST = route({ auth: "signed-in", body: StartStreamSchema }, async ({ principal, body }) => json(await startStream(getClutch(), principal, body), 201));
