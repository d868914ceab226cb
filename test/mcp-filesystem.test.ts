/**
 * The official MCP filesystem server (`@modelcontextprotocol/server-filesystem`) as a bound server
 * of the example workspace examples/agents-from-anywhere (docs/adapters.md): its mcp.json names the
 * server and the folder it may read with paths relative to the workspace folder, where the hub
 * starts it; notes-1's binding lets it read the trip notes, and nothing outside them.
 */
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { McpHub, McpToolError } from "@/server/adapters/mcp/hub";
import { loadWorkspace, type WorkspaceAgent } from "@/server/workspace/workspace";

let hub: McpHub;
let notes: WorkspaceAgent;

beforeAll(async () => {
  const workspace = loadWorkspace("examples/agents-from-anywhere");
  notes = workspace.agents.get("agent:notes-1")!;
  hub = await McpHub.fromFile(workspace.mcpConfigPath!);
});
afterAll(async () => {
  await hub?.close();
});

const text = (result: unknown) => JSON.stringify(result);

describe("the filesystem server bound in the example workspace", () => {
  it("offers its tools over the notes folder its mcp.json names relative to the workspace", async () => {
    const tools = (await hub.listTools("files")).map((t) => t.name);
    expect(tools).toEqual(expect.arrayContaining(["read_text_file", "list_directory", "search_files"]));
    // The server runs in the workspace folder, so "trip-notes" is the folder beside mcp.json.
    const allowed = await hub.callTool({ bindings: [{ server_id: "files", scopes: [], allowed_tools: ["list_allowed_directories"] }], server_id: "files", tool: "list_allowed_directories", arguments: {} });
    expect(text(allowed.result)).toContain(path.resolve("examples/agents-from-anywhere/trip-notes"));
    const listed = await hub.callTool({ bindings: notes.manifest.mcp_bindings, server_id: "files", tool: "list_directory", arguments: { path: "." } });
    expect(text(listed.result)).toContain("lisbon.md");
    const read = await hub.callTool({ bindings: notes.manifest.mcp_bindings, server_id: "files", tool: "read_text_file", arguments: { path: "lisbon.md" } });
    expect(text(read.result)).toContain("Hotel Avenida Palace");
  });

  it("refuses a path outside the notes, and a tool the binding does not allow", async () => {
    const outside = await hub.callTool({ bindings: notes.manifest.mcp_bindings, server_id: "files", tool: "read_text_file", arguments: { path: "../../../package.json" } }).then(
      (r) => text(r.result),
      (e: McpToolError) => e.message,
    );
    expect(outside).toMatch(/Access denied|outside allowed directories/i);
    expect(outside).not.toContain('"name": "clutch"');
    await expect(hub.callTool({ bindings: notes.manifest.mcp_bindings, server_id: "files", tool: "write_file", arguments: { path: "trip-notes/x.md", content: "x" } })).rejects.toThrow(/write_file/);
  });
});
