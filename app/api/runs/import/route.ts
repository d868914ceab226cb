/**
 * POST /api/runs/import?thread_id=&new_run=true&dry_run=true: JSON Lines of one run (as exported).
 * Every line is validated first; 201 { run_id, events, created, title, existing, dry_run: false }
 * (RunImportResult in lib/api/types.ts: `created` events were stored, `existing` is the run they were
 * added to as it was before, null for a new run); with dry_run=true, 200 with what the import
 * would do and nothing stored (the UI asks before adding to an existing run); 400 invalid_jsonl with
 * issues [{ line, path, message }] and nothing stored; 422 unknown_thread (or one the person may
 * not read). A person imports a copy (`new_run=true`, new ids) into a channel they can read;
 * restoring a run with its own ids is for admins (403 forbidden otherwise). A copy is the
 * importer's: every event names them as its sender, quotes the file's sender in `meta.imported`
 * and never acts (docs/identity.md "Imported runs are copies that never act"); a restore writes
 * the file's events as they are and is recorded in the audit trail (`run.restored`).
 */
import { z } from "zod";
import { ClutchError } from "@/server/errors";
import { importRun } from "@/server/runs/runs";
import { recordAudit } from "@/server/auth/audit";
import { getClutch } from "@/server/instance";
import { json, MAX_IMPORT_BODY_BYTES, readText } from "../../_lib/http";
import { route } from "../../_lib/route";

export const dynamic = "force-dynamic";

const Query = z.strictObject({
  thread_id: z.string().min(1).optional(),
  new_run: z.enum(["true", "false"]).optional(),
  dry_run: z.enum(["true", "false"]).optional(),
});

export const POST = route({ auth: "person", query: Query }, async ({ req, principal, query }) => {
  const new_run = query.new_run === "true";
  if (!new_run && principal.role !== "admin") throw new ClutchError("forbidden", "only an admin may restore a run with its own ids; import a copy with ?new_run=true", 403);
  const text = await readText(req, MAX_IMPORT_BODY_BYTES);
  if (!text.trim()) throw new ClutchError("invalid_jsonl", "the body is empty: send one ClutchMessage per line");
  const { store, identity } = getClutch();
  const result = await importRun(store, text, { thread_id: query.thread_id, new_run, canWrite: (thread_id) => identity.channels.canRead(principal, thread_id), importer: { agent_id: principal.agent_id, role: "human", display_name: principal.name }, dry_run: query.dry_run === "true" });
  if (!new_run && !result.dry_run && result.created) {
    await recordAudit(store, principal, { action: "run.restored", subject: result.run_id, summary: `restored ${result.created} event${result.created === 1 ? "" : "s"} of run ${result.run_id} from a file, as the file wrote them` });
  }
  return json(result, result.dry_run ? 200 : 201);
});
