/**
 * GET /api/schemas/<name>@<version> (e.g. /api/schemas/clutch/research/summary@1): the schema
 * `schema://<name>@<version>` with its JSON Schema, and every version of its name (oldest first,
 * to compare): `{ schema: SchemaDetail, versions: SchemaSummary[] }`; 404 unknown_schema.
 */
import { z } from "zod";
import { ClutchError } from "@/server/errors";
import { getClutch } from "@/server/instance";
import { schemaDetail, schemaSummary } from "@/server/schemas/summaries";
import { json } from "../../_lib/http";
import { route } from "../../_lib/route";

export const dynamic = "force-dynamic";

export const GET = route({ auth: "signed-in", params: z.object({ ref: z.array(z.string().min(1)).min(1) }) }, async ({ params }) => {
  const { schemas, registry } = getClutch();
  const ref = `schema://${params.ref.join("/")}`;
  if (!schemas.get(ref)) await schemas.refresh();
  const schema = schemas.get(ref);
  if (!schema) throw new ClutchError("unknown_schema", `no schema ${ref}; GET /api/schemas lists them (a ref is schema://<name>@<version>)`, 404);
  const cards = registry.list().map((a) => a.card);
  return json({ schema: schemaDetail(schema, cards), versions: schemas.versionsOf(schema.name).map((s) => schemaSummary(s, cards)) });
});
