/**
 * HTTP webhook agents (Clutch Protocol §7.3): an external agent whose AgentCard names a webhook URL
 * receives the task addressed to it as a signed POST (Standard Webhooks, verified here with the
 * `standardwebhooks` package and the secret the agent reads with its own key), retried after a
 * 500, and answers through POST /api/events; a webhook that never takes the task ends it with
 * WEBHOOK_UNREACHABLE instead of leaving it waiting.
 */
import fs from "node:fs";
import http from "node:http";
import os from "node:os";
import path from "node:path";
import type { AddressInfo } from "node:net";
import { Webhook } from "standardwebhooks";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { makeMessage, newId, type StoredEvent } from "@/lib/protocol";
import type { Clutch } from "@/server/clutch";
import { registerAgent } from "@/server/router/registration";
import { GET as webhookInfo } from "@/app/api/agents/[agent_id]/webhook/route";
import { POST as postEvents } from "@/app/api/events/route";
import { waitFor } from "./agents";
import { requestAs, taskRow, testAgent, testClutch, type TestPrincipal } from "./helpers";

const DANA = { agent_id: "user:dana", role: "human", display_name: "Dana" };
let rt: Clutch;
let thread_id: string;
let server: http.Server;
let base: string;
/** What the agent's webhook received, and how it answers each call (default 200). */
const received: { headers: http.IncomingHttpHeaders; body: string }[] = [];
let answers: number[] = [];
/** Paths whose first call gets no answer at all (a receiver that hangs). */
const hangOnce = new Set<string>();
let workspaceDir: string;

beforeAll(async () => {
  server = http.createServer((req, res) => {
    let body = "";
    req.on("data", (c) => (body += c));
    req.on("end", () => {
      received.push({ headers: req.headers, body });
      if (hangOnce.delete(req.url ?? "")) return; // no answer: the delivery hangs until it is cut short
      res.writeHead(answers.shift() ?? 200).end();
    });
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "clutch-ws-"));
  fs.mkdirSync(path.join(dir, "agents"));
  fs.writeFileSync(path.join(dir, "agents", "lead-1.json"), JSON.stringify({ id: "lead-1", system_prompt: "You are lead-1.", allowed_agents: [], delegate_rules: {}, overseer: null, mcp_bindings: [] }));
  fs.writeFileSync(path.join(dir, "mcp.json"), JSON.stringify({ mcpServers: {} }));
  const channel = `hook-${newId("thread").slice(-8).toLowerCase()}`;
  fs.writeFileSync(path.join(dir, "workspace.json"), JSON.stringify({ channels: [{ name: channel, entry_agent: "lead-1", answers: "every_message" }], lifecycle: { retry_delay_ms: 20 } }));
  workspaceDir = dir;
  rt = await testClutch({ workspaceDir: dir, dataDir: fs.mkdtempSync(path.join(os.tmpdir(), "clutch-data-")), modelFor: () => ({}) as never });
  thread_id = rt.channels[0]!.thread_id;
});
afterAll(async () => {
  await rt?.stop();
  server?.close();
});

/** A registered external agent with a webhook at `pathname`, and its API key. */
async function webhookAgent(pathname: string): Promise<{ agent_id: string; key: TestPrincipal }> {
  const agent_id = `agent:hook-${newId("task").slice(-6).toLowerCase()}`;
  await registerAgent(rt.store, rt.registry, { v: "clutch/0.1", agent_id, display: { name: "Hook" }, capabilities: [{ id: "skill:hooks", version: "1.0" }], endpoints: { webhook: { url: base + pathname } } });
  return { agent_id, key: await testAgent(rt, agent_id) };
}

/** A person's task for `agent_id` in the workspace's channel. */
async function ask(agent_id: string): Promise<StoredEvent> {
  const at = { thread_id, run_id: newId("run"), task_id: newId("task") };
  return (await rt.store.append(makeMessage({ type: "task.request", ...at, from: DANA, to: [{ agent_id }], payload: { title: "Count the orders" } }))).events[0]!;
}

describe("a webhook agent", () => {
  it("gets its task as a signed POST, retried after a 500, and answers through the events API", async () => {
    const { agent_id, key } = await webhookAgent("/ok");
    const info = await webhookInfo(requestAs(key, `http://localhost:3000/api/agents/${encodeURIComponent(agent_id)}/webhook`), { params: Promise.resolve({ agent_id }) });
    expect(info.status).toBe(200);
    const { url, secret } = (await info.json()) as { url: string; secret: string };
    expect(url).toBe(`${base}/ok`);
    expect(secret).toMatch(/^whsec_/);

    answers = [500];
    const before = received.length;
    const request = await ask(agent_id);
    const deadline = Date.now() + 10_000;
    while (received.length < before + 2 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
    const [first, second] = received.slice(before);
    expect(second, "a second delivery after the 500").toBeDefined();
    expect(first!.headers["webhook-id"]).toBe(request.id);
    expect(second!.headers["webhook-id"]).toBe(request.id); // the same id on a retry, so the receiver can drop repeats
    // The signature verifies with the agent's secret; a tampered body does not.
    const delivered = new Webhook(secret).verify(second!.body, second!.headers as Record<string, string>) as StoredEvent;
    expect(delivered).toMatchObject({ id: request.id, type: "task.request", seq: request.seq, to: [{ agent_id }] });
    expect(() => new Webhook(secret).verify(second!.body.replace("Count", "Drop"), second!.headers as Record<string, string>)).toThrow();

    // The agent answers with its key, addressed to whoever asked.
    const reply = (type: "task.accept" | "task.result", payload: Record<string, unknown>) =>
      makeMessage({ type, thread_id: delivered.thread_id, run_id: delivered.run_id, task_id: delivered.task_id, from: { agent_id, role: "worker" }, to: [delivered.from], payload });
    const res = await postEvents(
      requestAs(key, "http://localhost:3000/api/events", { method: "POST", body: JSON.stringify([reply("task.accept", { agent_id }), reply("task.result", { summary: "5,009 orders" })]), headers: { "content-type": "application/json" } }),
      { params: Promise.resolve({}) },
    );
    expect(res.status).toBe(201);
    expect((await taskRow(rt, request.task_id)).state).toBe("succeeded");
  });

  it("that never takes its task ends it with WEBHOOK_UNREACHABLE, after every attempt", async () => {
    const { agent_id } = await webhookAgent("/down");
    answers = [503, 503, 503];
    const before = received.length;
    const request = await ask(agent_id);
    const error = await waitFor(rt, thread_id, "the delivery's failure", (evs) => evs.find((e) => e.type === "task.error" && e.task_id === request.task_id), 15_000);
    expect(error.payload).toMatchObject({ code: "WEBHOOK_UNREACHABLE", retryable: true });
    expect(String(error.payload.message)).toContain("did not take the task after 3 attempts: HTTP 503");
    expect(error.to).toEqual([DANA, { agent_id }]);
    expect(received.slice(before).filter((r) => r.headers["webhook-id"] === request.id)).toHaveLength(3);
    // The error is addressed to the agent too, so its webhook is told the task ended.
    const deadline = Date.now() + 5_000;
    while (!received.some((r) => r.headers["webhook-id"] === error.id) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
    expect(received.some((r) => r.headers["webhook-id"] === error.id)).toBe(true);
    expect((await taskRow(rt, request.task_id)).state).toBe("failed");
  });
});

describe.skipIf(inject("embeddedDatabase"))("a webhook delivery cut short by a stop", () => {
  it("is made again by the next node to lead, with the same webhook-id, and then no more", async () => {
    const { agent_id } = await webhookAgent("/hang");
    hangOnce.add("/hang");
    const deployment = `test.${newId("task")}`;
    const node = () => testClutch({ workspaceDir, dataDir: fs.mkdtempSync(path.join(os.tmpdir(), "clutch-data-")), modelFor: () => ({}) as never, deployment });
    const first = await node();
    const at = { thread_id, run_id: newId("run"), task_id: newId("task") };
    // The delivery is a job committed with the request; the first node takes it and the receiver hangs.
    const request = (await first.store.append(makeMessage({ type: "task.request", ...at, from: DANA, to: [{ agent_id }], payload: { title: "Count the returns" } }))).events[0]!;
    const deliveries = () => received.filter((r) => r.headers["webhook-id"] === request.id).length;
    const until = async (n: number, ms: number) => {
      const end = Date.now() + ms;
      while (deliveries() < n && Date.now() < end) await new Promise((r) => setTimeout(r, 25));
    };
    await until(1, 10_000);
    expect(deliveries()).toBe(1);
    await first.stop({ graceMs: 2000 });

    const second = await node();
    try {
      await until(2, 20_000);
      expect(deliveries(), "delivered again after the stop").toBe(2);
      // Answered 200 this time: the job is done, and nothing is delivered a third time.
      await new Promise((r) => setTimeout(r, 3000));
      expect(deliveries()).toBe(2);
      expect(received.filter((r) => r.headers["webhook-id"] === request.id).map((r) => JSON.parse(r.body).id)).toEqual([request.id, request.id]);
    } finally {
      await second.stop({ graceMs: 2000 });
    }
  });
});
