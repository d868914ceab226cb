/**
 * Imported copies (docs/identity.md "Imported runs are copies that never act"). A copy of a run
 * imported from a file (`POST /api/runs/import?new_run=true`) is the importer's own words: each
 * copied event names the importer as its sender, and keeps what the file said in
 * `meta.imported`:
 *
 *   meta.imported = { from: { agent_id, role?, display_name? },  // the sender the file named, as it named it (quoted data)
 *                     by: "user:<id>",                      // who imported it
 *                     at: "<ISO 8601>",                      // when
 *                     run_id: "<the run id in the file>" }
 *
 * A copy is shown as "imported from …" and never acts: it opens no dispatch, question,
 * approval, mention or budget charge, and the components that act on the log never see it
 * (server/events/tail.ts). Only Clutch writes `meta.imported` (server/auth/authorize-append.ts).
 */
import { z } from "zod";

export const ImportedMetaSchema = z.object({
  from: z.looseObject({ agent_id: z.string(), role: z.string().optional(), display_name: z.string().optional() }),
  by: z.string(),
  at: z.string(),
  run_id: z.string(),
});

/** What an imported copy quotes from its file: the original sender, the importer, when, the file's run id. */
export type ImportedMeta = z.infer<typeof ImportedMetaSchema>;

/** The `meta.imported` of an imported copy, or null for any other event (a malformed mark counts as none). */
export function importedFrom(ev: { meta?: Record<string, unknown> } | null | undefined): ImportedMeta | null {
  const raw = ev?.meta?.imported;
  if (raw === undefined) return null;
  const r = ImportedMetaSchema.safeParse(raw);
  return r.success ? r.data : null;
}

/** True for an event of an imported copy of a run (any `meta.imported`, well-formed or not). */
export function isImportedCopy(ev: { meta?: Record<string, unknown> } | null | undefined): boolean {
  return ev?.meta?.imported !== undefined && ev.meta.imported !== null;
}

/**
 * Who acted, as far as drawing a run goes: the sender the file named for an imported copy (so a
 * copy's tree shows who did the work in the original), else `from.agent_id`. Never use it to
 * decide what anyone may do.
 */
export function actorOf(ev: { from: { agent_id: string }; meta?: Record<string, unknown> }): string {
  return importedFrom(ev)?.from.agent_id ?? ev.from.agent_id;
}
