/**
 * For tests and benches only: the database client behind a store. Tests use it to check what the
 * store itself forbids (updating or deleting an event, which the append-only trigger refuses) and
 * to count or look up rows no application code needs; benches use it to count the log and to
 * profile the append transactions (`appendsOf`). Application code reads through `store.queries` and writes through
 * `store.append` (docs/architecture.md, "Invariants"); nothing outside tests and benches imports
 * this module.
 */
import type { Db } from "../db/client";
import type { EventStore } from "./store";
import type { Transactor } from "./sql";

/** The store's own Prisma client (the same connections the store uses). */
export function databaseOf(store: EventStore): Db {
  return store["db"];
}

/** The transactor the store's appends run in (server/events/sql.ts). */
export function appendsOf(store: EventStore): Transactor {
  return store["writer"]["transactor"];
}
