/**
 * POST /api/autogen/runs/:run_id/messages (docs/adapters.md "AutoGen"): one AgentChat message,
 * a list of them, or `{ messages: [...] }`, each as `message.model_dump(mode="json")` gives it,
 * and the run's final TaskResult `{ messages, stop_reason }`. Only the run's starter may post.
 * 201 `{ items, events }` when anything was stored; 200 when all of it was stored before (a
 * retry: message ids make it idempotent) or nothing needed storing. `items[]`: per message
 * `{ index, type, outcome: translated | passthrough | skipped, events, note? }`. 400
 * invalid_autogen_message with each bad item's index and JSONPath (nothing stored); 403
 * not_your_run; 404 unknown_run.
 */
import { z } from "zod";
import { postAutogenMessages } from "@/server/adapters/autogen/runs";
import { getClutch } from "@/server/instance";
import { json } from "../../../../_lib/http";
import { route } from "../../../../_lib/route";

export const dynamic = "force-dynamic";

const Body = z.union([z.array(z.unknown()).min(1, "send at least one message").max(500, "at most 500 messages a request"), z.record(z.string(), z.unknown())], {
  error: "the body is an AgentChat message, a list of them, or a TaskResult",
});

export const POST = route({ auth: "signed-in", params: z.object({ run_id: z.string().min(1).max(200) }), body: Body }, async ({ principal, params, body }) => {
  const items = Array.isArray(body) ? body : Array.isArray(body.messages) && !("stop_reason" in body) ? body.messages : [body];
  const { outcomes, events, created } = await postAutogenMessages(getClutch(), principal, params.run_id, items);
  return json({ items: outcomes, events }, created ? 201 : 200);
});
