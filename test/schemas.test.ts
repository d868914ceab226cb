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
import * as eventsRoute from "@/app/api/events/route";
import { newId } from "@/lib/protocol";
import { chat, msg, newThread, requestAs, testAgent, testClutch, testPerson, type TestPrincipal } from "./helpers";

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
  let agent: TestPrincipal;
  /** A domain of this run's own: the test database outlives a run, and versions never change. */
  const domain = `t${newId("task").slice(-8).toLowerCase()}`;
  const forecast = {
    type: "object",
    properties: { region: { type: "string" }, rows: { type: "array", items: { type: "object", properties: { month: { type: "string" }, amount: { type: "number" } }, required: ["month", "amount"] } } },
    required: ["region", "rows"],
  };
  const post = (as: TestPrincipal, body: unknown) =>
    listRoute.POST(requestAs(as, "http://test/api/schemas", { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) }), undefined as never);
  const errorOf = async (res: Response) => ((await res.json()) as { error: { code: string; message: string; issues?: { pointer?: string }[] } }).error;
  beforeAll(async () => {
    rt = await testClutch();
    member = await testPerson(rt, "member", "Sam Schema");
    agent = await testAgent(rt);
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

  it("a person adds a payload type and then a second version; both live side by side, each with who added it", async () => {
    const v1 = await post(member, { payload_type: `${domain}.forecast.v1`, description: "A monthly sales forecast", json_schema: forecast });
    expect(v1.status).toBe(201);
    const { schema } = (await v1.json()) as { schema: SchemaDetail };
    expect(schema).toMatchObject({ ref: `schema://clutch/${domain}/forecast@1`, name: `clutch/${domain}/forecast`, version: 1, payload_type: `${domain}.forecast.v1`, source: "added", created_by: member.agent_id, description: "A monthly sales forecast" });

    const v2Schema = { ...forecast, properties: { ...forecast.properties, currency: { type: "string", enum: ["EUR", "USD"] } }, required: ["region", "rows", "currency"] };
    const v2 = await post(agent, { payload_type: `${domain}.forecast.v2`, json_schema: v2Schema });
    expect(v2.status).toBe(201);

    const ref = ["clutch", domain, "forecast@2"];
    const one = await getRoute.GET(requestAs(member, `http://test/api/schemas/${ref.join("/")}`), { params: Promise.resolve({ ref }) });
    const body = (await one.json()) as { schema: SchemaDetail; versions: SchemaSummary[] };
    expect(body.schema).toMatchObject({ version: 2, created_by: agent.agent_id, json_schema: v2Schema });
    expect(body.versions.map((v) => v.version)).toEqual([1, 2]);

    const list = (await (await listRoute.GET(requestAs(member, "http://test/api/schemas"), undefined as never)).json()) as { schemas: SchemaSummary[] };
    expect(list.schemas.filter((s) => s.name === `clutch/${domain}/forecast`).map((s) => s.ref)).toEqual([`schema://clutch/${domain}/forecast@1`, `schema://clutch/${domain}/forecast@2`]);
  });

  it("refuses a version that exists (naming the next), a built-in, Clutch's own domain, and a JSON Schema that is not one, with where", async () => {
    await post(member, { payload_type: `${domain}.lead.v1`, json_schema: { type: "object" } });
    const again = await post(member, { payload_type: `${domain}.lead.v1`, json_schema: { type: "object", required: ["x"] } });
    expect(again.status).toBe(409);
    expect(await errorOf(again)).toMatchObject({ code: "schema_exists", message: expect.stringContaining(`add ${domain}.lead.v2 instead`) });

    const builtin = await post(member, { payload_type: "research.summary.v1", json_schema: { type: "object" } });
    expect(builtin.status).toBe(409);
    expect((await errorOf(builtin)).message).toMatch(/built in.*add research\.summary\.v2/);

    const own = await post(member, { payload_type: "message.thing.v1", json_schema: { type: "object" } });
    expect(await errorOf(own)).toMatchObject({ code: "invalid_schema", message: expect.stringMatching(/domain "message" is Clutch's own/) });

    const badType = await post(member, { payload_type: `${domain}.bad.v1`, json_schema: { type: "object", properties: { n: { type: "numbr" } } } });
    expect(badType.status).toBe(400);
    expect(await errorOf(badType)).toMatchObject({ code: "invalid_schema", message: expect.stringContaining("json_schema/properties/n/type") });

    const notObject = await post(member, { payload_type: `${domain}.bad.v1`, json_schema: { type: "array" } });
    expect((await errorOf(notObject)).message).toMatch(/type must be "object"/);

    const badName = await post(member, { payload_type: "Sales Forecast", json_schema: { type: "object" } });
    expect(await errorOf(badName)).toMatchObject({ code: "invalid_body", message: expect.stringMatching(/<domain>\.<name>\.v<version>/) });
    // Nothing of the refused ones was stored.
    await rt.schemas.refresh();
    expect(rt.schemas.forPayloadType(`${domain}.bad.v1`)).toBeUndefined();
    expect(rt.schemas.versionsOf(`clutch/${domain}/lead`).map((v) => v.json_schema)).toEqual([{ type: "object" }]);
  });

  it("on ingest, a message naming a registered payload_type must match it: a violation is refused with its JSON pointer and nothing of the batch is stored", async () => {
    await post(member, { payload_type: `${domain}.note.v1`, json_schema: { type: "object", properties: { text: { type: "string" }, figures: { type: "array", items: { type: "number" } } }, required: ["text", "figures"] } });
    const thread_id = await newThread(rt, "schemas");
    const run_id = newId("run");
    const send = (body: unknown) =>
      eventsRoute.POST(requestAs(agent, "http://test/api/events", { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) }), undefined as never);

    const good = chat("Q3 figures", { thread_id, run_id, payload_type: `${domain}.note.v1` });
    const bad = { ...chat("Q4 figures", { thread_id, run_id, payload_type: `${domain}.note.v1` }), payload: { text: "Q4 figures", figures: [1, "two"] } };
    const refused = await send([{ ...good, payload: { text: "Q3 figures", figures: [1, 2] } }, bad]);
    expect(refused.status).toBe(400);
    const error = await errorOf(refused);
    expect(error.code).toBe("invalid_event");
    expect(error.message).toBe(`message 1: ${domain}.note.v1 (schema://clutch/${domain}/note@1): /payload/figures/1 must be number; nothing was stored`);
    expect(error.issues![0]).toMatchObject({ pointer: "/payload/figures/1", path: [1, "payload", "figures", 1] });
    expect((await rt.store.read({ thread_id })).events.filter((e) => e.run_id === run_id)).toEqual([]);

    const missing = await send({ ...good, payload: { text: "Q3 figures" } });
    expect((await errorOf(missing)).message).toMatch(/\/payload\/figures must have required property 'figures'/);

    expect((await send({ ...good, payload: { text: "Q3 figures", figures: [1, 2] } })).status).toBe(201);
    // An unregistered payload type is the sender's own contract: accepted as it is.
    expect((await send(chat("free form", { thread_id, run_id, payload_type: `${domain}.unregistered.v1` }))).status).toBe(201);

    // A task.request's input is checked against its input_type.
    const request = msg("task.request", { title: "Forecast", input_type: `${domain}.note.v1`, input: { text: "x", figures: "none" } }, { thread_id, run_id, task_id: newId("task"), to: [{ agent_id: "agent:nobody" }] });
    expect(await errorOf(await send(request))).toMatchObject({ code: "invalid_event", issues: [{ pointer: "/payload/input/figures" }] });
  });

  it("a schema added on one node is enforced by another from its first use", async () => {
    const other = new SchemaRegistry(null);
    expect(await other.check("anything.at.v1", {})).toBeNull();
    const thread_id = await newThread(rt, "schemas");
    const second = await testClutch();
    try {
      await post(member, { payload_type: `${domain}.late.v1`, json_schema: { type: "object", required: ["due"] } });
      const refused = second.store.append(chat("no due date", { thread_id, run_id: newId("run"), payload_type: `${domain}.late.v1` }));
      await expect(refused).rejects.toMatchObject({ code: "invalid_event", message: expect.stringContaining("/payload/due must have required property 'due'") });
    } finally {
      await second.stop();
    }
  });
});
