/** GET /api/schemas: `{ schemas: SchemaSummary[] }`, every schema of the registry by ref (docs/schemas.md). */
import type { SchemaSummary } from "@/lib/api/types";
import { schemaRegistry } from "@/server/schemas/registry";
import { json } from "../_lib/http";
import { route } from "../_lib/route";

export const dynamic = "force-dynamic";

export const GET = route({ auth: "signed-in" }, async () => {
  const schemas: SchemaSummary[] = schemaRegistry()
    .list()
    .map(({ json_schema: _, ...summary }) => summary);
  return json({ schemas });
});
