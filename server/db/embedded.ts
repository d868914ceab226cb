/**
 * The embedded default database: PGlite (PostgreSQL compiled to WASM) served on a local TCP
 * port by pglite-socket, so the same `pg` driver and Prisma code path serve both it and a real
 * PostgreSQL. `maxConnections` is raised: pglite-socket's default of one connection breaks a pool.
 *
 * `dataDir` undefined keeps the database in memory (tests); otherwise files live there and
 * survive restarts. Call `stop()` on shutdown, or the next start runs crash recovery.
 */
import fs from "node:fs";
import path from "node:path";
import { PGlite } from "@electric-sql/pglite";
import { PGLiteSocketServer } from "@electric-sql/pglite-socket";

export interface EmbeddedDatabase {
  /** A postgresql:// URL for the served database. */
  url: string;
  stop(): Promise<void>;
}

/**
 * Start PGlite and serve it on 127.0.0.1 (port 0 = any free port).
 * Throws when the data folder cannot be created or the port is taken.
 */
export async function startEmbeddedDatabase(opts: { dataDir?: string; port?: number } = {}): Promise<EmbeddedDatabase> {
  let db: PGlite;
  if (opts.dataDir) {
    fs.mkdirSync(path.dirname(opts.dataDir), { recursive: true });
    db = await PGlite.create(opts.dataDir);
  } else {
    db = await PGlite.create();
  }
  const server = new PGLiteSocketServer({ db, host: "127.0.0.1", port: opts.port ?? 0, maxConnections: 64 });
  await server.start();
  const url = `postgresql://postgres:postgres@${server.getServerConn()}/postgres?sslmode=disable`;
  return {
    url,
    async stop() {
      await server.stop();
      await db.close();
    },
  };
}
