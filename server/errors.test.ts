/**
 * ERROR_STATUS is the one table of error codes (server/errors.ts): every code the server throws
 * (`new ClutchError("code", …)`, the append refusals, the JSON answers written by hand) is in it,
 * with the status it is thrown with.
 */
import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { ClutchError, ERROR_STATUS } from "./errors";

const ROOT = path.resolve(import.meta.dirname, "..");
const API_ERRORS = /(?:new ClutchError\(\s*|refuse\(\s*|error: \{ code: )"([a-z_]+)"/g;
/** The .ts and .tsx files under `dir` (tests and generated code left out). Upper-case codes (model and artifact setup) never reach the API and do not match. */
const sources = (dir: string): string[] =>
  fs.readdirSync(path.join(ROOT, dir), { withFileTypes: true, recursive: true }).flatMap((e) => {
    const file = path.join(e.parentPath, e.name);
    return e.isFile() && /\.tsx?$/.test(e.name) && !e.name.endsWith(".test.ts") && !file.includes(`${path.sep}generated${path.sep}`) ? [file] : [];
  });

describe("error codes", () => {
  it("every code thrown by the server and its routes is in ERROR_STATUS", () => {
    const thrown = new Map<string, string>();
    for (const file of [...sources("server"), ...sources("app/api")]) {
      for (const m of fs.readFileSync(file, "utf8").matchAll(API_ERRORS)) thrown.set(m[1]!, path.relative(ROOT, file));
    }
    expect(thrown.size).toBeGreaterThan(40);
    const missing = [...thrown].filter(([code]) => !(code in ERROR_STATUS)).map(([code, file]) => `${code} (${file})`);
    expect(missing, "add these codes to ERROR_STATUS in server/errors.ts").toEqual([]);
  });

  it("an error without a status takes its code's status from the table", () => {
    expect(new ClutchError("name_taken", "taken").status).toBe(409);
    expect(new ClutchError("unknown_thread", "gone").status).toBe(404);
    expect(new ClutchError("unknown_thread", "gone", 422).status).toBe(422);
    expect(new ClutchError("rate_limited", "slow down").status).toBe(429);
  });
});
