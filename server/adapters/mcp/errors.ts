/**
 * Typed failures of an MCP tool call, ready to become a `tool.error` event (Clutch Protocol §2.3;
 * error body as in §5.4: `code`, `message`, `retryable`).
 *
 * | code               | when                                                                    | retryable |
 * | ------------------ | ----------------------------------------------------------------------- | --------- |
 * | `TOOL_NOT_ALLOWED` | the agent's CAP `mcp_bindings` do not bind the server or allow the tool | false     |
 * | `TOOL_UNAVAILABLE` | unknown/disabled server or tool (retryable false); server failed to start or stopped during the call (retryable true) | both |
 * | `TOOL_TIMEOUT`     | no answer within `timeout_ms`                                           | true      |
 * | `TOOL_ERROR`       | the tool ran and reported an error (`isError`), or rejected the input   | false     |
 * | `TOOL_CANCELLED`   | the caller aborted the call                                             | false     |
 * | `INVALID_CALL`     | the call itself is malformed (bad arguments object, bad timeout)        | false     |
 */
import { ClutchError, isClutchError } from "@/server/errors";

export const TOOL_ERROR_CODES = ["TOOL_NOT_ALLOWED", "TOOL_UNAVAILABLE", "TOOL_TIMEOUT", "TOOL_ERROR", "TOOL_CANCELLED", "INVALID_CALL"] as const;
export type ToolErrorCode = (typeof TOOL_ERROR_CODES)[number];

const STATUS: Record<ToolErrorCode, number> = {
  TOOL_NOT_ALLOWED: 403,
  TOOL_UNAVAILABLE: 503,
  TOOL_TIMEOUT: 504,
  TOOL_ERROR: 502,
  TOOL_CANCELLED: 499,
  INVALID_CALL: 400,
};

/** A failed or refused tool call. `duration_ms` is 0 when the call was refused before sending. */
export class McpToolError extends ClutchError {
  declare readonly code: ToolErrorCode;
  constructor(
    code: ToolErrorCode,
    message: string,
    readonly server_id: string,
    readonly tool: string,
    readonly retryable: boolean,
    readonly duration_ms = 0,
    readonly details?: Record<string, unknown>,
  ) {
    super(code, message, STATUS[code]);
    this.name = "McpToolError";
  }

  /**
   * The `tool.error` payload fields (Clutch §2.3, lib/protocol ToolErrorPayload) except `call_id`:
   * `{ tool, server_id, code, message, retryable, duration_ms, details? }`.
   */
  toPayload(): { tool: string; server_id: string; code: ToolErrorCode; message: string; retryable: boolean; duration_ms: number; details?: Record<string, unknown> } {
    return {
      tool: this.tool,
      server_id: this.server_id,
      code: this.code,
      message: this.message,
      retryable: this.retryable,
      duration_ms: this.duration_ms,
      ...(this.details ? { details: this.details } : {}),
    };
  }
}

/** True for an {@link McpToolError} (also from another copy of this module). */
export function isMcpToolError(e: unknown): e is McpToolError {
  return isClutchError(e) && (e as { name?: string }).name === "McpToolError" && (TOOL_ERROR_CODES as readonly string[]).includes(e.code);
}
