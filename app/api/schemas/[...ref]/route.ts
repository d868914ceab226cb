/**
 * GET /api/schemas/<name>@<version> (e.g. /api/schemas/clutch/research/summary@1): the schema
 * `schema://<name>@<version>` with its JSON Schema, `{ schema: SchemaDetail }`; 404 unknown_schema.
 */
import { z } from "zod";
import type { SchemaDetail } from "@/lib/api/types";
import { ClutchError } from "@/server/errors";
import { schemaRegistry } from "@/server/schemas/registry";
import { json } from "../../_lib/http";
import { route } from "../../_lib/route";

export const dynamic = "force-dynamic";

export const GET = route({ auth: "signed-in", params: z.object({ ref: z.array(z.string().min(1)).min(1) }) }, async ({ params }) => {
  const ref = `schema://${params.ref.join("/")}`;
  const schema: SchemaDetail | undefined = schemaRegistry().get(ref);
  if (!schema) throw new ClutchError("unknown_schema", `no schema ${ref}; GET /api/schemas lists them (a ref is schema://<name>@<version>)`, 404);
  return json({ schema });
});
