import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { McpHub } from "./hub";
import { loadWorkspaceFile, McpWorkspaceError, parseWorkspace } from "./workspace";

function problems(value: unknown): string[] {
  try {
    parseWorkspace(value, "mcp.json");
  } catch (e) {
    if (e instanceof McpWorkspaceError) return e.problems;
    throw e;
  }
  throw new Error("expected the workspace to be rejected");
}

describe("MCP workspace file", () => {
  it("accepts the example workspace and fills defaults", async () => {
    const ws = await loadWorkspaceFile("examples/sales-analysis/mcp.json");
    expect(Object.keys(ws.mcpServers)).toEqual(["DocsServer", "DataServer", "SummaryServer"]);
    expect(ws.mcpServers.SummaryServer).toMatchObject({ command: "node", env: {} });
    expect(parseWorkspace({ mcpServers: { A: { command: "x" } } }).mcpServers.A).toEqual({ command: "x", args: [], env: {} });
  });

  it("names the server and field of each problem", () => {
    expect(
      problems({
        mcpServers: {
          DataServer: { args: ["a", 3] },
          DocsServer: { command: "node", env: { PORT: 1 }, timeout_ms: -5, comand: "typo" },
        },
      }),
    ).toEqual([
      'server "DataServer", field command: command is required: the program to run, e.g. "node"',
      'server "DataServer", field args[1]: every args entry must be a string',
      'server "DocsServer", field env.PORT: env values must be strings',
      'server "DocsServer", field timeout_ms: timeout_ms must be more than 0',
      'server "DocsServer": unknown field(s) "comand"',
    ]);
    expect(problems({ servers: {} })).toEqual(["field mcpServers: mcpServers must be an object keyed by server id"]);
    expect(problems({ mcpServers: { "bad id": { command: "x" } } })[0]).toMatch(/a server id may use letters, digits/);
  });

  it("reports a missing file and bad JSON with the file name", async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "clutch-ws-"));
    try {
      const bad = path.join(dir, "mcp.json");
      fs.writeFileSync(bad, "{ not json");
      await expect(loadWorkspaceFile(bad)).rejects.toThrow(/mcp\.json: invalid MCP workspace file:\n {2}- not valid JSON/);
      await expect(McpHub.fromFile(path.join(dir, "missing.json"))).rejects.toThrow(/missing\.json: invalid MCP workspace file:\n {2}- cannot read the file/);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
