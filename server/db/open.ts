/**
 * Opening the database Clutch runs on: the PostgreSQL at `databaseUrl`, or, without one, the
 * embedded PGlite kept under `<dataDir>/pgdata` (embedded.ts); migrations are applied either way
 * (migrate.ts). The client goes to the event store (server/events/open.ts), the only code that
 * queries it (docs/architecture.md, "Where each concern lives").
 */
import path from "node:path";
import { log } from "../log";
import { createDb, type Db } from "./client";
import { startEmbeddedDatabase, type EmbeddedDatabase } from "./embedded";
import { migrate } from "./migrate";

export interface Database {
  db: Db;
  /** "embedded" when Clutch serves PGlite itself, else "postgres" (for `GET /api/health`). */
  kind: "embedded" | "postgres";
  /** Disconnect, and stop the embedded database if Clutch started it. */
  close(): Promise<void>;
}

/**
 * Start the embedded database when `databaseUrl` is unset, apply migrations (unless `migrate`
 * is false: a process whose parent applied them) and connect.
 * `embeddedUrl` says that `databaseUrl` is an embedded database served elsewhere (tests).
 * `poolSize`: the Prisma pool's connections on PostgreSQL (default 10; the embedded database has one).
 * Throws when the database cannot be started or a migration fails.
 */
export async function openDatabase(opts: { databaseUrl?: string; dataDir: string; embeddedUrl?: boolean; migrate?: boolean; poolSize?: number }): Promise<Database> {
  let embedded: EmbeddedDatabase | undefined;
  let url = opts.databaseUrl;
  if (!url) {
    embedded = await startEmbeddedDatabase({ dataDir: path.join(opts.dataDir, "pgdata") });
    url = embedded.url;
    log.info({ dataDir: opts.dataDir }, "embedded PostgreSQL (PGlite) started");
  }
  if (opts.migrate !== false || embedded) await migrate(url);
  // PGlite serves every connection from one backend and interleaves their protocol messages,
  // so the embedded database gets a single connection.
  const db = createDb(url, { max: embedded || opts.embeddedUrl ? 1 : (opts.poolSize ?? 10) });
  return {
    db,
    kind: embedded ? "embedded" : "postgres",
    async close() {
      await db.$disconnect();
      await embedded?.stop();
    },
  };
}
