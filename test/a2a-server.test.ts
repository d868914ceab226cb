/**
 * Clutch as an A2A server (Clutch Protocol §7.2, docs/adapters.md "A2A"), driven by the official
 * `@a2a-js/sdk` client and by raw v0.3 JSON-RPC as LangGraph's and CrewAI's clients send it.
 * The workspace's agent travel-1 is itself an A2A agent (examples/agents-from-anywhere/travel-agent.ts), so a request goes
 * client → Clutch → travel agent and back: the card lists the agents; a streamed message starts a
 * run in the channel, its progress streams back, a question becomes input-required and the
 * caller's answer continues the task to its artifact; tasks/get, resubscribe and tasks/cancel reach the run;
 * a call without a Clutch key is refused with a message.
 */
import fs from "node:fs";
import http from "node:http";
import os from "node:os";
import path from "node:path";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ClientFactory, type Client } from "@a2a-js/sdk/client";
import { AgentCard, Role, TaskState, type StreamResponse } from "@a2a-js/sdk";
import { newId } from "@/lib/protocol";
import type { Clutch } from "@/server/clutch";
import { a2aApp } from "@/server/adapters/a2a/server";
import { runRow, testClutch, testPerson, type TestPrincipal } from "./helpers";
import { answer } from "./agents";
import { startA2AAgent, type ScriptedA2AAgent } from "@/examples/agents-from-anywhere/travel-agent";

let rt: Clutch;
let remote: ScriptedA2AAgent;
let server: http.Server;
let base: string;
let dana: TestPrincipal;
let client: Client;
let channel: string;

beforeAll(async () => {
  remote = await startA2AAgent();
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "clutch-ws-"));
  fs.mkdirSync(path.join(dir, "agents"));
  fs.writeFileSync(
    path.join(dir, "agents", "travel-1.json"),
    JSON.stringify({ id: "travel-1", system_prompt: "Books flights.", allowed_agents: [], delegate_rules: {}, overseer: null, mcp_bindings: [], capabilities: [{ id: "skill:travel" }], runtime: { kind: "a2a", card_url: remote.card_url } }),
  );
  fs.writeFileSync(path.join(dir, "mcp.json"), JSON.stringify({ mcpServers: {} }));
  channel = `a2a-in-${newId("thread").slice(-8).toLowerCase()}`;
  fs.writeFileSync(path.join(dir, "workspace.json"), JSON.stringify({ channels: [{ name: channel, entry_agent: "travel-1", answers: "every_message" }] }));
  rt = await testClutch({ workspaceDir: dir, dataDir: fs.mkdtempSync(path.join(os.tmpdir(), "clutch-data-")), modelFor: () => ({}) as never });
  server = http.createServer();
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  server.on("request", a2aApp(rt, base));
  dana = await testPerson(rt, "member", "Dana");
  client = await new ClientFactory().createFromUrl(base);
});
afterAll(async () => {
  server?.closeAllConnections();
  server?.close();
  await rt?.stop();
  await remote?.close();
});

const asDana = () => ({ serviceParameters: { authorization: `Bearer ${dana.key}` } });
const message = (text: string, ids: { taskId?: string; contextId?: string } = {}) => ({
  tenant: "",
  message: { messageId: crypto.randomUUID(), role: Role.ROLE_USER, parts: [{ content: { $case: "text" as const, value: text }, metadata: undefined, filename: "", mediaType: "text/plain" }], taskId: ids.taskId ?? "", contextId: ids.contextId ?? "", metadata: {}, extensions: [], referenceTaskIds: [] },
  configuration: undefined,
  metadata: {},
});
const textOf = (r: StreamResponse) =>
  r.payload?.$case === "statusUpdate" ? r.payload.value.status?.message?.parts.map((p) => (p.content?.$case === "text" ? p.content.value : "")).join("") : undefined;
const stateOf = (r: StreamResponse) => (r.payload?.$case === "statusUpdate" ? r.payload.value.status?.state : r.payload?.$case === "task" ? r.payload.value.status?.state : undefined);

async function collect(stream: AsyncGenerator<StreamResponse>, each?: (r: StreamResponse) => void | Promise<void>): Promise<StreamResponse[]> {
  const out: StreamResponse[] = [];
  for await (const r of stream) {
    out.push(r);
    await each?.(r);
  }
  return out;
}

describe("Clutch's A2A server", () => {
  it("publishes the workspace's card and one per agent, in A2A 1.0 and 0.3 shapes", async () => {
    const v1 = await (await fetch(`${base}/.well-known/agent-card.json`, { headers: { "a2a-version": "1.0" } })).json();
    expect(v1.skills.map((s: { id: string }) => s.id)).toEqual(["travel-1"]);
    expect(v1.supportedInterfaces[0]).toMatchObject({ url: `${base}/a2a`, protocolBinding: "JSONRPC" });
    const legacy = await (await fetch(`${base}/a2a/agents/travel-1/.well-known/agent-card.json`)).json();
    expect(legacy).toMatchObject({ name: "travel-1", url: `${base}/a2a/agents/travel-1`, protocolVersion: "0.3" });
    const none = await fetch(`${base}/a2a/agents/nobody/.well-known/agent-card.json`);
    expect(none.status).toBe(404);
    // The SDK reads the 1.0 card with its security scheme intact.
    const read = AgentCard.fromJSON(v1);
    expect(read.securitySchemes.clutchKey?.scheme).toMatchObject({ $case: "httpAuthSecurityScheme", value: { scheme: "Bearer" } });
    expect(read.securityRequirements[0]?.schemes).toHaveProperty("clutchKey");
  });

  it("runs a streamed message in the channel: progress, input-required, the answer, the artifact", async () => {
    const first = await collect(client.sendMessageStream(message("Book me a flight to Lisbon"), asDana()));
    const task = first.find((r) => r.payload?.$case === "task")!.payload!.value as unknown as { id: string; contextId: string; metadata: { clutch: { run_id: string; channel: string } } };
    expect(task.metadata.clutch.channel).toBe(channel);
    expect(first.map(textOf)).toContain("travel-1: Looking at flights…");
    expect(stateOf(first.at(-1)!)).toBe(TaskState.TASK_STATE_INPUT_REQUIRED);
    expect(textOf(first.at(-1)!)).toBe("Which day do you fly?");
    // The run is Clutch's like any other: Dana asked, in the channel.
    const run = await runRow(rt, task.metadata.clutch.run_id);
    expect(run.thread_id).toBe(rt.channels[0]!.thread_id);

    const second = await collect(client.sendMessageStream(message("Friday", { taskId: task.id, contextId: task.contextId }), asDana()));
    const artifact = second.find((r) => r.payload?.$case === "artifactUpdate")!.payload!.value as { artifact: { parts: { content: { $case: string; value: unknown } }[] } };
    expect(artifact.artifact.parts[0]!.content.value).toContain("Flight booked for Friday.");
    expect(stateOf(second.at(-1)!)).toBe(TaskState.TASK_STATE_COMPLETED);
    const got = await client.getTask({ tenant: "", id: task.id }, asDana());
    expect(got.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    expect((await runRow(rt, task.metadata.clutch.run_id)).state).toBe("succeeded");
  });

  it("gives the caller the outcome when someone answered the question in the channel meanwhile", async () => {
    const first = await collect(client.sendMessageStream(message("Book me a flight to Madrid"), asDana()));
    const task = first.find((r) => r.payload?.$case === "task")!.payload!.value as unknown as { id: string; contextId: string; metadata: { clutch: { run_id: string } } };
    expect(stateOf(first.at(-1)!)).toBe(TaskState.TASK_STATE_INPUT_REQUIRED);
    await answer(rt, rt.channels[0]!.thread_id, "Thursday", "Lee");
    await expect.poll(async () => (await runRow(rt, task.metadata.clutch.run_id)).state, { timeout: 10_000 }).toBe("succeeded");
    const second = await collect(client.sendMessageStream(message("Thursday", { taskId: task.id, contextId: task.contextId }), asDana()));
    expect(stateOf(second.at(-1)!)).toBe(TaskState.TASK_STATE_COMPLETED);
    expect(JSON.stringify(second)).toContain("Flight booked for Thursday.");
    // Lee's answer was the one; the caller's did not answer a second time.
    const answers = (await rt.store.readAll({ run_id: task.metadata.clutch.run_id })).filter((e) => e.type === "chat.message" && (e.payload as { reply_to?: string }).reply_to);
    expect(answers.map((e) => e.from.display_name)).toEqual(["Lee"]);
  });

  it("answers the v0.3 method names (message/send, tasks/get)", async () => {
    const rpc = async (method: string, params: unknown) => {
      const res = await fetch(`${base}/a2a/agents/travel-1`, { method: "POST", headers: { "content-type": "application/json", authorization: `Bearer ${dana.key}` }, body: JSON.stringify({ jsonrpc: "2.0", id: 1, method, params }) });
      return (await res.json()) as { result?: Record<string, unknown> & { id: string; status: { state: string } }; error?: unknown };
    };
    const sent = await rpc("message/send", { message: { kind: "message", role: "user", messageId: crypto.randomUUID(), parts: [{ kind: "text", text: "Book a flight to Rome on Monday" }] } });
    expect(sent.error).toBeUndefined();
    expect(sent.result).toMatchObject({ kind: "task", status: { state: "completed" } });
    expect(JSON.stringify(sent.result)).toContain("Flight booked for Monday: Book a flight to Rome on Monday");
    const got = await rpc("tasks/get", { id: sent.result!.id });
    expect(got.result).toMatchObject({ id: sent.result!.id, status: { state: "completed" } });
  });

  it("lets a second client resubscribe, and cancels the run when the client cancels the task", async () => {
    let taskId = "";
    let run_id = "";
    let resubscribed: Promise<StreamResponse[]> | null = null;
    const events = await collect(client.sendMessageStream(message("[slow] Find the cheapest flight anywhere"), asDana()), async (r) => {
      if (r.payload?.$case === "task") {
        taskId = r.payload.value.id;
        run_id = (r.payload.value.metadata as { clutch: { run_id: string } }).clutch.run_id;
      }
      if (textOf(r) === "travel-1: Searching every airline…") {
        resubscribed = collect(client.resubscribeTask({ tenant: "", id: taskId }, asDana()));
        await new Promise((resolve) => setTimeout(resolve, 200));
        await client.cancelTask({ tenant: "", id: taskId, metadata: {} }, asDana());
      }
    });
    expect(stateOf(events.at(-1)!)).toBe(TaskState.TASK_STATE_CANCELED);
    // The resubscribed stream saw the same end.
    expect(stateOf((await resubscribed!).at(-1)!)).toBe(TaskState.TASK_STATE_CANCELED);
    expect((await runRow(rt, run_id)).state).toBe("cancelled");
    await expect.poll(() => remote.cancelled.length, { timeout: 10_000 }).toBeGreaterThan(0);
  });

  it("cancels a task that waits for input at once, over the SDK and v0.3's tasks/cancel", async () => {
    for (const via of ["sdk", "v0.3"] as const) {
      const first = await collect(client.sendMessageStream(message(`Book me a flight to Oslo (${via})`), asDana()));
      const task = first.find((r) => r.payload?.$case === "task")!.payload!.value as unknown as { id: string; metadata: { clutch: { run_id: string } } };
      expect(stateOf(first.at(-1)!)).toBe(TaskState.TASK_STATE_INPUT_REQUIRED);
      const started = Date.now();
      if (via === "sdk") {
        const cancelled = await client.cancelTask({ tenant: "", id: task.id, metadata: {} }, asDana());
        expect(cancelled.status?.state).toBe(TaskState.TASK_STATE_CANCELED);
      } else {
        const res = await fetch(`${base}/a2a`, { method: "POST", headers: { "content-type": "application/json", authorization: `Bearer ${dana.key}` }, body: JSON.stringify({ jsonrpc: "2.0", id: 7, method: "tasks/cancel", params: { id: task.id } }) });
        expect(((await res.json()) as { result: { status: { state: string } } }).result.status.state).toBe("canceled");
      }
      expect(Date.now() - started).toBeLessThan(5_000);
      expect((await client.getTask({ tenant: "", id: task.id }, asDana())).status?.state).toBe(TaskState.TASK_STATE_CANCELED);
      expect((await runRow(rt, task.metadata.clutch.run_id)).state).toBe("cancelled");
    }
  });

  it("counts calls against the key's writes a minute, like the API's", async () => {
    const lee = await testPerson(rt, "member", "Lee");
    process.env.CLUTCH_WRITES_PER_MIN = "2";
    try {
      const call = () => fetch(`${base}/a2a`, { method: "POST", headers: { "content-type": "application/json", authorization: `Bearer ${lee.key}` }, body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tasks/get", params: { id: "nope" } }) });
      expect((await call()).status).toBe(200);
      expect((await call()).status).toBe(200);
      const third = await call();
      expect(third.status).toBe(429);
      expect(Number(third.headers.get("retry-after"))).toBeGreaterThan(0);
      expect((await third.json()).error.message).toContain("at most 2 writes a minute");
    } finally {
      delete process.env.CLUTCH_WRITES_PER_MIN;
    }
  });

  it("refuses a call without a Clutch API key, saying what it needs", async () => {
    const res = await fetch(`${base}/a2a`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "message/send", params: {} }) });
    expect(res.status).toBe(401);
    expect((await res.json()).error.message).toContain("Authorization: Bearer clk_");
  });
});
