/**
 * The schema registry as the `/schemas` page reads it (docs/schemas.md): schemas grouped by
 * name with their versions, the text filter, the next version's payload type, the page's URL
 * of a ref, and a line diff of two versions' JSON Schemas (jsdiff).
 */
import { diffLines } from "diff";
import type { SchemaSummary } from "@/lib/api/types";

/** Every version of one schema name, oldest first; `latest` is the newest. */
export interface SchemaGroup {
  name: string;
  /** The payload type without its version (`sales.forecast`), or the message type (`task.request`). */
  label: string;
  kind: "payload" | "message";
  versions: SchemaSummary[];
  latest: SchemaSummary;
}

/** `sales.forecast.v2` → `sales.forecast`. */
export function baseOf(payload_type: string): string {
  return payload_type.replace(/\.v[0-9]+$/, "");
}

/** Group `schemas` by name: payload types first (by label), then message payloads. */
export function groupSchemas(schemas: readonly SchemaSummary[]): SchemaGroup[] {
  const byName = new Map<string, SchemaSummary[]>();
  for (const s of schemas) byName.set(s.name, [...(byName.get(s.name) ?? []), s]);
  const groups = [...byName].map(([name, list]): SchemaGroup => {
    const versions = [...list].sort((a, b) => a.version - b.version);
    const latest = versions[versions.length - 1]!;
    const kind = latest.message_type ? "message" : "payload";
    return { name, label: latest.payload_type ? baseOf(latest.payload_type) : (latest.message_type ?? name), kind, versions, latest };
  });
  return groups.sort((a, b) => (a.kind === b.kind ? a.label.localeCompare(b.label) : a.kind === "payload" ? -1 : 1));
}

/** Groups whose label, name, description, a version's payload type, or a producer or consumer contains `text` (case-insensitive). */
export function filterGroups(groups: readonly SchemaGroup[], text: string): SchemaGroup[] {
  const q = text.trim().toLowerCase();
  if (!q) return [...groups];
  return groups.filter((g) =>
    [g.label, g.name, g.latest.description, ...g.versions.flatMap((v) => [v.payload_type ?? "", ...v.producers, ...v.consumers])].some((f) => f.toLowerCase().includes(q)),
  );
}

/** The payload type of the version after the newest of `group` (`sales.forecast.v3`); null for message payloads. */
export function nextPayloadType(group: SchemaGroup): string | null {
  return group.kind === "payload" ? `${group.label}.v${group.latest.version + 1}` : null;
}

/** `schema://clutch/sales/forecast@2` → `/schemas/clutch/sales/forecast@2`. */
export function schemaHref(ref: string): string {
  return `/schemas/${ref.replace(/^schema:\/\//, "")}`;
}

/** The ref a `/schemas/<segments>` page names, or null for `/schemas`. */
export function refOfSegments(segments: readonly string[] | undefined): string | null {
  if (!segments?.length) return null;
  return `schema://${segments.map(decodeSegment).join("/")}`;
}

function decodeSegment(s: string): string {
  try {
    return decodeURIComponent(s);
  } catch {
    return s;
  }
}

/** One line of a diff: kept, added (in `after` only) or removed (in `before` only). */
export interface DiffLine {
  op: "same" | "add" | "remove";
  text: string;
}

/** A line diff of two JSON Schemas as pretty-printed JSON (2 spaces), with how many lines each side changed. */
export function diffSchemas(before: unknown, after: unknown): { lines: DiffLine[]; added: number; removed: number } {
  const lines: DiffLine[] = [];
  let added = 0;
  let removed = 0;
  for (const part of diffLines(`${JSON.stringify(before, null, 2)}\n`, `${JSON.stringify(after, null, 2)}\n`)) {
    const op = part.added ? "add" : part.removed ? "remove" : "same";
    const texts = part.value.replace(/\n$/, "").split("\n");
    if (op === "add") added += texts.length;
    if (op === "remove") removed += texts.length;
    for (const text of texts) lines.push({ op, text });
  }
  return { lines, added, removed };
}
