/**
 * `POST /api/events` served from the server's own node:http handler (server/http/direct-routes.ts)
 * answers exactly as the route does through Next: 201 with the stored events, 200 for a repeat,
 * the API's error shape for bad JSON, a missing key and an unknown thread;
 * other methods and paths are left to the next handler. A real HTTP server on a real Clutch on
 * PostgreSQL, as server.ts wires it (front door first).
 */
import http, { type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { POST } from "@/app/api/events/route";
import { newId } from "@/lib/protocol";
import type { Clutch } from "@/server/clutch";
import { directRoutes } from "@/server/http/direct-routes";
import { contentSecurityPolicy, frontDoor } from "@/server/http/front-door";
import { chat, newThread, testAgent, testClutch, type TestPrincipal } from "./helpers";

let rt: Clutch;
let server: Server;
let base: string;
let agent: TestPrincipal;
let thread_id: string;

beforeAll(async () => {
  rt = await testClutch();
  agent = await testAgent(rt, `agent:direct-${newId("user").slice(-6).toLowerCase()}`);
  thread_id = await newThread(rt, "direct");
  const direct = directRoutes({ "POST /api/events": POST });
  const csp = contentSecurityPolicy([]);
  server = http.createServer((req, res) => {
    if (frontDoor(req, res, csp)) return;
    if (direct(req, res)) return;
    res.writeHead(404, { "content-type": "text/plain" });
    res.end("left to Next");
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  await new Promise<void>((r) => server?.close(() => r()));
  await rt?.stop();
});

const post = (body: string, headers: Record<string, string> = agent.headers, path = "/api/events") =>
  fetch(`${base}${path}`, { method: "POST", headers: { "content-type": "application/json", ...headers }, body });

describe("POST /api/events beside Next", () => {
  it("stores an event and answers 201 with it; the same event again is a 200 with the original", async () => {
    const run_id = newId("run");
    const m = chat("straight to the store", { thread_id, run_id, from: { agent_id: agent.agent_id, role: "worker" } });
    const res = await post(JSON.stringify(m));
    expect(res.status).toBe(201);
    expect(res.headers.get("content-type")).toContain("application/json");
    expect(res.headers.get("content-security-policy")).toContain("img-src");
    const { events } = (await res.json()) as { events: { id: string; seq: number; payload: { text: string } }[] };
    expect(events).toHaveLength(1);
    expect(events[0]).toMatchObject({ id: m.id, payload: { text: "straight to the store" } });
    expect((await rt.store.readAll({ run_id })).map((e) => e.id)).toEqual([m.id]);

    const again = await post(JSON.stringify(m), agent.headers, "/api/events?ignored=1");
    expect(again.status).toBe(200);
    expect(((await again.json()) as { events: { seq: number }[] }).events[0]!.seq).toBe(events[0]!.seq);
  });

  it("answers bad input in the API's error shape and stores nothing", async () => {
    const bad = await post("{not json");
    expect(bad.status).toBe(400);
    expect(((await bad.json()) as { error: { code: string } }).error.code).toBe("invalid_json");

    const run_id = newId("run");
    const m = chat("who am I?", { thread_id, run_id, from: { agent_id: agent.agent_id, role: "worker" } });
    const anonymous = await post(JSON.stringify(m), {});
    expect(anonymous.status).toBe(401);
    expect(((await anonymous.json()) as { error: { code: string; message: string } }).error).toMatchObject({ code: "unauthenticated", message: expect.stringContaining("API key") });

    const nowhere = await post(JSON.stringify(chat("lost", { thread_id: newId("thread"), run_id, from: { agent_id: agent.agent_id, role: "worker" } })));
    expect(nowhere.status).toBe(422);
    expect(await rt.store.readAll({ run_id })).toEqual([]);
  });

  it("leaves other methods and paths to the next handler", async () => {
    const get = await fetch(`${base}/api/events`);
    expect([get.status, await get.text()]).toEqual([404, "left to Next"]);
    const other = await post("{}", agent.headers, "/api/events/extra");
    expect([other.status, await other.text()]).toEqual([404, "left to Next"]);
  });
});
