import path from "node:path";
import { defineConfig } from "vitest/config";

export default defineConfig({
  resolve: { alias: { "@": path.resolve(import.meta.dirname) } },
  test: {
    include: ["lib/**/*.test.ts", "server/**/*.test.ts", "test/**/*.test.ts", "components/**/*.test.ts", "examples/**/*.test.ts"],
    globalSetup: ["test/global-setup.ts"],
    testTimeout: 60_000,
    // The built-in model writes its replies at once in tests, unless a test asks for a pace.
    env: { CLUTCH_BUILTIN_PACE_MS: process.env.CLUTCH_BUILTIN_PACE_MS ?? "0" },
    hookTimeout: 120_000,
    pool: "forks",
    // The embedded database (no DATABASE_URL) serves all connections from one backend that
    // cannot interleave clients' queries safely, so its test files run one at a time.
    fileParallelism: Boolean(process.env.DATABASE_URL),
    // Most test files wait on PostgreSQL, timers and sockets more than they compute: four files at
    // once, more than this 2-core box's cores, halve the suite's time (docs/benchmarks.md "Where
    // the CI time goes"). A file's Clutch may hold up to 20 connections (Prisma's pool and the
    // append path's), and PostgreSQL allows 100 by default: more files at once could run out.
    maxWorkers: 4,
  },
});
