/**
 * Apply pending migrations (prisma/migrations) with `prisma migrate deploy`, the Prisma CLI's
 * offline path (its schema engine runs as WASM, see prisma.config.ts). Idempotent: applied
 * migrations are skipped.
 *
 * Throws an Error carrying the CLI's output when a migration fails.
 */
import { execFile } from "node:child_process";
import path from "node:path";
import { fileURLToPath } from "node:url";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");

/** Run `prisma migrate deploy` against `url`; resolves with the CLI's output. */
export function migrate(url: string): Promise<string> {
  const cli = path.join(root, "node_modules/prisma/build/index.js");
  const preload = path.join(root, "scripts/unref-timers.cjs");
  return new Promise((resolve, reject) => {
    execFile(
      process.execPath,
      ["--require", preload, cli, "migrate", "deploy"],
      { cwd: root, env: { ...process.env, DATABASE_URL: url, PRISMA_HIDE_UPDATE_MESSAGE: "1" }, timeout: 120_000 },
      (err, stdout, stderr) => {
        if (err) reject(new Error(`prisma migrate deploy failed:\n${stdout}\n${stderr}`));
        else resolve(stdout);
      },
    );
  });
}
