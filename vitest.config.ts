import os from "node:os";
import path from "node:path";
import { defineConfig } from "vitest/config";

export default defineConfig({
  resolve: { alias: { "@": path.resolve(import.meta.dirname) } },
  test: {
    include: ["lib/**/*.test.ts", "server/**/*.test.ts", "test/**/*.test.ts", "components/**/*.test.ts", "examples/**/*.test.ts"],
    globalSetup: ["test/global-setup.ts"],
    testTimeout: 60_000,
    hookTimeout: 120_000,
    pool: "forks",
    // The embedded database (no DATABASE_URL) serves all connections from one backend that
    // cannot interleave clients' queries safely, so its test files run one at a time.
    fileParallelism: Boolean(process.env.DATABASE_URL),
    // Most test files wait on PostgreSQL, timers and sockets more than they compute: more files
    // at once than cores (4 on a 2-core box halves the suite's time; docs/benchmarks.md "CI").
    maxWorkers: Math.max(4, os.availableParallelism()),
  },
});
