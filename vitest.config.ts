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
    // A worker process runs file after file without loading every module again: module loading
    // was most of the suite's CPU (docs/benchmarks.md "Where the CI time goes"). Each file still
    // makes its own Clutch, so files share no state through them.
    isolate: false,
    // The embedded database (no DATABASE_URL) serves all connections from one backend that
    // cannot interleave clients' queries safely, so its test files run one at a time.
    fileParallelism: Boolean(process.env.DATABASE_URL),
    // Most test files wait on PostgreSQL, timers and sockets more than they compute: four files at
    // once, more than this 2-core box's cores, halve the suite's time (docs/benchmarks.md "Where
    // the CI time goes"). A test's Clutch holds up to about 15 connections (a Prisma pool of 5,
    // test/helpers.ts, and the append path's, the job queues' and the leader lease's), and
    // PostgreSQL allows 100 by default: the suite peaks at about 90; more files at once could run out.
    maxWorkers: 4,
  },
});
