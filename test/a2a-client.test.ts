/**
 * Clutch as an A2A client (Clutch Protocol §7.2, docs/adapters.md "A2A"): travel-1 is a workspace
 * agent whose manifest names an A2A agent card (an `@a2a-js/sdk` server started here,
 * examples/agents-from-anywhere/travel-agent.ts). A person's request goes out as a streamed message with the manifest's
 * credentials; its status updates become task.progress, input-required a question in the channel
 * whose answer goes back on the same A2A task, artifacts the task.result; a remote failure is a
 * task.error; a Clutch cancel sends CancelTask; an agent that cannot be reached ends the task
 * A2A_UNREACHABLE instead of leaving it waiting. A registered (non-workspace) agent whose card
 * names an A2A endpoint is reached the same way.
 *
 * Streaming (docs/adapters.md "A2A"): a working status message shows as the agent's status in
 * the StreamHub; an artifact a streaming agent (an SDK server started here) sends in append
 * chunks grows one hub stream, delta by delta, whose final text is the stored report, named by
 * the result's `meta.stream_id`; the same agent without streaming on its card stores the same
 * events and streams nothing.
 */
import fs from "node:fs";
import http from "node:http";
import os from "node:os";
import path from "node:path";
import type { AddressInfo } from "node:net";
import express from "express";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { TaskState, type AgentCard } from "@a2a-js/sdk";
import { AgentEvent, DefaultRequestHandler, InMemoryTaskStore, type AgentExecutor, type ExecutionEventBus, type RequestContext } from "@a2a-js/sdk/server";
import { agentCardHandler, jsonRpcHandler, UserBuilder } from "@a2a-js/sdk/server/express";
import { newId } from "@/lib/protocol";
import type { HubEvent } from "@/server/streams/hub";
import type { Clutch } from "@/server/clutch";
import { cancelTask } from "@/server/lifecycle/cancel";
import { registerAgent } from "@/server/router/registration";
import { answer, say, waitFor } from "./agents";
import { runRow, taskRow, testClutch } from "./helpers";
import { startA2AAgent, type ScriptedA2AAgent } from "@/examples/agents-from-anywhere/travel-agent";

const DANA = { agent_id: "user:dana", role: "human" as const, display_name: "Dana" };
let rt: Clutch;
let remote: ScriptedA2AAgent;
let thread_id: string;
let writer: ChunkingAgent;
let plain: ChunkingAgent;
/** Everything the StreamHub said, in order. */
const heard: HubEvent[] = [];

/** The itinerary the chunking agent writes, one append chunk (one text part) each. */
const CHUNKS = ["Day 1: land in Lisbon at 10:40, check in at the Bairro Alto hotel.", "Day 2: the office, Avenida da Liberdade.", "Day 3: meetings until 15:00.", "Day 4: fly home at 18:05."];

interface ChunkingAgent {
  card_url: string;
  /** The task ids it was asked to cancel. */
  cancelled: string[];
  close(): Promise<void>;
}

/**
 * An A2A agent on the official SDK that writes its artifact "itinerary" in append chunks
 * (`lastChunk` on the last), 80 ms apart (longer than the hub's coalescing; 400 ms for a request
 * with "[slow]"), then completes; cancelled, it stops and says so. `streaming` is what its card says.
 */
async function startChunkingAgent(streaming: boolean): Promise<ChunkingAgent> {
  const server = http.createServer();
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const part = (value: string) => ({ content: { $case: "text" as const, value }, metadata: undefined, filename: "", mediaType: "text/plain" });
  const cancelled: string[] = [];
  const executor: AgentExecutor = {
    cancelTask: async (taskId) => {
      cancelled.push(taskId);
    },
    async execute(rc: RequestContext, bus: ExecutionEventBus) {
      const { taskId, contextId } = rc;
      const pace = rc.userMessage.parts.some((p) => p.content?.$case === "text" && p.content.value.includes("[slow]")) ? 400 : 80;
      bus.publish(AgentEvent.task({ id: taskId, contextId, status: { state: TaskState.TASK_STATE_SUBMITTED, timestamp: new Date().toISOString(), message: undefined }, artifacts: [], history: [rc.userMessage], metadata: {} }));
      for (const [i, chunk] of CHUNKS.entries()) {
        if (i) await new Promise((r) => setTimeout(r, pace));
        if (cancelled.includes(taskId)) {
          bus.publish(AgentEvent.statusUpdate({ taskId, contextId, status: { state: TaskState.TASK_STATE_CANCELED, timestamp: new Date().toISOString(), message: undefined }, metadata: {} }));
          return;
        }
        const artifact = { artifactId: "itinerary", name: "itinerary", description: "", parts: [part(chunk)], metadata: undefined, extensions: [] };
        bus.publish(AgentEvent.artifactUpdate({ taskId, contextId, artifact, append: i > 0, lastChunk: i === CHUNKS.length - 1, metadata: undefined }));
      }
      bus.publish(AgentEvent.statusUpdate({ taskId, contextId, status: { state: TaskState.TASK_STATE_COMPLETED, timestamp: new Date().toISOString(), message: undefined }, metadata: {} }));
    },
  };
  const card: AgentCard = {
    name: streaming ? "Itinerary writer" : "Plain itinerary writer",
    description: "Writes itineraries in chunks (a scripted A2A agent for tests)",
    supportedInterfaces: [{ url: `${base}/a2a/jsonrpc`, protocolBinding: "JSONRPC", tenant: "", protocolVersion: "1.0" }],
    provider: undefined,
    version: "1.0.0",
    capabilities: { streaming, pushNotifications: false, extensions: [], extendedAgentCard: false },
    securitySchemes: {},
    securityRequirements: [],
    defaultInputModes: ["text"],
    defaultOutputModes: ["text"],
    skills: [{ id: "itinerary", name: "Write an itinerary", description: "Writes itineraries", tags: ["travel"], examples: [], inputModes: [], outputModes: [], securityRequirements: [] }],
    signatures: [],
  };
  const handler = new DefaultRequestHandler(card, new InMemoryTaskStore(), executor);
  const app = express();
  app.use("/.well-known/agent-card.json", agentCardHandler({ agentCardProvider: handler }));
  app.use("/a2a/jsonrpc", jsonRpcHandler({ requestHandler: handler, userBuilder: UserBuilder.noAuthentication }));
  server.on("request", app);
  return {
    card_url: `${base}/.well-known/agent-card.json`,
    cancelled,
    close: async () => {
      server.closeAllConnections();
      await new Promise((r) => server.close(() => r(null)));
    },
  };
}

/** The texts a hub stream held after each of its deltas, its info and how it ended. */
function streamOf(task_id: string) {
  const open = heard.find((e): e is Extract<HubEvent, { open: unknown }> => "open" in e && e.open.task_id === task_id)?.open;
  if (!open) return null;
  const texts: string[] = [];
  let text = open.text;
  for (const e of heard) {
    if (!("delta" in e) || e.delta.stream_id !== open.stream_id) continue;
    text = text.slice(0, e.delta.offset) + e.delta.text;
    texts.push(text);
  }
  const end = heard.find((e): e is Extract<HubEvent, { end: unknown }> => "end" in e && e.end.stream_id === open.stream_id)?.end ?? null;
  return { info: open, texts, end };
}

beforeAll(async () => {
  remote = await startA2AAgent();
  writer = await startChunkingAgent(true);
  plain = await startChunkingAgent(false);
  process.env.CLUTCH_TEST_A2A_TOKEN = "s3cret";
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "clutch-ws-"));
  fs.mkdirSync(path.join(dir, "agents"));
  const a2aAgent = (id: string, card_url: string) => ({
    id,
    system_prompt: "",
    allowed_agents: [],
    delegate_rules: {},
    overseer: null,
    mcp_bindings: [],
    capabilities: [{ id: "skill:travel", version: "1.0" }],
    runtime: { kind: "a2a", card_url, headers: { authorization: "Bearer ${CLUTCH_TEST_A2A_TOKEN}" } },
  });
  fs.writeFileSync(path.join(dir, "agents", "travel-1.json"), JSON.stringify(a2aAgent("travel-1", remote.card_url)));
  fs.writeFileSync(path.join(dir, "agents", "gone-1.json"), JSON.stringify(a2aAgent("gone-1", "http://127.0.0.1:9/.well-known/agent-card.json")));
  fs.writeFileSync(path.join(dir, "agents", "writer-1.json"), JSON.stringify(a2aAgent("writer-1", writer.card_url)));
  fs.writeFileSync(path.join(dir, "agents", "plain-1.json"), JSON.stringify(a2aAgent("plain-1", plain.card_url)));
  fs.writeFileSync(path.join(dir, "mcp.json"), JSON.stringify({ mcpServers: {} }));
  const channel = `a2a-${newId("thread").slice(-8).toLowerCase()}`;
  fs.writeFileSync(path.join(dir, "workspace.json"), JSON.stringify({ channels: [{ name: channel, entry_agent: "travel-1", answers: "every_message" }], lifecycle: { retry_delay_ms: 20 } }));
  rt = await testClutch({ workspaceDir: dir, dataDir: fs.mkdtempSync(path.join(os.tmpdir(), "clutch-data-")), modelFor: () => ({}) as never });
  thread_id = rt.channels[0]!.thread_id;
  rt.streams.listen((e) => heard.push(e));
});
afterAll(async () => {
  await rt?.stop();
  await remote?.close();
  await writer?.close();
  await plain?.close();
});

describe("a workspace agent that is an A2A agent", () => {
  it("streams progress, asks the person for input, and returns the artifact as its result", async () => {
    const asked = await say(rt, thread_id, "Book me a flight to Lisbon");
    const progress = await waitFor(rt, thread_id, "the remote's progress", (evs) => evs.find((e) => e.type === "task.progress" && e.payload.message === "Looking at flights…" && e.ts >= asked.ts), 15_000);
    expect(progress.from.agent_id).toBe("agent:travel-1");
    const question = await waitFor(rt, thread_id, "the remote's question", (evs) => evs.find((e) => e.type === "chat.message" && e.payload.text === "Which day do you fly?" && e.run_id === progress.run_id), 15_000);
    expect(question.payload.expects_reply).toBe(true);
    expect(question.to).toEqual([{ agent_id: "user", role: "human" }]);
    expect((await taskRow(rt, progress.task_id)).state).toBe("waiting_input");
    // The request went out with the manifest's credentials, the variable filled in.
    expect(remote.received[0]).toMatchObject({ text: expect.stringContaining("Book me a flight to Lisbon"), taskId: "" });
    expect(remote.received[0]!.headers.authorization).toBe("Bearer s3cret");

    await answer(rt, thread_id, "Friday");
    const result = await waitFor(rt, thread_id, "the result", (evs) => evs.find((e) => e.type === "task.result" && e.task_id === progress.task_id), 15_000);
    expect(result.payload.report_markdown).toContain("Flight booked for Friday.");
    expect(result.payload.artifacts).toEqual([{ name: "itinerary", text: "Flight booked for Friday." }]);
    // The answer continued the same A2A task.
    const a2aTask = (progress.meta as { a2a: { task_id: string } }).a2a.task_id;
    expect(remote.received[1]).toMatchObject({ text: "Friday", taskId: a2aTask });
    expect((await runRow(rt, progress.run_id)).state).toBe("succeeded");
    // The working status message was travel-1's status while it worked, cleared when each wake ended.
    const statuses = heard.flatMap((e) => ("status" in e && e.status.task_id === progress.task_id ? [e.status] : []));
    expect(statuses[0]).toEqual({ thread_id, run_id: progress.run_id, task_id: progress.task_id, agent_id: "agent:travel-1", status: "Looking at flights…" });
    expect(statuses.at(-1)!.status).toBeNull();
  });

  it("streams an artifact written in append chunks into the hub, and stores the same events as without streaming", async () => {
    const asked = await say(rt, thread_id, "@writer-1 Write my Lisbon itinerary");
    const result = await waitFor(rt, thread_id, "the result", (evs) => evs.find((e) => e.type === "task.result" && e.from.agent_id === "agent:writer-1" && e.ts >= asked.ts), 15_000);
    const report = CHUNKS.join("\n\n");
    expect(result.payload.report_markdown).toBe(report);
    const stream = streamOf(result.task_id)!;
    expect(stream.info).toMatchObject({ thread_id, run_id: result.run_id, task_id: result.task_id, author: "agent:writer-1", to: result.to.map((t) => t.agent_id), kind: "result" });
    // Several deltas, each text growing from the one before, the last exactly the stored report.
    expect(stream.texts.length).toBeGreaterThanOrEqual(3);
    for (const [i, text] of stream.texts.entries()) if (i) expect(text.startsWith(stream.texts[i - 1]!) && text.length > stream.texts[i - 1]!.length).toBe(true);
    expect(stream.texts.at(-1)).toBe(report);
    await expect.poll(() => streamOf(result.task_id)!.end).toEqual({ stream_id: stream.info.stream_id, status: "done" });
    expect(result.meta).toMatchObject({ stream_id: stream.info.stream_id });

    // The same agent with streaming off on its card: the same events, nothing streamed.
    const again = await say(rt, thread_id, "@plain-1 Write my Lisbon itinerary");
    const unstreamed = await waitFor(rt, thread_id, "the unstreamed result", (evs) => evs.find((e) => e.type === "task.result" && e.from.agent_id === "agent:plain-1" && e.ts >= again.ts), 15_000);
    expect(unstreamed.payload.report_markdown).toBe(report);
    expect(streamOf(unstreamed.task_id)).toBeNull();
    expect(unstreamed.meta?.stream_id).toBeUndefined();
    const types = async (run_id: string) => (await rt.store.readAll({ run_id })).map((e) => e.type);
    expect(await types(result.run_id)).toEqual(await types(unstreamed.run_id));
    expect((await types(result.run_id)).filter((t) => t === "task.result")).toHaveLength(1);
  });

  it("stops writing, cancels the remote task and stores no result when a person stops the stream", async () => {
    const asked = await say(rt, thread_id, "@writer-1 [slow] Write my Porto itinerary");
    const accepted = await waitFor(rt, thread_id, "writer-1 at work", (evs) => evs.find((e) => e.type === "task.progress" && e.from.agent_id === "agent:writer-1" && e.ts >= asked.ts), 15_000);
    await expect.poll(() => streamOf(accepted.task_id)?.texts.length ?? 0).toBeGreaterThan(0);
    const { info } = streamOf(accepted.task_id)!;
    expect(rt.streams.endFromOutside({ stream_id: info.stream_id, status: "stopped", stopped_by: "user:dana" })).toBe(true);
    const a2aTask = (accepted.meta as { a2a: { task_id: string } }).a2a.task_id;
    await expect.poll(() => writer.cancelled, { timeout: 10_000 }).toContain(a2aTask);
    await rt.runner.idle();
    // The text stopped where the person stopped it, and nothing was stored as the task's outcome (the Stop keeps the partial text).
    expect(streamOf(accepted.task_id)!.texts).toEqual([CHUNKS[0]]);
    const after = (await rt.store.readAll({ run_id: accepted.run_id })).filter((e) => e.task_id === accepted.task_id);
    expect(after.filter((e) => e.type === "task.result" || e.type === "task.error")).toEqual([]);
  });

  it("ends the task with the remote's failure", async () => {
    const asked = await say(rt, thread_id, "[fail] Book me a flight to Oslo");
    const error = await waitFor(rt, thread_id, "the error", (evs) => evs.find((e) => e.type === "task.error" && e.ts >= asked.ts));
    expect(error.payload).toMatchObject({ code: "A2A_FAILED", message: "agent:travel-1 (A2A) failed: No seats left", retryable: false });
    expect((await runRow(rt, error.run_id)).state).toBe("failed");
  });

  it("sends CancelTask when the task is cancelled in Clutch", async () => {
    const asked = await say(rt, thread_id, "[slow] Find the cheapest flight anywhere");
    const progress = await waitFor(rt, thread_id, "the remote at work", (evs) => evs.find((e) => e.type === "task.progress" && e.payload.message === "Searching every airline…" && e.ts >= asked.ts));
    await cancelTask(rt.store, await taskRow(rt, progress.task_id), DANA, "changed my mind");
    const a2aTask = (progress.meta as { a2a: { task_id: string } }).a2a.task_id;
    await expect.poll(() => remote.cancelled, { timeout: 10_000 }).toContain(a2aTask);
    expect((await taskRow(rt, progress.task_id)).state).toBe("cancelled");
    // Nothing after the cancel is recorded as the task's outcome.
    await rt.runner.idle();
    const after = await waitFor(rt, thread_id, "the run's events", (evs) => evs.filter((e) => e.task_id === progress.task_id));
    expect(after.filter((e) => e.type === "task.error" || e.type === "task.result")).toEqual([]);
  });

  it("reaches a registered agent whose AgentCard names an A2A endpoint the same way", async () => {
    const agent_id = `agent:booker-${newId("task").slice(-6).toLowerCase()}`;
    const base = remote.card_url.replace("/.well-known/agent-card.json", "");
    await registerAgent(rt.store, rt.registry, { v: "clutch/0.1", agent_id, display: { name: "Booker" }, capabilities: [{ id: "skill:booking", version: "1.0" }], endpoints: { a2a: { url: base } } });
    const asked = await say(rt, thread_id, `@${agent_id.slice("agent:".length)} Book a flight to Paris on Friday`);
    const result = await waitFor(rt, thread_id, "its result", (evs) => evs.find((e) => e.type === "task.result" && e.ts >= asked.ts), 15_000);
    expect(result.from.agent_id).toBe(agent_id);
    expect(result.payload.report_markdown).toBe("Flight booked for Friday: Book a flight to Paris on Friday");
    const accepted = await waitFor(rt, thread_id, "its accept", (evs) => evs.find((e) => e.type === "task.accept" && e.task_id === result.task_id));
    expect(accepted.from.agent_id).toBe(agent_id);
    expect((await runRow(rt, result.run_id)).state).toBe("succeeded");
  });

  it("ends the task A2A_UNREACHABLE when the agent cannot be reached", async () => {
    const asked = await say(rt, thread_id, "@gone-1 Book a train to Porto");
    const error = await waitFor(rt, thread_id, "the error", (evs) => evs.find((e) => e.type === "task.error" && e.ts >= asked.ts));
    expect(error.from.agent_id).toBe("agent:gone-1");
    expect(error.payload).toMatchObject({ code: "A2A_UNREACHABLE", retryable: true });
    expect(String(error.payload.message)).toContain("could not be reached after 3 attempts");
  });
});
