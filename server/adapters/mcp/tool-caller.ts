/**
 * The runner's door to MCP (Clutch Protocol §2.3): calls go through the McpHub,
 * which checks the agent's mcp_bindings before sending; a large result is kept whole in the
 * artifact store and only a preview goes into the tool.result event (Clutch Protocol §8.2).
 */
import { isMcpToolError, truncateForEvent, type McpHub } from "./hub";
import type { ArtifactStore } from "../../artifacts/store";
import { isClutchError } from "../../errors";
import type { ToolCaller } from "../../workspace/tools";
import type { OfferedTool } from "../../agents/runner";

export class McpToolCaller implements ToolCaller {
  constructor(
    private readonly hub: McpHub,
    private readonly artifacts: ArtifactStore,
  ) {}

  /** Tools of the given servers; a server that cannot start offers none (its calls fail visibly). */
  async listTools(server_ids: string[]): Promise<OfferedTool[]> {
    const out: OfferedTool[] = [];
    for (const server_id of [...new Set(server_ids)]) {
      try {
        for (const t of await this.hub.listTools(server_id)) {
          out.push({ server_id, name: t.name, description: t.description, inputSchema: t.input_schema as Record<string, unknown> });
        }
      } catch {
        // listed as unavailable: the agent simply is not offered its tools this step
      }
    }
    return out;
  }

  async callTool(req: Parameters<ToolCaller["callTool"]>[0]): ReturnType<ToolCaller["callTool"]> {
    try {
      const r = await this.hub.callTool({ bindings: req.agent.manifest.mcp_bindings, server_id: req.server_id, tool: req.tool, arguments: req.arguments, signal: req.signal });
      const cut = truncateForEvent(r.result);
      if (!cut.truncated) return { ok: true, result: r.result, duration_ms: r.duration_ms };
      const { ref } = await this.artifacts.put(cut.full, "application/json");
      return { ok: true, result: cut.preview, duration_ms: r.duration_ms, truncated: true, artifact_ref: ref };
    } catch (err) {
      if (isMcpToolError(err)) return { ok: false, code: err.code, message: err.message, retryable: err.retryable, duration_ms: err.duration_ms };
      // A result over the artifact size limit will be as large on a retry.
      if (isClutchError(err) && err.code === "artifact_too_large") return { ok: false, code: "TOOL_ERROR", message: `the tool's result could not be kept: ${err.message}`, retryable: false, duration_ms: 0 };
      return { ok: false, code: "TOOL_ERROR", message: (err as Error).message, retryable: true, duration_ms: 0 };
    }
  }
}
