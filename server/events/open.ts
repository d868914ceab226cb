/**
 * Opening the log: the database (server/db/open.ts), the tail started from the log's current
 * head, and the store over both. The database client stays here, in server/events: everything
 * else reads and writes through the store (docs/architecture.md, "Where each concern lives").
 */
import type { Db } from "../db/client";
import { openDatabase } from "../db/open";
import { log } from "../log";
import { EventStore } from "./store";
import { EventTail } from "./tail";
import { pgTransactor, prismaTransactor, type Sql } from "./sql";

export interface EventLog {
  store: EventStore;
  /** The database client, for server/auth's own tables (people, keys, membership) only. */
  db: Db;
  tail: EventTail;
  /** Single statements on the append path's own connections (the stream bus's notifications, server/streams/bus.ts). */
  sql: Sql;
  /** "embedded" when Clutch serves PGlite itself, else "postgres" (for `GET /api/health`). */
  databaseKind: "embedded" | "postgres";
  /** Stop the tail and close the database (and the embedded database, if started here). */
  close(): Promise<void>;
}

/**
 * Open the database at `databaseUrl` (or the embedded one under `<dataDir>/pgdata`), apply
 * migrations (unless `migrate` is false), start the tail and the store. `embeddedUrl` says
 * `databaseUrl` is an embedded database served elsewhere (tests); `poolSize`: the Prisma pool's
 * connections (db/open.ts). Throws when the database cannot
 * be opened or migrated.
 */
export async function openEventLog(opts: { databaseUrl?: string; dataDir: string; embeddedUrl?: boolean; migrate?: boolean; poolSize?: number }): Promise<EventLog> {
  const database = await openDatabase(opts);
  const ownConnections = database.kind === "postgres" && opts.databaseUrl && !opts.embeddedUrl ? opts.databaseUrl : null;
  // Appends (and the tail's reads) go through a pg pool of their own, with no ORM in the serialized section (sql.ts).
  const appends = ownConnections ? pgTransactor(ownConnections) : prismaTransactor(database.db);
  // A run's whole history as JSON Lines (read.ts `readEventLines`) reads on a small pool of its own
  // too: its rows are passed on as text, which the ORM would decode for nothing, and appends do
  // not wait behind it.
  const lineReads = ownConnections ? pgTransactor(ownConnections) : null;
  const tail = new EventTail(appends, { onError: (err) => log.error({ err }, "event tail") });
  await tail.start();
  // Events other nodes append arrive by notification (several nodes on one PostgreSQL: docs/deploy.md).
  if (ownConnections) await tail.listen(ownConnections);
  return {
    store: new EventStore(database.db, tail, appends, Boolean(ownConnections), lineReads ?? undefined),
    db: database.db,
    tail,
    sql: appends,
    databaseKind: database.kind,
    async close() {
      tail.stop();
      await appends.close();
      await lineReads?.close();
      await database.close();
    },
  };
}
