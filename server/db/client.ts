/**
 * The Prisma client over the `pg` driver adapter (the Rust-free client of Prisma 6.19,
 * which needs no native engine).
 * One pool per process; `max` is the pool size.
 */
import { PrismaPg } from "@prisma/adapter-pg";
import { PrismaClient } from "./generated/client";

export type Db = PrismaClient;
export type { Prisma } from "./generated/client";

/** A Prisma client for `url`. Connections open lazily; call `$disconnect()` to close the pool. */
export function createDb(url: string, opts: { max?: number } = {}): Db {
  const adapter = new PrismaPg({ connectionString: url, max: opts.max ?? 10 });
  return new PrismaClient({ adapter });
}
