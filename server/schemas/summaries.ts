/**
 * The registry's schemas as the API shows them (docs/schemas.md): each with the agents whose
 * AgentCards produce and consume its payload type (AgentCard `produces` / `consumes`).
 */
import type { AgentCard } from "@/lib/protocol";
import type { SchemaDetail, SchemaSummary } from "@/lib/api/types";
import type { RegisteredSchema } from "./registry";

/** `schema` without its JSON Schema, with its producers and consumers among `cards` (agent ids, sorted). */
export function schemaSummary(schema: RegisteredSchema, cards: readonly AgentCard[]): SchemaSummary {
  const { json_schema: _, ...summary } = schema;
  const type = schema.payload_type;
  const by = (field: "produces" | "consumes") => (type ? cards.filter((c) => c[field]?.includes(type)).map((c) => c.agent_id).sort() : []);
  return { ...summary, producers: by("produces"), consumers: by("consumes") };
}

/** `schema` with its JSON Schema, producers and consumers. */
export function schemaDetail(schema: RegisteredSchema, cards: readonly AgentCard[]): SchemaDetail {
  return { ...schemaSummary(schema, cards), json_schema: schema.json_schema };
}
