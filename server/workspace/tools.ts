/**
 * How a workspace agent's MCP tools are called (Clutch Protocol §2.3): the interface the agent
 * loop (server/agents), compensation (server/lifecycle/compensation.ts) and the orchestrator
 * call, which server/adapters/mcp/tool-caller.ts implements over the MCP hub.
 */
import type { WorkspaceAgent } from "./workspace";

/** How MCP calls are made (server/adapters/mcp/tool-caller.ts). */
export interface ToolCaller {
  callTool(req: {
    agent: WorkspaceAgent;
    server_id: string;
    tool: string;
    arguments: Record<string, unknown>;
    /** Aborts the call (the task was cancelled or timed out): it fails with TOOL_CANCELLED. */
    signal?: AbortSignal;
  }): Promise<
    | { ok: true; result: unknown; duration_ms: number; truncated?: boolean; artifact_ref?: string }
    | { ok: false; code: string; message: string; retryable: boolean; duration_ms: number }
  >;
}

