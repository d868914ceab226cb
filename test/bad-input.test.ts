/**
 * Input that PostgreSQL cannot store is refused at the boundary with a 4xx that names the field,
 * and nothing is stored (docs/limits.md): NUL characters, lone surrogates, deep nesting,
 * timestamps out of range, `__proto__` keys, oversized bodies. Real route handlers, real PostgreSQL.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { MAX_JSON_DEPTH, PROTOCOL_VERSION } from "@/lib/protocol";
import type { Clutch } from "@/server/clutch";
import * as eventsRoute from "@/app/api/events/route";
import * as threadsRoute from "@/app/api/threads/route";
import * as messagesRoute from "@/app/api/threads/[thread_id]/messages/route";
import * as agentsRoute from "@/app/api/agents/route";
import * as importRoute from "@/app/api/runs/import/route";
import { MAX_JSON_BODY_BYTES } from "@/app/api/_lib/http";
import { newThread, rawChat, requestAs, testAgent, testClutch, testPerson, type TestPrincipal } from "./helpers";

let rt: Clutch;
let thread_id: string;
/** The sender of `rawChat` messages (agent:tester), and a person for the routes people use. */
let tester: TestPrincipal;
let admin: TestPrincipal;
beforeAll(async () => {
  rt = await testClutch();
  thread_id = await newThread(rt, "bad-input");
  tester = await testAgent(rt);
  admin = await testPerson(rt, "admin");
});
afterAll(() => rt.stop());

const post = (body: string, url = "http://test/api", as: TestPrincipal = tester) => requestAs(as, url, { method: "POST", headers: { "content-type": "application/json" }, body });
const params = <T>(p: T) => ({ params: Promise.resolve(p) });
const stored = async () => (await rt.store.read({ thread_id }, { limit: 5000 })).events.length;

const event = (payload: unknown, extra: Record<string, unknown> = {}) => rawChat(thread_id, payload, extra);

/** The JSON text of `message` with `payload.data` nested `depth` levels deep (too deep for JSON.stringify). */
const withDeepData = (message: Record<string, unknown>, depth: number) =>
  JSON.stringify(message).replace('"payload":{', `"payload":{"data":${'{"v":'.repeat(depth)}"leaf"${"}".repeat(depth)},`);

async function refused(res: Response, status: number, code: string, message: RegExp) {
  const body = (await res.json()) as { error: { code: string; message: string } };
  expect({ status: res.status, code: body.error.code }).toEqual({ status, code });
  expect(body.error.message).toMatch(message);
}

describe("POST /api/events refuses what cannot be stored, and stores nothing", () => {
  const cases: [string, string, RegExp][] = [
    ["a NUL character in the text", JSON.stringify(event({ text: "a\u0000b" })), /payload\.text contains a NUL character/],
    ["a NUL character in an id", JSON.stringify(event({ text: "hi" }, { task_id: "task_\u0000" })), /task_id contains a NUL character/],
    ["a lone surrogate", JSON.stringify(event({ text: "x" })).replace('"x"', '"\\ud800"'), /payload\.text contains an unpaired UTF-16 surrogate/],
    ["a payload nested 10,000 deep", withDeepData(event({ text: "deep" }), 10_000), new RegExp(`nested more than ${MAX_JSON_DEPTH} levels`)],
    ["a __proto__ key", JSON.stringify(event({ text: "hi" })).replace('"text"', '"__proto__":{"admin":true},"text"'), /payload\.__proto__ is a key named __proto__/],
  ];
  for (const [what, body, message] of cases) {
    it(`${what}: 400 invalid_json naming the field`, async () => {
      const before = await stored();
      await refused(await eventsRoute.POST(post(body), undefined as never), 400, "invalid_json", message);
      expect(await stored()).toBe(before);
    });
  }

  for (const ts of ["0000-01-01T00:00:00Z", "9999-12-31T23:59:59-23:59", "1969-12-31T23:59:59Z"]) {
    it(`ts ${ts}: 400 invalid_event`, async () => {
      const before = await stored();
      await refused(await eventsRoute.POST(post(JSON.stringify(event({ text: "hi" }, { ts }))), undefined as never), 400, "invalid_event", /ts must fall between 1970/);
      expect(await stored()).toBe(before);
    });
  }

  it("a text of more than a million characters in one message: 400", async () => {
    const before = await stored();
    const big = event({ text: "short", data: Array.from({ length: 11 }, () => "x".repeat(100_000)) });
    await refused(await eventsRoute.POST(post(JSON.stringify(big)), undefined as never), 400, "invalid_event", /too large: 1,100,\d{3} characters of text, over the limit of 1,000,000/);
    expect(await stored()).toBe(before);
  });

  it("a body over the limit: 413 body_too_large, read no further than the limit", async () => {
    const before = await stored();
    let pulled = 0;
    const chunk = new TextEncoder().encode(" ".repeat(1024 * 1024));
    const endless = new ReadableStream<Uint8Array>({
      pull(controller) {
        pulled += chunk.byteLength;
        controller.enqueue(chunk);
      },
    });
    const req = requestAs(tester, "http://test/api", { method: "POST", body: endless, duplex: "half" } as RequestInit);
    await refused(await eventsRoute.POST(req, undefined as never), 413, "body_too_large", /larger than 8 MiB/);
    expect(pulled).toBeLessThanOrEqual(MAX_JSON_BODY_BYTES + 2 * chunk.byteLength);
    expect(await stored()).toBe(before);
  });

  it("a body that declares a length over the limit: 413 before it is read", async () => {
    const req = requestAs(tester, "http://test/api", { method: "POST", headers: { "content-length": String(MAX_JSON_BODY_BYTES + 1) }, body: "{}" });
    await refused(await eventsRoute.POST(req, undefined as never), 413, "body_too_large", /larger than/);
  });
});

describe("other write endpoints refuse the same input", () => {
  it("a channel topic with a NUL character", async () => {
    await refused(await threadsRoute.POST(post(JSON.stringify({ name: `nul-${Date.now()}`, topic: "a\u0000b" }), undefined, admin), undefined as never), 400, "invalid_json", /topic contains a NUL/);
  });

  it("a person's message with a lone surrogate", async () => {
    const before = await stored();
    const res = await messagesRoute.POST(post('{"text":"\\udc00"}', undefined, admin), params({ thread_id }));
    await refused(res, 400, "invalid_json", /text contains an unpaired UTF-16 surrogate/);
    expect(await stored()).toBe(before);
  });

  it("an AgentCard with a NUL character", async () => {
    const card = { v: PROTOCOL_VERSION, agent_id: "agent:nul", display: { name: "N\u0000L" }, capabilities: [] };
    await refused(await agentsRoute.POST(post(JSON.stringify(card), undefined, admin), undefined as never), 400, "invalid_json", /display\.name contains a NUL/);
    expect(rt.registry.has("agent:nul")).toBe(false);
  });

  it("an import whose line is nested 10,000 deep names the line", async () => {
    const lines = [JSON.stringify(event({ text: "fine" })), withDeepData(event({ text: "deep" }), 10_000)].join("\n");
    const res = await importRoute.POST(post(lines, `http://test/api/runs/import?thread_id=${thread_id}`, admin), undefined as never);
    await refused(res, 400, "invalid_jsonl", /^line 2 at payload\.data.*nested more than 64 levels/);
  });
});

describe("a task_id is one task of one run", () => {
  it("a message that reuses another run's task_id gets 409 task_id_taken, and the other run's task is untouched", async () => {
    const task_id = `task_${Date.now()}`;
    const request = rawChat(thread_id, { title: "Mine" }, { type: "task.request", task_id, to: [{ agent_id: "agent:ken" }] });
    expect((await eventsRoute.POST(post(JSON.stringify(request)), undefined as never)).status).toBe(201);
    const before = await stored();
    const hijack = rawChat(thread_id, { text: "into another run's task" }, { task_id });
    const res = await eventsRoute.POST(post(JSON.stringify(hijack)), undefined as never);
    await refused(res, 409, "task_id_taken", new RegExp(`^task_id ${task_id} belongs to run ${request.run_id}, not ${hijack.run_id}`));
    expect(await stored()).toBe(before);
    expect((await rt.store.queries.task(task_id))?.state).toBe("pending");

    const twoRuns = [rawChat(thread_id, { title: "a" }, { type: "task.request", task_id: `${task_id}_b` }), rawChat(thread_id, { title: "b" }, { type: "task.request", task_id: `${task_id}_b` })];
    await refused(await eventsRoute.POST(post(JSON.stringify(twoRuns)), undefined as never), 409, "task_id_taken", /belongs to run/);
    expect(await stored()).toBe(before);
  });
});
