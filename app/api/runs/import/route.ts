/**
 * POST /api/runs/import?thread_id=&new_run=true: JSON Lines of one run (as exported). Every line
 * is validated first; 201 { run_id, events, created }; 400 invalid_jsonl with
 * issues [{ line, path, message }] and nothing stored; 422 unknown_thread.
 */
import { z } from "zod";
import { ClutchError } from "@/server/errors";
import { importRun } from "@/server/runs/runs";
import { getClutch } from "@/server/instance";
import { json, MAX_IMPORT_BODY_BYTES, readText, route } from "../../_lib/http";

export const dynamic = "force-dynamic";

const Query = z.strictObject({
  thread_id: z.string().min(1).optional(),
  new_run: z.enum(["true", "false"]).optional(),
});

export const POST = route(async (req) => {
  const q = Query.safeParse(Object.fromEntries(new URL(req.url).searchParams));
  if (!q.success) throw new ClutchError("invalid_query", q.error.issues[0]!.message, 400, q.error.issues);
  const text = await readText(req, MAX_IMPORT_BODY_BYTES);
  if (!text.trim()) throw new ClutchError("invalid_jsonl", "the body is empty: send one ClutchMessage per line");
  const result = await importRun(getClutch().store, text, { thread_id: q.data.thread_id, new_run: q.data.new_run === "true" });
  return json(result, 201);
});
