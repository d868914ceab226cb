/**
 * The schema registry (docs/schemas.md, Clutch Protocol §3).
 *
 * GET /api/schemas: `{ schemas: SchemaSummary[] }`, every schema by name then version, each with
 * the agents that produce and consume its payload type.
 * POST /api/schemas `{ payload_type, description?, json_schema }`: a person or an agent adds a
 * payload type's schema (a new version of a name is a new payload type, `sales.forecast.v2`).
 * 201 `{ schema: SchemaDetail }`; 400 invalid_body / invalid_schema (with the JSON pointer into
 * json_schema); 409 schema_exists (versions never change: it names the next free one).
 */
import type { SchemaSummary } from "@/lib/api/types";
import { getClutch } from "@/server/instance";
import { NewSchemaInput } from "@/server/schemas/registry";
import { schemaDetail, schemaSummary } from "@/server/schemas/summaries";
import { json } from "../_lib/http";
import { route } from "../_lib/route";

export const dynamic = "force-dynamic";

export const GET = route({ auth: "signed-in" }, async () => {
  const { schemas, registry } = getClutch();
  await schemas.refresh();
  const cards = registry.list().map((a) => a.card);
  const list: SchemaSummary[] = schemas.list().map((s) => schemaSummary(s, cards));
  return json({ schemas: list });
});

export const POST = route({ auth: "signed-in", body: NewSchemaInput }, async ({ principal, body }) => {
  const { schemas, registry } = getClutch();
  const added = await schemas.add(body, principal.agent_id);
  return json({ schema: schemaDetail(added, registry.list().map((a) => a.card)) }, 201);
});
