/**
 * Validation at the append boundary: unknown input → ClutchMessage[] or a ClutchError
 * (`invalid_event`, 400) whose issues carry paths like `[2, "payload", "text"]` for the third
 * message of a batch. Nothing of an invalid batch is stored.
 */
import { z } from "zod";
import { ClutchMessageSchema, type ClutchMessage } from "@/lib/protocol";
import { ClutchError } from "../errors";

/** Most messages accepted in one append (one transaction). */
export const MAX_BATCH = 5000;

/** Parse one message or an array of them. Throws ClutchError("invalid_event") with zod issues. */
export function validateMessages(input: unknown, opts: { maxBatch?: number } = {}): ClutchMessage[] {
  const maxBatch = opts.maxBatch ?? MAX_BATCH;
  const batch = Array.isArray(input);
  const items = batch ? (input as unknown[]) : [input];
  if (items.length === 0) throw new ClutchError("invalid_event", "an empty batch: send at least one ClutchMessage");
  if (items.length > maxBatch) {
    throw new ClutchError("batch_too_large", `a batch holds at most ${maxBatch} messages; this one has ${items.length}`, 413);
  }
  const out: ClutchMessage[] = [];
  const issues: z.core.$ZodIssue[] = [];
  items.forEach((item, index) => {
    const r = ClutchMessageSchema.safeParse(item);
    if (r.success) out.push(r.data);
    else for (const issue of r.error.issues) issues.push({ ...issue, path: batch ? [index, ...issue.path] : issue.path });
  });
  if (issues.length) {
    const first = issues[0]!;
    const where = first.path.length ? ` at ${first.path.join(".")}` : "";
    const more = issues.length > 1 ? ` (and ${issues.length - 1} more issue${issues.length > 2 ? "s" : ""})` : "";
    throw new ClutchError("invalid_event", `invalid ClutchMessage${where}: ${first.message}${more}; nothing was stored`, 400, issues);
  }
  return out;
}
