/** Reading tool outputs defensively: every shape the runner or an MCP server may hand the built-in model. */
import { describe, expect, it } from "vitest";
import { num, outcomeOf, tableOf } from "./playbooks/values";

describe("tool outputs as the built-in model reads them", () => {
  it("unwraps MCP results, JSON text and runner errors", () => {
    const v = { rows: [{ a: 1 }] };
    expect(outcomeOf({ type: "json", value: { content: [{ type: "text", text: JSON.stringify(v) }], structuredContent: v } })).toEqual({ ok: true, value: v });
    expect(outcomeOf({ type: "json", value: { content: [{ type: "text", text: JSON.stringify(v) }] } })).toEqual({ ok: true, value: v });
    expect(outcomeOf({ type: "text", value: JSON.stringify(v) })).toEqual({ ok: true, value: v });
    expect(outcomeOf({ type: "text", value: "sent" })).toEqual({ ok: true, value: "sent" });

    const mcpError = outcomeOf({ type: "json", value: { isError: true, content: [{ type: "text", text: "query_data: Binder Error: column x" }] } });
    expect(mcpError).toMatchObject({ ok: false, error: "query_data: Binder Error: column x" });
    const crashed = outcomeOf({ type: "json", value: { error: { code: "MCP_TIMEOUT", message: "DataServer timed out", retryable: true }, duration_ms: 30000 } });
    expect(crashed).toMatchObject({ ok: false, error: "MCP_TIMEOUT: DataServer timed out", retryable: true });
    expect(outcomeOf({ type: "text", value: "PERMISSION_DENIED: agent:pm-1 may not delegate to agent:x" })).toMatchObject({ ok: false });
    expect(outcomeOf({ type: "error-text", value: "boom" })).toMatchObject({ ok: false, error: "boom" });
    expect(outcomeOf({ type: "json", value: { status: "refused", reason: "not bound" } })).toMatchObject({ ok: false });
  });

  it("reads rows given as arrays or objects, and numbers given as strings", () => {
    expect(tableOf({ columns: [{ name: "region" }, { name: "sales" }], rows: [["West", "79806.318"]], truncated: true })).toEqual({
      columns: ["region", "sales"],
      rows: [{ region: "West", sales: "79806.318" }],
      truncated: true,
    });
    expect(tableOf({ columns: ["a"], rows: [{ a: 1 }] })!.rows).toEqual([{ a: 1 }]);
    expect(tableOf([{ a: 1 }])!.rows).toEqual([{ a: 1 }]);
    expect(tableOf({ result: { rows: [{ a: 2 }] } })!.rows).toEqual([{ a: 2 }]);
    expect(tableOf("no table")).toBeNull();
    expect(num("79806.318")).toBe(79806.318);
    expect(num("$1,234.50")).toBe(1234.5);
    expect(num(12n)).toBe(12);
    expect(num({ value: "3" })).toBe(3);
    expect(num("West")).toBeNull();
    expect(num(null)).toBeNull();
    expect(num(Number.NaN)).toBeNull();
  });
});
