/**
 * Prisma CLI configuration (Prisma 6.19: Prisma 7's CLI downloads a native engine at run
 * time, so it cannot run offline).
 *
 * The schema engine runs as WASM through the `pg` driver adapter, so `prisma generate`
 * and `prisma migrate deploy` work offline. A placeholder DATABASE_URL keeps the CLI on
 * that path when none is set (generate never connects).
 */
import { defineConfig } from "prisma/config";
import { PrismaPg } from "@prisma/adapter-pg";

process.env.DATABASE_URL ??= "postgresql://placeholder:placeholder@127.0.0.1:1/placeholder";

export default defineConfig({
  schema: "prisma/schema.prisma",
  experimental: { adapter: true },
  engine: "js",
  async adapter() {
    return new PrismaPg({ connectionString: process.env.DATABASE_URL, allowExitOnIdle: true });
  },
});
