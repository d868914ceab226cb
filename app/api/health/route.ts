/**
 * GET /api/health: 200 { ok, version, database, agents, node? } when the database answers, else 503 with a
 * plain reason (the driver's own error is logged, never sent: it can name hosts and users).
 */
import type { Health } from "@/lib/api/types";
import { getClutch } from "@/server/instance";
import { log } from "@/server/log";
import { json } from "../_lib/http";
import { route } from "../_lib/route";

export const dynamic = "force-dynamic";

/** This node's turns, when it takes any (PostgreSQL with a workspace). */
function nodeOf(rt: ReturnType<typeof getClutch>): Pick<Health, "node"> {
  const turns = rt.turns();
  return turns ? { node: turns } : {};
}

export const GET = route({ auth: "public" }, async () => {
  const rt = getClutch();
  let health: Health;
  try {
    await rt.store.ping();
    health = { ok: true, version: rt.version, database: { ok: true, kind: rt.databaseKind }, agents: rt.agents(), ...nodeOf(rt) };
  } catch (err) {
    log.warn({ err }, "health check: the database did not answer");
    health = { ok: false, version: rt.version, database: { ok: false, kind: rt.databaseKind, error: "the database cannot be reached" }, agents: rt.agents(), ...nodeOf(rt) };
  }
  return json(health, health.ok ? 200 : 503);
});
