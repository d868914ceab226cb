/**
 * A2A task records on the database (server/adapters/a2a/tasks.ts; docs/adapters.md "A2A",
 * docs/deploy.md): two Clutch nodes of one deployment on one PostgreSQL, each serving A2A. A task
 * that waits for input on one node is found, answered and cancelled on the other, and a working
 * one streams live on the other (tasks/resubscribe); a task whose
 * node stopped while its run worked is followed again by a node that starts, and shows the run's
 * end. The store itself keeps each caller's tasks apart, lists them a page at a time, and never
 * lets an ended task change again.
 */
import fs from "node:fs";
import http from "node:http";
import os from "node:os";
import path from "node:path";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { ClientFactory, type Client } from "@a2a-js/sdk/client";
import { Role, TaskState, type StreamResponse, type Task } from "@a2a-js/sdk";
import { ServerCallContext, type User } from "@a2a-js/sdk/server";
import { makeMessage, newId } from "@/lib/protocol";
import type { Clutch } from "@/server/clutch";
import { a2aApp } from "@/server/adapters/a2a/server";
import { runRow, testClutch, testPerson, type TestPrincipal } from "./helpers";
import { startA2AAgent, type ScriptedA2AAgent } from "@/examples/agents-from-anywhere/travel-agent";

/** One Clutch node serving A2A over HTTP, and an A2A client of it. */
interface Node {
  rt: Clutch;
  client: Client;
  close(): Promise<void>;
}

let remote: ScriptedA2AAgent;
let workspaceDir: string;
let deployment: string;
let a: Node;
let b: Node;
let dana: TestPrincipal;
const extra: Node[] = [];

async function startNode(): Promise<Node> {
  const rt = await testClutch({ workspaceDir, deployment, dataDir: fs.mkdtempSync(path.join(os.tmpdir(), "clutch-data-")), modelFor: () => ({}) as never });
  const server = http.createServer();
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  server.on("request", a2aApp(rt, base));
  const client = await new ClientFactory().createFromUrl(base);
  let closed = false;
  return {
    rt,
    client,
    async close() {
      if (closed) return;
      closed = true;
      server.closeAllConnections();
      server.close();
      await rt.stop({ graceMs: 2_000 });
    },
  };
}

const asDana = () => ({ serviceParameters: { authorization: `Bearer ${dana.key}` } });
const message = (text: string, ids: { taskId?: string; contextId?: string } = {}) => ({
  tenant: "",
  message: { messageId: crypto.randomUUID(), role: Role.ROLE_USER, parts: [{ content: { $case: "text" as const, value: text }, metadata: undefined, filename: "", mediaType: "text/plain" }], taskId: ids.taskId ?? "", contextId: ids.contextId ?? "", metadata: {}, extensions: [], referenceTaskIds: [] },
  configuration: undefined,
  metadata: {},
});
const stateOf = (r: StreamResponse) => (r.payload?.$case === "statusUpdate" ? r.payload.value.status?.state : r.payload?.$case === "task" ? r.payload.value.status?.state : undefined);
const textOf = (r: StreamResponse) =>
  r.payload?.$case === "statusUpdate" ? r.payload.value.status?.message?.parts.map((p) => (p.content?.$case === "text" ? p.content.value : "")).join("") : undefined;
type ClutchMeta = { clutch: { run_id: string; task_id: string; thread_id: string } };

async function collect(stream: AsyncGenerator<StreamResponse>): Promise<StreamResponse[]> {
  const out: StreamResponse[] = [];
  for await (const r of stream) out.push(r);
  return out;
}

/** A task streamed on `node` until it waits for input. */
async function waitingTask(node: Node, text: string): Promise<Task & { metadata: ClutchMeta }> {
  const events = await collect(node.client.sendMessageStream(message(text), asDana()));
  expect(stateOf(events.at(-1)!)).toBe(TaskState.TASK_STATE_INPUT_REQUIRED);
  return events.find((r) => r.payload?.$case === "task")!.payload!.value as Task & { metadata: ClutchMeta };
}

describe.skipIf(inject("embeddedDatabase"))("A2A tasks on two nodes of one deployment", () => {
  beforeAll(async () => {
    remote = await startA2AAgent();
    workspaceDir = fs.mkdtempSync(path.join(os.tmpdir(), "clutch-ws-"));
    fs.mkdirSync(path.join(workspaceDir, "agents"));
    fs.writeFileSync(
      path.join(workspaceDir, "agents", "travel-1.json"),
      JSON.stringify({ id: "travel-1", system_prompt: "Books flights.", allowed_agents: [], delegate_rules: {}, overseer: null, mcp_bindings: [], capabilities: [{ id: "skill:travel" }], runtime: { kind: "a2a", card_url: remote.card_url } }),
    );
    fs.writeFileSync(path.join(workspaceDir, "mcp.json"), JSON.stringify({ mcpServers: {} }));
    const channel = `a2a-durable-${newId("thread").slice(-8).toLowerCase()}`;
    fs.writeFileSync(path.join(workspaceDir, "workspace.json"), JSON.stringify({ channels: [{ name: channel, entry_agent: "travel-1", answers: "every_message" }] }));
    deployment = `test.${newId("task")}`;
    a = await startNode(); // leads: the agents work here
    b = await startNode();
    dana = await testPerson(a.rt, "member", "Dana");
  });
  afterAll(async () => {
    await remote?.close();
    for (const n of [...extra, b, a]) await n?.close();
  });

  it("finds a task that waits for input on the other node, and its answer there completes it", async () => {
    const task = await waitingTask(a, "Book me a flight to Lisbon");
    const there = await b.client.getTask({ tenant: "", id: task.id }, asDana());
    expect(there.status?.state).toBe(TaskState.TASK_STATE_INPUT_REQUIRED);
    expect(there.metadata).toMatchObject({ clutch: { run_id: task.metadata.clutch.run_id, caller: { agent_id: dana.agent_id } } });
    // The record names the question it waits on, so whichever node gets the answer posts it there.
    const question = (there.metadata as { clutch: { question_id: string } }).clutch.question_id;
    expect((await b.rt.store.queries.eventInThread(task.metadata.clutch.thread_id, question))?.type).toBe("chat.message");

    const answered = await b.client.sendMessage(message("Friday", { taskId: task.id, contextId: task.contextId }), asDana());
    const done = answered as Task;
    expect(done.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    expect(JSON.stringify(done.artifacts)).toContain("Flight booked for Friday.");
    expect((await runRow(b.rt, task.metadata.clutch.run_id)).state).toBe("succeeded");
    // The first node reads the same record.
    expect((await a.client.getTask({ tenant: "", id: task.id }, asDana())).status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
  });

  it("cancels on the other node a task that waits for input: the run is cancelled, the answer is at once", async () => {
    const task = await waitingTask(a, "Book me a flight to Oslo");
    const started = Date.now();
    const cancelled = await b.client.cancelTask({ tenant: "", id: task.id, metadata: {} }, asDana());
    expect(cancelled.status?.state).toBe(TaskState.TASK_STATE_CANCELED);
    expect(Date.now() - started).toBeLessThan(5_000);
    expect((await runRow(b.rt, task.metadata.clutch.run_id)).state).toBe("cancelled");
    expect((await a.client.getTask({ tenant: "", id: task.id }, asDana())).status?.state).toBe(TaskState.TASK_STATE_CANCELED);
  });

  it("cancels on the other node a task whose run works: the run is cancelled there, both nodes say canceled", async () => {
    let task: (Task & { metadata: ClutchMeta }) | undefined;
    const stream = a.client.sendMessageStream(message("[slow] Find a flight to anywhere warm"), asDana());
    const seen: StreamResponse[] = [];
    for await (const r of stream) {
      seen.push(r);
      if (r.payload?.$case === "task") task = r.payload.value as Task & { metadata: ClutchMeta };
      if (textOf(r) === "travel-1: Searching every airline…") {
        const cancelled = await b.client.cancelTask({ tenant: "", id: task!.id, metadata: {} }, asDana());
        expect(cancelled.status?.state).toBe(TaskState.TASK_STATE_CANCELED);
      }
    }
    // The node that streams it saw the run's cancel too.
    expect(stateOf(seen.at(-1)!)).toBe(TaskState.TASK_STATE_CANCELED);
    expect((await runRow(a.rt, task!.metadata.clutch.run_id)).state).toBe("cancelled");
    expect((await a.client.getTask({ tenant: "", id: task!.id }, asDana())).status?.state).toBe(TaskState.TASK_STATE_CANCELED);
  });

  it("streams a task live on the other node: tasks/resubscribe there follows the run from the log to its end", async () => {
    let task: (Task & { metadata: ClutchMeta }) | undefined;
    let following: Promise<StreamResponse[]> | undefined;
    for await (const r of a.client.sendMessageStream(message("[slow] Find a flight somewhere cold"), asDana())) {
      if (r.payload?.$case === "task") task = r.payload.value as Task & { metadata: ClutchMeta };
      if (textOf(r) === "travel-1: Searching every airline…" && !following) {
        // Node B runs no execution of the task: its resubscribe reads the run from the log.
        following = collect(b.client.resubscribeTask({ tenant: "", id: task!.id }, asDana()));
        await new Promise((r) => setTimeout(r, 300));
        await b.rt.store.append(
          makeMessage({ type: "task.progress", thread_id: task!.metadata.clutch.thread_id, run_id: task!.metadata.clutch.run_id, task_id: task!.metadata.clutch.task_id, from: { agent_id: "agent:travel-1" }, to: [], payload: { message: "Still looking at the last airline" } }),
        );
        await a.client.cancelTask({ tenant: "", id: task!.id, metadata: {} }, asDana());
      }
    }
    const seen = await following!;
    expect(seen[0]?.payload?.$case).toBe("task");
    expect(seen.map(textOf)).toContain("travel-1: Still looking at the last airline");
    expect(stateOf(seen.at(-1)!)).toBe(TaskState.TASK_STATE_CANCELED);
  });

  it("shows the end of a run whose node stopped while it worked, once a node that starts follows it again", async () => {
    const c = await startNode();
    extra.push(c);
    let task: (Task & { metadata: ClutchMeta }) | undefined;
    // The stream stops being read once the run works, and the node stops: nothing follows the run.
    for await (const r of c.client.sendMessageStream(message("[slow] Find the cheapest flight anywhere"), asDana())) {
      if (r.payload?.$case === "task") task = r.payload.value as Task & { metadata: ClutchMeta };
      if (textOf(r) === "travel-1: Searching every airline…") break;
    }
    expect(task).toBeDefined();
    await c.close();
    expect((await b.client.getTask({ tenant: "", id: task!.id }, asDana())).status?.state).toBe(TaskState.TASK_STATE_WORKING);

    const d = await startNode();
    extra.push(d);
    // The run carries on and ends: its root task's result.
    const { run_id, task_id, thread_id } = task!.metadata.clutch;
    await d.rt.store.append(
      makeMessage({ type: "task.result", thread_id, run_id, task_id, parent_task_id: null, from: { agent_id: "agent:travel-1", role: "worker" }, to: [], payload: { summary: "Cheapest: Oslo on Friday." } }),
    );
    await expect.poll(async () => (await d.client.getTask({ tenant: "", id: task!.id }, asDana())).status?.state, { timeout: 10_000 }).toBe(TaskState.TASK_STATE_COMPLETED);
    const got = await b.client.getTask({ tenant: "", id: task!.id }, asDana());
    expect(got.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    expect(JSON.stringify(got.artifacts)).toContain("Cheapest: Oslo on Friday.");
  });
});

describe("the A2A task store", () => {
  let rt: Clutch;
  beforeAll(async () => {
    rt = await testClutch();
  });
  afterAll(async () => {
    await rt?.stop();
  });
  const user = (userName: string): User => ({ userName, isAuthenticated: true });
  const ctx = (owner: string, tenant?: string) => new ServerCallContext({ user: user(owner), ...(tenant ? { tenant } : {}) });
  const task = (id: string, contextId: string, state: TaskState, at: string): Task => ({
    id,
    contextId,
    status: { state, timestamp: at, message: undefined },
    artifacts: [{ artifactId: "result", name: "result", description: "", parts: [{ content: { $case: "text", value: "hi" }, metadata: undefined, filename: "", mediaType: "text/plain" }], metadata: undefined, extensions: [] }],
    history: [],
    metadata: { n: id },
  });

  it("keeps each caller's tasks apart, lists them by context a page at a time, and never changes an ended task", async () => {
    const store = rt.a2aTasks.storeFor(`/a2a/test-${newId("task")}`);
    const ids = Array.from({ length: 5 }, () => crypto.randomUUID());
    for (const [i, id] of ids.entries()) await store.save(task(id, i < 4 ? "ctx-1" : "ctx-2", TaskState.TASK_STATE_WORKING, `2026-11-30T10:00:0${i}.000Z`), ctx("user:ann"));
    expect((await store.load(ids[0]!, ctx("user:ann")))?.metadata).toEqual({ n: ids[0] });
    expect(await store.load(ids[0]!, ctx("user:bob"))).toBeUndefined();
    expect(await store.load(ids[0]!, ctx("user:ann", "elsewhere"))).toBeUndefined();
    // Another caller cannot take over the id.
    await store.save(task(ids[0]!, "ctx-1", TaskState.TASK_STATE_FAILED, "2026-11-30T11:00:00.000Z"), ctx("user:bob"));
    expect((await store.load(ids[0]!, ctx("user:ann")))?.status?.state).toBe(TaskState.TASK_STATE_WORKING);

    const first = await store.list({ tenant: "", contextId: "ctx-1", status: TaskState.TASK_STATE_UNSPECIFIED, pageSize: 3, pageToken: "", historyLength: undefined, statusTimestampAfter: undefined, includeArtifacts: false }, ctx("user:ann"));
    expect(first.tasks.map((t) => t.id)).toEqual([ids[3], ids[2], ids[1]]);
    expect(first.totalSize).toBe(4);
    expect(first.tasks[0]!.artifacts).toEqual([]);
    const second = await store.list({ tenant: "", contextId: "ctx-1", status: TaskState.TASK_STATE_UNSPECIFIED, pageSize: 3, pageToken: first.nextPageToken, historyLength: undefined, statusTimestampAfter: undefined, includeArtifacts: true }, ctx("user:ann"));
    expect(second.tasks.map((t) => t.id)).toEqual([ids[0]]);
    expect(second.nextPageToken).toBe("");
    expect(second.tasks[0]!.artifacts).toHaveLength(1);
    expect((await store.list({ tenant: "", contextId: "", status: TaskState.TASK_STATE_UNSPECIFIED, pageSize: 50, pageToken: "", historyLength: undefined, statusTimestampAfter: undefined, includeArtifacts: false }, ctx("user:bob"))).tasks).toEqual([]);

    await store.save(task(ids[4]!, "ctx-2", TaskState.TASK_STATE_COMPLETED, "2026-11-30T12:00:00.000Z"), ctx("user:ann"));
    await store.save(task(ids[4]!, "ctx-2", TaskState.TASK_STATE_WORKING, "2026-11-30T12:00:01.000Z"), ctx("user:ann"));
    expect((await store.load(ids[4]!, ctx("user:ann")))?.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    const completed = await store.list({ tenant: "", contextId: "", status: TaskState.TASK_STATE_COMPLETED, pageSize: 50, pageToken: "", historyLength: undefined, statusTimestampAfter: "2026-11-30T11:00:00.000Z", includeArtifacts: false }, ctx("user:ann"));
    expect(completed.tasks.map((t) => t.id)).toEqual([ids[4]]);
  });
});
