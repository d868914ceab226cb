/**
 * The schema registry's built-ins (server/schemas/registry.ts; Clutch Protocol §3): every
 * payload Clutch defines round-trips zod → JSON Schema → validation of recorded events; a
 * violation names the failing field by JSON pointer; the API lists and serves them.
 */
import fs from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { BUILTIN_PAYLOAD_TYPES, MESSAGE_TYPES } from "@/lib/protocol/payloads";
import type { StoredEvent } from "@/lib/protocol";
import type { SchemaDetail, SchemaSummary } from "@/lib/api/types";
import type { Clutch } from "@/server/clutch";
import { parseSchemaRef, payloadTypeRef, SchemaRegistry } from "@/server/schemas/registry";
import * as listRoute from "@/app/api/schemas/route";
import * as getRoute from "@/app/api/schemas/[...ref]/route";
import { requestAs, testClutch, testPerson, type TestPrincipal } from "./helpers";

const registry = new SchemaRegistry();
const recorded = fs
  .readFileSync("test/fixtures/runs/sales-run.jsonl", "utf8")
  .split("\n")
  .filter(Boolean)
  .map((line) => JSON.parse(line) as StoredEvent);

describe("schema registry: built-ins", () => {
  it("names payload types as §3.2 does, and refs parse back", () => {
    expect(payloadTypeRef("research.summary.v1")).toBe("schema://clutch/research/summary@1");
    expect(payloadTypeRef("review.feedback.v1")).toBe("schema://clutch/review/feedback@1");
    expect(payloadTypeRef("not-versioned")).toBeNull();
    expect(parseSchemaRef("schema://clutch/research/summary@1")).toEqual({ name: "clutch/research/summary", version: 1 });
    expect(parseSchemaRef("schema://clutch/research/summary")).toBeNull();
    expect(parseSchemaRef("schema://Clutch/x@0")).toBeNull();
  });

  it("has a schema for every message type's payload and every built-in payload type", () => {
    const refs = registry.list().map((s) => s.ref);
    for (const type of MESSAGE_TYPES) expect(refs).toContain(`schema://clutch/message/${type}@1`);
    for (const type of Object.keys(BUILTIN_PAYLOAD_TYPES)) expect(registry.forPayloadType(type)?.payload_type).toBe(type);
    expect(new Set(refs).size).toBe(refs.length);
  });

  it("validates every payload of a recorded run against its message type's schema and its payload type's", () => {
    expect(recorded.length).toBeGreaterThan(40);
    for (const ev of recorded) {
      expect(registry.validate(registry.forMessageType(ev.type).ref, ev.payload), `${ev.type} at seq ${ev.seq}`).toBeNull();
      const byType = ev.payload_type ? registry.forPayloadType(ev.payload_type) : undefined;
      if (byType) expect(registry.validate(byType.ref, ev.payload), `${ev.payload_type} at seq ${ev.seq}`).toBeNull();
    }
    expect(recorded.some((ev) => ev.payload_type === "review.feedback.v1")).toBe(true);
  });

  it("refuses a payload that does not match, with the JSON pointer of the failing field", () => {
    const ref = "schema://clutch/research/summary@1";
    expect(registry.validate(ref, { findings: ["a"], citations: ["https://example.com"] })).toBeNull();
    expect(registry.validate(ref, { findings: "a", citations: [] })).toEqual({ pointer: "/findings", message: expect.stringMatching(/array/) });
    expect(registry.validate(ref, { findings: [] })).toEqual({ pointer: "/citations", message: expect.stringMatching(/required/) });
    const feedback = registry.forPayloadType("review.feedback.v1")!.ref;
    expect(registry.validate(feedback, { decision: "maybe", comments: "", blocking_issues: [] })?.pointer).toBe("/decision");
    expect(() => registry.validate("schema://clutch/nope@1", {})).toThrow(/unknown schema/);
  });
});

describe("schema registry: the API", () => {
  let rt: Clutch;
  let member: TestPrincipal;
  beforeAll(async () => {
    rt = await testClutch();
    member = await testPerson(rt, "member", "Sam Schema");
  });
  afterAll(async () => {
    await rt?.stop();
  });

  it("GET /api/schemas lists every schema by ref; GET /api/schemas/<name>@<version> serves one with its JSON Schema; an unknown one is a 404", async () => {
    const list = await listRoute.GET(requestAs(member, "http://test/api/schemas"), undefined as never);
    expect(list.status).toBe(200);
    const { schemas } = (await list.json()) as { schemas: SchemaSummary[] };
    expect(schemas.find((s) => s.payload_type === "research.summary.v1")).toMatchObject({ ref: "schema://clutch/research/summary@1", version: 1, source: "builtin" });
    expect(schemas.some((s) => s.message_type === "task.request")).toBe(true);
    expect(schemas[0]).not.toHaveProperty("json_schema");

    const ref = ["clutch", "research", "summary@1"];
    const one = await getRoute.GET(requestAs(member, `http://test/api/schemas/${ref.join("/")}`), { params: Promise.resolve({ ref }) });
    expect(one.status).toBe(200);
    const { schema } = (await one.json()) as { schema: SchemaDetail };
    expect(schema.json_schema).toMatchObject({ $schema: "https://json-schema.org/draft/2020-12/schema", required: ["findings", "citations"] });

    const missing = await getRoute.GET(requestAs(member, "http://test/api/schemas/clutch/nope@1"), { params: Promise.resolve({ ref: ["clutch", "nope@1"] }) });
    expect(missing.status).toBe(404);
    expect(((await missing.json()) as { error: { message: string } }).error.message).toMatch(/no schema schema:\/\/clutch\/nope@1/);
  });
});
