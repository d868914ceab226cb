/**
 * Vitest global setup: one fresh, migrated database for the whole run.
 *
 * With DATABASE_URL set (CI, real PostgreSQL) it creates `clutch_test_<time>_<pid>` on that
 * server and drops it afterwards; without, it serves an in-memory embedded PGlite. Tests read
 * the URL with `inject("databaseUrl")`.
 */
import pg from "pg";
import type { TestProject } from "vitest/node";
import { startEmbeddedDatabase } from "../server/db/embedded";
import { migrate } from "../server/db/migrate";

declare module "vitest" {
  export interface ProvidedContext {
    databaseUrl: string;
    embeddedDatabase: boolean;
  }
}

export default async function setup(project: TestProject) {
  const base = process.env.DATABASE_URL;
  let url: string;
  let teardown: () => Promise<void>;
  if (base) {
    const name = `clutch_test_${Date.now()}_${process.pid}`;
    const admin = new pg.Client({ connectionString: base });
    await admin.connect();
    await admin.query(`CREATE DATABASE "${name}"`);
    await admin.end();
    const u = new URL(base);
    u.pathname = `/${name}`;
    url = u.toString();
    teardown = async () => {
      const c = new pg.Client({ connectionString: base });
      await c.connect();
      await c.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
      await c.end();
    };
  } else {
    const embedded = await startEmbeddedDatabase();
    url = embedded.url;
    teardown = () => embedded.stop();
  }
  await migrate(url);
  project.provide("databaseUrl", url);
  project.provide("embeddedDatabase", !base);
  return teardown;
}
