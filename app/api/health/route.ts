/** GET /api/health: 200 { ok, version, database } when the database answers, else 503. */
import type { Health } from "@/lib/api/types";
import { getClutch } from "@/server/instance";
import { json, route } from "../_lib/http";

export const dynamic = "force-dynamic";

export const GET = route(async () => {
  const rt = getClutch();
  let health: Health;
  try {
    await rt.store.ping();
    health = { ok: true, version: rt.version, database: { ok: true, kind: rt.databaseKind } };
  } catch (err) {
    health = { ok: false, version: rt.version, database: { ok: false, kind: rt.databaseKind, error: (err as Error).message } };
  }
  return json(health, health.ok ? 200 : 503);
});
