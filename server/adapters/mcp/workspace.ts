/**
 * The MCP workspace file: how each MCP `server_id` named in CAP `mcp_bindings` (seed 000) starts,
 * in the `mcpServers` shape common to MCP clients:
 *
 * ```json
 * { "mcpServers": {
 *     "DataServer": { "command": "node", "args": ["--import", "tsx", "mcp-servers/data-server.ts"],
 *                     "env": { "CLUTCH_QUERY_TIMEOUT_MS": "30000" }, "timeout_ms": 30000 } } }
 * ```
 *
 * Per server: `command` (required), `args`, `env` (added to a safe default environment), `cwd`
 * (relative to the file's folder, default that folder: McpHub.fromFile, so relative paths in
 * `args` and `env` name files next to the workspace), `description`, `timeout_ms` (default per-call
 * timeout), `start_timeout_ms` (limit for starting and initializing), `memory_limit_mb` (the most
 * memory the process may allocate, enforced by the kernel on Linux: docs/limits.md), `disabled`.
 */
import fs from "node:fs/promises";
import path from "node:path";
import { z } from "zod";

/** Server ids: the keys of `mcpServers`, matched verbatim against `mcp_bindings[].server_id`. */
export const SERVER_ID_PATTERN = /^[A-Za-z0-9_.:-]+$/;

/** Default per-call timeout, ms. */
export const DEFAULT_CALL_TIMEOUT_MS = 30_000;
/** Default limit for spawning a server and completing the MCP handshake, ms. */
export const DEFAULT_START_TIMEOUT_MS = 30_000;

/** One entry of `mcpServers`. */
export const McpServerEntrySchema = z.strictObject({
  command: z.string({ error: "command is required: the program to run, e.g. \"node\"" }).min(1, "command must not be empty"),
  args: z.array(z.string({ error: "every args entry must be a string" }), { error: "args must be an array of strings" }).default([]),
  env: z.record(z.string(), z.string({ error: "env values must be strings" }), { error: "env must be an object of strings" }).default({}),
  cwd: z.string({ error: "cwd must be a string" }).min(1).optional(),
  description: z.string().optional(),
  timeout_ms: z
    .number({ error: "timeout_ms must be a number of milliseconds" })
    .int("timeout_ms must be a whole number of milliseconds")
    .positive("timeout_ms must be more than 0")
    .max(600_000, "timeout_ms is at most 600000 (10 minutes)")
    .optional(),
  start_timeout_ms: z
    .number({ error: "start_timeout_ms must be a number of milliseconds" })
    .int("start_timeout_ms must be a whole number of milliseconds")
    .positive("start_timeout_ms must be more than 0")
    .max(600_000, "start_timeout_ms is at most 600000 (10 minutes)")
    .optional(),
  memory_limit_mb: z
    .number({ error: "memory_limit_mb must be a number of megabytes" })
    .int("memory_limit_mb must be a whole number of megabytes")
    .min(256, "memory_limit_mb is at least 256 (a Node.js process needs that much to start)")
    .max(1_048_576)
    .optional(),
  disabled: z.boolean().optional(),
});
export type McpServerEntry = z.infer<typeof McpServerEntrySchema>;

/** The workspace file. Unknown top-level keys are kept (other tools share the format). */
export const McpWorkspaceSchema = z.looseObject({
  mcpServers: z.record(z.string().regex(SERVER_ID_PATTERN), McpServerEntrySchema, {
    error: (iss) =>
      iss.code === "invalid_key"
        ? `server id ${JSON.stringify(iss.input)} is not valid: a server id may use letters, digits and _ . : -`
        : iss.code === "invalid_type"
          ? "mcpServers must be an object keyed by server id"
          : undefined,
  }),
});
export type McpWorkspace = z.infer<typeof McpWorkspaceSchema>;

/** A workspace file that does not validate; `problems` lists one line per issue. */
export class McpWorkspaceError extends Error {
  constructor(
    readonly source: string,
    readonly problems: string[],
  ) {
    super(`${source}: invalid MCP workspace file:\n${problems.map((p) => `  - ${p}`).join("\n")}`);
    this.name = "McpWorkspaceError";
  }
}

/** Formats a zod issue path for people: `mcpServers.DataServer.args[1]` → `DataServer: args[1]`. */
function describeIssue(issue: z.core.$ZodIssue): string {
  const p = issue.path.map(String);
  let where: string;
  if (p[0] === "mcpServers" && p.length >= 2) {
    const field = issue.path
      .slice(2)
      .map((k) => (typeof k === "number" ? `[${k}]` : `.${String(k)}`))
      .join("")
      .replace(/^\./, "");
    where = `server "${p[1]}"${field ? `, field ${field}` : ""}`;
  } else {
    where = p.length > 0 ? `field ${p.join(".")}` : "file";
  }
  let message = issue.message;
  if (issue.code === "unrecognized_keys") message = `unknown field(s) ${issue.keys.map((k) => `"${k}"`).join(", ")}`;
  return `${where}: ${message}`;
}

/**
 * Validates a parsed workspace object. Throws {@link McpWorkspaceError} naming each bad server and
 * field (e.g. `server "DataServer", field command: command is required …`).
 */
export function parseWorkspace(value: unknown, source = "MCP workspace"): McpWorkspace {
  const r = McpWorkspaceSchema.safeParse(value);
  if (!r.success) throw new McpWorkspaceError(source, r.error.issues.map(describeIssue));
  return r.data;
}

/**
 * Reads and validates the workspace file at `file`. Throws {@link McpWorkspaceError} when the file
 * is missing, is not JSON, or does not validate.
 */
export async function loadWorkspaceFile(file: string): Promise<McpWorkspace> {
  let text: string;
  try {
    text = await fs.readFile(file, "utf8");
  } catch (e) {
    throw new McpWorkspaceError(file, [`cannot read the file: ${(e as Error).message}`]);
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (e) {
    throw new McpWorkspaceError(file, [`not valid JSON: ${(e as Error).message}`]);
  }
  return parseWorkspace(json, path.basename(file));
}
