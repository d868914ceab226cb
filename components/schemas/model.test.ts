/** The /schemas page's model: grouping versions, filtering, the next version, URLs, and the diff of two versions. */
import { describe, expect, it } from "vitest";
import type { SchemaSummary } from "@/lib/api/types";
import { diffSchemas, filterGroups, groupSchemas, nextPayloadType, refOfSegments, schemaHref } from "./model";

const s = (o: Partial<SchemaSummary> & Pick<SchemaSummary, "ref" | "name" | "version">): SchemaSummary => ({ description: "", source: "added", producers: [], consumers: [], ...o });
const schemas = [
  s({ ref: "schema://clutch/message/task.request@1", name: "clutch/message/task.request", version: 1, message_type: "task.request", source: "builtin" }),
  s({ ref: "schema://clutch/sales/forecast@2", name: "clutch/sales/forecast", version: 2, payload_type: "sales.forecast.v2", producers: ["agent:analyst-1"] }),
  s({ ref: "schema://clutch/sales/forecast@1", name: "clutch/sales/forecast", version: 1, payload_type: "sales.forecast.v1" }),
  s({ ref: "schema://clutch/research/summary@1", name: "clutch/research/summary", version: 1, payload_type: "research.summary.v1", source: "builtin" }),
];

describe("schemas page model", () => {
  it("groups versions by name, oldest first, payload types before message payloads", () => {
    const groups = groupSchemas(schemas);
    expect(groups.map((g) => [g.label, g.kind, g.versions.map((v) => v.version), g.latest.version])).toEqual([
      ["research.summary", "payload", [1], 1],
      ["sales.forecast", "payload", [1, 2], 2],
      ["task.request", "message", [1], 1],
    ]);
    expect(nextPayloadType(groups[1]!)).toBe("sales.forecast.v3");
    expect(nextPayloadType(groups[2]!)).toBeNull();
  });

  it("filters by label, payload type and producer", () => {
    const groups = groupSchemas(schemas);
    expect(filterGroups(groups, "FORECAST").map((g) => g.label)).toEqual(["sales.forecast"]);
    expect(filterGroups(groups, "analyst").map((g) => g.label)).toEqual(["sales.forecast"]);
    expect(filterGroups(groups, "nothing")).toEqual([]);
    expect(filterGroups(groups, " ")).toHaveLength(3);
  });

  it("maps refs to page URLs and back", () => {
    expect(schemaHref("schema://clutch/sales/forecast@2")).toBe("/schemas/clutch/sales/forecast@2");
    expect(refOfSegments(["clutch", "sales", "forecast%402"])).toBe("schema://clutch/sales/forecast@2");
    expect(refOfSegments(["clutch", "bad%"])).toBe("schema://clutch/bad%");
    expect(refOfSegments([])).toBeNull();
  });

  it("diffs two versions line by line", () => {
    const d = diffSchemas({ type: "object", required: ["a"] }, { type: "object", required: ["a", "b"] });
    expect(d.added).toBeGreaterThan(0);
    expect(d.lines.filter((l) => l.op === "add").map((l) => l.text.trim())).toContain('"b"');
    expect(d.lines.filter((l) => l.op === "same").map((l) => l.text.trim())).toContain('"type": "object",');
    expect(diffSchemas({ a: 1 }, { a: 1 })).toMatchObject({ added: 0, removed: 0 });
  });
});
