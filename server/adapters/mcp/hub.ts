/**
 * The MCP hub: Clutch's client side of MCP (Clutch Protocol §2.3 and §7.3 "mcp" adapter; seed 000
 * "MCP Integration" and `mcp_bindings`). It starts the MCP servers of a workspace file over stdio
 * with the official SDK (`Client` + `StdioClientTransport`), lazily, lists their tools, checks every
 * call against the calling agent's CAP `mcp_bindings` before sending it, and restarts a server that
 * crashed on the next call.
 *
 * ```ts
 * const hub = await McpHub.fromFile("examples/sales-analysis/mcp.json"); // servers run in examples/sales-analysis
 * const { result, duration_ms } = await hub.callTool({
 *   bindings: manifest.mcp_bindings, server_id: "DataServer", tool: "query_data",
 *   arguments: { sql: "SELECT region, SUM(sales) AS sales FROM orders GROUP BY region" }, timeout_ms: 10_000,
 * });
 * // failures throw McpToolError: { code, message, retryable, duration_ms } → a tool.error event
 * await hub.close();
 * ```
 */
import fs from "node:fs";
import path from "node:path";
import type { Readable } from "node:stream";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { getDefaultEnvironment, StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { ErrorCode, McpError, type CallToolResult, type Tool } from "@modelcontextprotocol/sdk/types.js";
import { z } from "zod";
import { CapMcpBindingSchema, type CapMcpBinding } from "@/lib/protocol/cap";
import { log } from "@/server/log";
import { McpToolError } from "./errors";
import { DEFAULT_CALL_TIMEOUT_MS, DEFAULT_START_TIMEOUT_MS, loadWorkspaceFile, parseWorkspace, type McpServerEntry, type McpWorkspace } from "./workspace";

export { McpToolError, isMcpToolError, type ToolErrorCode } from "./errors";
export { truncateForEvent, DEFAULT_EVENT_RESULT_BYTES, type TruncatedResult } from "./truncate";

/** Lifecycle of one server process, as the hub sees it. */
export type McpServerState = "stopped" | "starting" | "running" | "crashed" | "closed";

/** What {@link McpHub.status} reports per server. */
export interface McpServerStatus {
  server_id: string;
  state: McpServerState;
  /** OS process id while running, else null. */
  pid: number | null;
  /** Processes started so far (the first start included). */
  starts: number;
  /** Starts after a crash. */
  restarts: number;
  /** How the last process ended, when it ended on its own (e.g. "connection closed"). */
  last_exit: string | null;
  disabled: boolean;
}

/** A tool as listed by its server: `input_schema` is the JSON Schema of its arguments. */
export interface McpToolInfo {
  server_id: string;
  name: string;
  title?: string;
  description?: string;
  input_schema: Tool["inputSchema"];
  output_schema?: Tool["outputSchema"];
}

/** A request to {@link McpHub.callTool}. */
export interface CallToolRequest {
  /** The calling agent's CAP `mcp_bindings` (seed 000): the only servers and tools it may use. */
  bindings: readonly CapMcpBinding[];
  server_id: string;
  tool: string;
  /** The tool's JSON arguments (an object); default `{}`. */
  arguments?: Record<string, unknown>;
  /** Time limit for the call in ms (default: the server's `timeout_ms`, else 30 000). */
  timeout_ms?: number;
  /** Aborting it cancels the call (`TOOL_CANCELLED`). */
  signal?: AbortSignal;
}

/** A successful call. */
export interface CallToolSuccess {
  /** `structuredContent` when the tool returned it; else its text (JSON-parsed when it is JSON); else its content array. */
  result: unknown;
  /** Wall time of the call in ms, including a lazy (re)start of the server. */
  duration_ms: number;
  /** The raw MCP result, for callers that need every content item. */
  raw: CallToolResult;
}

/** Options of {@link McpHub}. */
export interface McpHubOptions {
  /** Directory server commands run in and relative `cwd`s resolve against (the repo root). Default `process.cwd()`. */
  cwd?: string;
  /** Called with each line a server writes to stderr (default: logged at debug level). */
  onStderr?: (server_id: string, line: string) => void;
}

const CallRequestSchema = z.object({
  bindings: z.array(CapMcpBindingSchema, { error: "bindings must be the agent's mcp_bindings array" }),
  server_id: z.string().min(1, "server_id must not be empty"),
  tool: z.string().min(1, "tool must not be empty"),
  arguments: z.record(z.string(), z.unknown(), { error: "arguments must be a JSON object" }).optional(),
  timeout_ms: z.number().int().positive().max(600_000, "timeout_ms is at most 600000 (10 minutes)").optional(),
});

/** `prlimit` (util-linux), which starts a program under a resource limit; null where there is none. */
const PRLIMIT = process.platform === "linux" ? (["/usr/bin/prlimit", "/bin/prlimit"].find((p) => fs.existsSync(p)) ?? null) : null;

/**
 * The command that starts a server under `memory_limit_mb`: on Linux, `prlimit --data=<bytes>`
 * execs the server with RLIMIT_DATA set, so an allocation past the limit fails inside the server
 * (DuckDB answers "Out of Memory") instead of growing the machine's memory. Elsewhere the limit
 * cannot be enforced: the server starts as it is and a warning says so.
 */
export function withMemoryLimit(server_id: string, command: string, args: string[], memory_limit_mb: number | undefined): { command: string; args: string[] } {
  if (!memory_limit_mb) return { command, args };
  if (!PRLIMIT) {
    log.warn({ server_id, memory_limit_mb }, "memory_limit_mb is not enforced on this system (needs Linux with prlimit)");
    return { command, args };
  }
  return { command: PRLIMIT, args: [`--data=${memory_limit_mb * 1024 * 1024}`, "--", command, ...args] };
}

/** Crash-loop guard: after this many failed starts in a row, wait {@link START_BACKOFF_MS} before trying again. */
const MAX_FAILED_STARTS = 3;
const START_BACKOFF_MS = 5_000;
const STDERR_TAIL_CHARS = 4_000;

/**
 * Checks a call against CAP `mcp_bindings` (seed 000: "permissions are enforced by binding
 * definitions"). Returns null when `tool` of `server_id` is allowed (bindings for the same server
 * add up), else a `TOOL_NOT_ALLOWED` {@link McpToolError} (retryable false, duration 0) whose message
 * says what to change. Tool names match exactly; there are no wildcards.
 */
export function checkBinding(bindings: readonly CapMcpBinding[], server_id: string, tool: string): McpToolError | null {
  const forServer = bindings.filter((b) => b.server_id === server_id);
  if (forServer.length === 0) {
    const bound = [...new Set(bindings.map((b) => b.server_id))];
    return new McpToolError(
      "TOOL_NOT_ALLOWED",
      `MCP server "${server_id}" is not in this agent's mcp_bindings (bound: ${bound.length > 0 ? bound.join(", ") : "none"}). ` +
        `Use a bound server, or add a binding for "${server_id}" to the agent's manifest.`,
      server_id,
      tool,
      false,
    );
  }
  const allowed = [...new Set(forServer.flatMap((b) => b.allowed_tools))];
  if (!allowed.includes(tool)) {
    return new McpToolError(
      "TOOL_NOT_ALLOWED",
      `tool "${tool}" of ${server_id} is not in this agent's allowed_tools for ${server_id} (${allowed.length > 0 ? allowed.join(", ") : "none"}). ` +
        `Use an allowed tool, or add "${tool}" to allowed_tools in the agent's manifest.`,
      server_id,
      tool,
      false,
    );
  }
  return null;
}

/**
 * The result value of an MCP tool result: `structuredContent` when present; else, when every
 * content item is text, the joined text, JSON-parsed when it parses; else the content array.
 */
export function resultValue(r: CallToolResult): unknown {
  if (r.structuredContent !== undefined && r.structuredContent !== null) return r.structuredContent;
  const content = r.content ?? [];
  if (content.length > 0 && content.every((c) => c.type === "text")) {
    const text = content.map((c) => (c as { text: string }).text).join("\n");
    const t = text.trim();
    if ((t.startsWith("{") || t.startsWith("[") || t.startsWith('"')) && t.length > 1) {
      try {
        return JSON.parse(t);
      } catch {
        // not JSON: the text itself
      }
    }
    return text;
  }
  return content;
}

function errorText(r: CallToolResult): string {
  const text = (r.content ?? [])
    .filter((c) => c.type === "text")
    .map((c) => (c as { text: string }).text)
    .join("\n")
    .trim();
  return text || "the tool reported an error without a message";
}

interface Running {
  client: Client;
  transport: StdioClientTransport;
  tools: Tool[];
  pid: number | null;
  /** Set when the process went away; pending calls then fail as TOOL_UNAVAILABLE (retryable). */
  ended: boolean;
}

interface Slot {
  id: string;
  entry: McpServerEntry;
  state: McpServerState;
  running?: Running;
  starting?: Promise<Running>;
  starts: number;
  restarts: number;
  failedStarts: number;
  lastFailureAt: number;
  lastExit: string | null;
  stderrTail: string;
}

/** Client for the MCP servers of one workspace file. One instance per process; not shared across processes. */
export class McpHub {
  private readonly slots = new Map<string, Slot>();
  private readonly cwd: string;
  private closed = false;

  /**
   * Creates a hub over a validated workspace (see workspace.ts); nothing starts until first use.
   * Throws `McpWorkspaceError` when `workspace` does not validate.
   */
  constructor(
    workspace: McpWorkspace | unknown,
    private readonly opts: McpHubOptions = {},
  ) {
    const ws = parseWorkspace(workspace);
    this.cwd = path.resolve(opts.cwd ?? process.cwd());
    for (const [id, entry] of Object.entries(ws.mcpServers)) {
      this.slots.set(id, { id, entry, state: "stopped", starts: 0, restarts: 0, failedStarts: 0, lastFailureAt: 0, lastExit: null, stderrTail: "" });
    }
  }

  /**
   * Reads and validates the workspace file `file` (e.g. examples/sales-analysis/mcp.json) and
   * returns a hub over it. Servers run in the file's own folder, so relative paths in it (a
   * script in `args`, a folder in `env`, a server's `cwd`) mean the same wherever Clutch was
   * started; `opts.cwd` overrides that. Throws `McpWorkspaceError` naming the file, server and
   * field of each problem.
   */
  static async fromFile(file: string, opts: McpHubOptions = {}): Promise<McpHub> {
    const resolved = path.resolve(file);
    return new McpHub(await loadWorkspaceFile(resolved), { ...opts, cwd: opts.cwd ?? path.dirname(resolved) });
  }

  /** The server ids of the workspace, in file order. */
  serverIds(): string[] {
    return [...this.slots.keys()];
  }

  /** State of every server (see {@link McpServerStatus}). */
  status(): McpServerStatus[] {
    return [...this.slots.values()].map((s) => ({
      server_id: s.id,
      state: s.state,
      pid: s.running?.pid ?? null,
      starts: s.starts,
      restarts: s.restarts,
      last_exit: s.lastExit,
      disabled: s.entry.disabled === true,
    }));
  }

  /**
   * The tools of `server_id`, starting the server if needed. Throws {@link McpToolError}
   * `TOOL_UNAVAILABLE` when the server is unknown or disabled (retryable false) or cannot start
   * (retryable true).
   */
  async listTools(server_id: string): Promise<McpToolInfo[]> {
    const slot = this.slotFor(server_id, "tools/list");
    const running = await this.ensureRunning(slot, "tools/list");
    return running.tools.map((t) => toInfo(server_id, t));
  }

  /**
   * The tools an agent may call: for each server in `bindings` (seed 000 `mcp_bindings`), the tools
   * its server lists that are also in `allowed_tools`. Servers that are unknown or fail to start are
   * reported in `unavailable` with the reason instead of failing the whole listing.
   */
  async toolsFor(bindings: readonly CapMcpBinding[]): Promise<{ tools: McpToolInfo[]; unavailable: { server_id: string; message: string }[] }> {
    const tools: McpToolInfo[] = [];
    const unavailable: { server_id: string; message: string }[] = [];
    const servers = [...new Set(bindings.map((b) => b.server_id))];
    await Promise.all(
      servers.map(async (id) => {
        const allowed = new Set(bindings.filter((b) => b.server_id === id).flatMap((b) => b.allowed_tools));
        try {
          for (const t of await this.listTools(id)) if (allowed.has(t.name)) tools.push(t);
        } catch (e) {
          unavailable.push({ server_id: id, message: e instanceof Error ? e.message : String(e) });
        }
      }),
    );
    const order = new Map(servers.map((s, i) => [s, i]));
    tools.sort((a, b) => order.get(a.server_id)! - order.get(b.server_id)! || (a.name < b.name ? -1 : 1));
    return { tools, unavailable };
  }

  /**
   * Calls `tool` on `server_id` for an agent whose CAP `mcp_bindings` are `bindings`
   * (Clutch §2.3: the caller turns the outcome into tool.call → tool.result | tool.error).
   *
   * Order of checks: the request shape (`INVALID_CALL`); the bindings, before anything is sent
   * (`TOOL_NOT_ALLOWED`, retryable false); the server exists and is enabled (`TOOL_UNAVAILABLE`,
   * retryable false); the server is running, started or restarted on demand (`TOOL_UNAVAILABLE`,
   * retryable true when it cannot start); the server offers the tool (`TOOL_UNAVAILABLE`, retryable
   * false). Then the call, with `timeout_ms` (default: the server's `timeout_ms`, else 30 000 ms):
   * no answer in time → `TOOL_TIMEOUT` (retryable; the server is told to cancel); the process ends
   * during the call → `TOOL_UNAVAILABLE` (retryable; the next call restarts it); the tool returns
   * `isError` or rejects the arguments → `TOOL_ERROR` (retryable false, the tool's message);
   * `signal` aborts → `TOOL_CANCELLED`.
   *
   * Returns {@link CallToolSuccess}; throws {@link McpToolError} (with `duration_ms`) otherwise.
   */
  async callTool(req: CallToolRequest): Promise<CallToolSuccess> {
    const parsed = CallRequestSchema.safeParse(req);
    if (!parsed.success) {
      const what = parsed.error.issues.map((i) => `${i.path.join(".") || "request"}: ${i.message}`).join("; ");
      throw new McpToolError("INVALID_CALL", `invalid tool call: ${what}`, String(req?.server_id ?? ""), String(req?.tool ?? ""), false);
    }
    const { bindings, server_id, tool, timeout_ms } = parsed.data;
    const args = parsed.data.arguments ?? {};

    const refusal = checkBinding(bindings, server_id, tool);
    if (refusal) throw refusal;

    const slot = this.slotFor(server_id, tool);
    const started = performance.now();
    const elapsed = () => Math.round(performance.now() - started);

    let running: Running;
    try {
      running = await this.ensureRunning(slot, tool);
    } catch (e) {
      if (e instanceof McpToolError) throw new McpToolError(e.code, e.message, server_id, tool, e.retryable, elapsed(), e.details);
      throw e;
    }
    if (!running.tools.some((t) => t.name === tool)) {
      throw new McpToolError(
        "TOOL_UNAVAILABLE",
        `${server_id} has no tool "${tool}"; it offers: ${running.tools.map((t) => t.name).join(", ") || "no tools"}`,
        server_id,
        tool,
        false,
        elapsed(),
      );
    }

    const timeout = timeout_ms ?? slot.entry.timeout_ms ?? DEFAULT_CALL_TIMEOUT_MS;
    let raw: CallToolResult;
    try {
      raw = (await running.client.callTool({ name: tool, arguments: args }, undefined, {
        timeout,
        signal: req.signal,
      })) as CallToolResult;
    } catch (e) {
      throw this.callFailure(e, slot, running, tool, timeout, elapsed(), req.signal);
    }
    if (raw.isError) {
      throw new McpToolError("TOOL_ERROR", errorText(raw), server_id, tool, false, elapsed());
    }
    return { result: resultValue(raw), duration_ms: elapsed(), raw };
  }

  /** Stops one server's process (it starts again on the next call). Resolves when it has exited. */
  async stop(server_id: string): Promise<void> {
    const slot = this.slots.get(server_id);
    if (!slot) return;
    const running = slot.running ?? (await slot.starting?.catch(() => undefined));
    slot.running = undefined;
    if (running) {
      running.ended = true;
      await running.client.close().catch(() => undefined);
    }
    if (slot.state !== "closed") slot.state = "stopped";
  }

  /** Stops every server process and refuses later calls (`TOOL_UNAVAILABLE`). Safe to call twice. */
  async close(): Promise<void> {
    this.closed = true;
    await Promise.all([...this.slots.keys()].map((id) => this.stop(id)));
    for (const s of this.slots.values()) s.state = "closed";
  }

  // -------------------------------------------------------------------------------------------

  private slotFor(server_id: string, tool: string): Slot {
    if (this.closed) throw new McpToolError("TOOL_UNAVAILABLE", "the MCP hub is closed (the server is shutting down)", server_id, tool, false);
    const slot = this.slots.get(server_id);
    if (!slot) {
      throw new McpToolError(
        "TOOL_UNAVAILABLE",
        `no MCP server "${server_id}" in the workspace file (servers: ${this.serverIds().join(", ") || "none"}); add it under mcpServers`,
        server_id,
        tool,
        false,
      );
    }
    if (slot.entry.disabled) {
      throw new McpToolError("TOOL_UNAVAILABLE", `MCP server "${server_id}" is disabled in the workspace file`, server_id, tool, false);
    }
    return slot;
  }

  private async ensureRunning(slot: Slot, tool: string): Promise<Running> {
    if (slot.running && !slot.running.ended) return slot.running;
    if (slot.starting) return slot.starting;
    if (slot.failedStarts >= MAX_FAILED_STARTS) {
      const wait = slot.lastFailureAt + START_BACKOFF_MS - Date.now();
      if (wait > 0) {
        throw new McpToolError(
          "TOOL_UNAVAILABLE",
          `MCP server "${slot.id}" failed to start ${slot.failedStarts} times in a row; next attempt in ${Math.ceil(wait / 1000)} s. Last error: ${slot.lastExit ?? "unknown"}`,
          slot.id,
          tool,
          true,
        );
      }
    }
    const wasCrashed = slot.state === "crashed";
    slot.state = "starting";
    slot.starting = this.start(slot)
      .then((r) => {
        slot.running = r;
        slot.state = "running";
        slot.failedStarts = 0;
        slot.starts++;
        if (wasCrashed) slot.restarts++;
        return r;
      })
      .catch((e: unknown) => {
        slot.state = "crashed";
        slot.failedStarts++;
        slot.lastFailureAt = Date.now();
        const reason = e instanceof Error ? e.message : String(e);
        slot.lastExit = `failed to start: ${reason}`;
        throw new McpToolError(
          "TOOL_UNAVAILABLE",
          `MCP server "${slot.id}" could not start: ${reason}${this.stderrHint(slot)}`,
          slot.id,
          tool,
          true,
        );
      })
      .finally(() => {
        slot.starting = undefined;
      });
    return slot.starting;
  }

  private async start(slot: Slot): Promise<Running> {
    const { entry } = slot;
    const { command, args } = withMemoryLimit(slot.id, entry.command === "node" ? process.execPath : entry.command, entry.args, entry.memory_limit_mb);
    const cwd = entry.cwd ? path.resolve(this.cwd, entry.cwd) : this.cwd;
    const transport = new StdioClientTransport({
      command,
      args,
      env: { ...getDefaultEnvironment(), ...entry.env },
      cwd,
      stderr: "pipe",
    });
    slot.stderrTail = "";
    const stderr = transport.stderr as Readable | null;
    let partial = "";
    stderr?.on("data", (chunk: Buffer | string) => {
      const text = chunk.toString();
      slot.stderrTail = (slot.stderrTail + text).slice(-STDERR_TAIL_CHARS);
      const lines = (partial + text).split("\n");
      partial = lines.pop() ?? "";
      for (const line of lines) if (line.trim()) this.emitStderr(slot.id, line);
    });

    const client = new Client({ name: "clutch-mcp-hub", version: "0.1.0" }, { capabilities: {} });
    const running: Running = { client, transport, tools: [], pid: null, ended: false };
    client.onclose = () => {
      if (running.ended) return;
      running.ended = true;
      if (slot.running === running) {
        slot.running = undefined;
        if (slot.state !== "closed") {
          slot.state = "crashed";
          slot.lastExit = "the process ended (connection closed)";
          log.warn({ server_id: slot.id, stderr: slot.stderrTail.slice(-500) }, "MCP server stopped; it restarts on the next call");
        }
      }
    };
    client.onerror = (e) => log.debug({ server_id: slot.id, err: e.message }, "MCP transport error");

    const startTimeout = entry.start_timeout_ms ?? DEFAULT_START_TIMEOUT_MS;
    try {
      await client.connect(transport, { timeout: startTimeout });
      running.pid = transport.pid;
      const tools: Tool[] = [];
      let cursor: string | undefined;
      do {
        const page = await client.listTools(cursor ? { cursor } : undefined, { timeout: startTimeout });
        tools.push(...page.tools);
        cursor = page.nextCursor;
      } while (cursor);
      running.tools = tools;
      log.debug({ server_id: slot.id, pid: running.pid, tools: tools.map((t) => t.name) }, "MCP server started");
      return running;
    } catch (e) {
      running.ended = true;
      await client.close().catch(() => undefined);
      throw e;
    }
  }

  private callFailure(e: unknown, slot: Slot, running: Running, tool: string, timeout: number, duration: number, signal?: AbortSignal): McpToolError {
    const id = slot.id;
    const message = e instanceof Error ? e.message : String(e);
    if (signal?.aborted) return new McpToolError("TOOL_CANCELLED", `the call to ${id}.${tool} was cancelled`, id, tool, false, duration);
    if (running.ended || (e instanceof McpError && e.code === ErrorCode.ConnectionClosed)) {
      return new McpToolError(
        "TOOL_UNAVAILABLE",
        `MCP server "${id}" stopped while running ${tool} (${slot.lastExit ?? message}); it will be restarted on the next call${this.stderrHint(slot)}`,
        id,
        tool,
        true,
        duration,
      );
    }
    if (e instanceof McpError && e.code === ErrorCode.RequestTimeout) {
      return new McpToolError("TOOL_TIMEOUT", `${id}.${tool} did not answer within ${timeout} ms; the call was cancelled`, id, tool, true, duration, { timeout_ms: timeout });
    }
    return new McpToolError("TOOL_ERROR", `${id}.${tool} failed: ${message}`, id, tool, false, duration);
  }

  private stderrHint(slot: Slot): string {
    const tail = slot.stderrTail.trim().split("\n").slice(-3).join(" | ").slice(-400);
    return tail ? ` (server stderr: ${tail})` : "";
  }

  private emitStderr(server_id: string, line: string): void {
    if (this.opts.onStderr) this.opts.onStderr(server_id, line);
    else log.debug({ server_id, line }, "MCP server stderr");
  }
}

function toInfo(server_id: string, t: Tool): McpToolInfo {
  return {
    server_id,
    name: t.name,
    ...(t.title ? { title: t.title } : {}),
    ...(t.description ? { description: t.description } : {}),
    input_schema: t.inputSchema,
    ...(t.outputSchema ? { output_schema: t.outputSchema } : {}),
  };
}
