/**
 * LangGraph agents (Clutch Protocol §7, docs/adapters.md "LangGraph") in the example workspace
 * examples/agents-from-anywhere: planner-1 is a LangGraph JS graph with a subgraph and three
 * interrupts, travel-1 an A2A agent (its travel-agent.ts, started here). A person's request runs
 * the graph: its subgraph becomes a subtask with progress and chat, a question interrupt asks the
 * person and resumes with the answer, a delegation interrupt hands travel-1 a subtask and resumes
 * with its result, an approval interrupt waits for a person's decision; the last message is the
 * result. The same graph served by a LangGraph server runs the same way over the SDK. A graph that
 * throws, or a module that does not exist, ends its task with the reason.
 *
 * Streaming (docs/adapters.md "LangGraph"): a graph whose nodes call a (fake) streaming chat model
 * grows one StreamHub stream per AI message, delta by delta, ended when the message is stored;
 * its final text is the stored chat.message or result, which names it in `meta.stream_id`. The
 * same over a LangGraph server's `messages-tuple` stream mode.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { isAIMessageChunk, isBaseMessageChunk, type BaseMessage } from "@langchain/core/messages";
import { newId, type StoredEvent } from "@/lib/protocol";
import type { HubEvent } from "@/server/streams/hub";
import type { Clutch } from "@/server/clutch";
import { answer, say, waitFor } from "./agents";
import { approver, runRow, testClutch } from "./helpers";
import { startA2AAgent, type ScriptedA2AAgent } from "@/examples/agents-from-anywhere/travel-agent";
import { startLangGraphServer, type TestLangGraphServer } from "./fixtures/langgraph-server";
import { forgetLoadedGraphs } from "@/server/adapters/langgraph/hosts";

let rt: Clutch;
let remote: ScriptedA2AAgent;

beforeAll(async () => {
  remote = await startA2AAgent();
  process.env.TRAVEL_AGENT_CARD_URL = remote.card_url;
  process.env.TRAVEL_AGENT_TOKEN = "t0ken";
  rt = await testClutch({ workspaceDir: "examples/agents-from-anywhere", dataDir: fs.mkdtempSync(path.join(os.tmpdir(), "clutch-data-")), modelFor: () => ({}) as never });
});
afterAll(async () => {
  await rt?.stop();
  await remote?.close();
});

describe("a LangGraph agent", () => {
  it("plans a trip: a subgraph as a subtask, a question, a delegation to an A2A agent, an approval, the result", async () => {
    const thread_id = rt.channels[0]!.thread_id;
    const asked = await say(rt, thread_id, "Plan my trip to the Lisbon office");
    const sub = await waitFor(rt, thread_id, "the subgraph's subtask", (evs) => evs.find((e) => e.type === "task.request" && e.to[0]?.agent_id === "agent:planner-1/policy" && e.ts >= asked.ts));
    expect(sub.payload.title).toBe("policy");
    const run_id = sub.run_id;
    await waitFor(rt, thread_id, "the subgraph's progress", (evs) => evs.find((e) => e.type === "task.progress" && e.task_id === sub.task_id && e.payload.message === "Reading the travel policy"));
    const subResult = await waitFor(rt, thread_id, "the subtask's result", (evs) => evs.find((e) => e.type === "task.result" && e.task_id === sub.task_id));
    expect(subResult.payload.summary).toBe("Policy: economy class on flights under 6 hours, booked at least 7 days ahead.");
    expect((await waitFor(rt, thread_id, "the subgraph's message", (evs) => evs.find((e) => e.type === "chat.message" && e.task_id === sub.task_id))).payload.text).toBe(subResult.payload.summary);

    const question = await waitFor(rt, thread_id, "the question", (evs) => evs.find((e) => e.type === "chat.message" && e.run_id === run_id && e.payload.expects_reply));
    expect(question.payload.text).toBe("Where and when are you travelling?");
    expect(question.to).toEqual([{ agent_id: "user", role: "human" }]);
    await answer(rt, thread_id, "Lisbon on Monday");

    const booking = await waitFor(rt, thread_id, "travel-1's subtask", (evs) => evs.find((e) => e.type === "task.request" && e.run_id === run_id && e.to[0]?.agent_id === "agent:travel-1"));
    expect(booking.payload.title).toBe("Book the flight: Lisbon on Monday");
    expect(booking.from.agent_id).toBe("agent:planner-1");
    const booked = await waitFor(rt, thread_id, "travel-1's result", (evs) => evs.find((e) => e.type === "task.result" && e.task_id === booking.task_id));
    expect(booked.payload.report_markdown).toBe("Flight booked for Monday: Book a flight: Lisbon on Monday");
    expect(remote.received.at(-1)!.headers.authorization).toBe("Bearer t0ken");

    const approval = await waitFor(rt, thread_id, "the approval", (evs) => evs.find((e) => e.type === "approval.requested" && e.run_id === run_id));
    expect(approval.payload).toMatchObject({ summary: "Send the trip plan to finance", preview: "Flight booked for Monday: Book a flight: Lisbon on Monday" });
    expect((await runRow(rt, run_id)).state).not.toBe("succeeded");
    await rt.approvals.decide(String(approval.payload.approval_id), { decision: "approve" }, approver("Lee"));

    const result = await waitFor(rt, thread_id, "the plan", (evs) => evs.find((e) => e.type === "task.result" && e.task_id === sub.parent_task_id));
    expect(result.from.agent_id).toBe("agent:planner-1");
    expect(result.payload.summary).toBe("Your trip (Lisbon on Monday) is planned: the flight is booked and the plan is with finance.");
    expect(result.payload.report_markdown).toContain("- **Trip**: Lisbon on Monday");
    expect(result.payload.report_markdown).toContain("- **Flight**: Flight booked for Monday");
    expect(result.payload.report_markdown).toContain("- **Finance**: sent for reimbursement.");
    expect((await runRow(rt, run_id)).state).toBe("succeeded");
  });
});

describe.skipIf(inject("embeddedDatabase"))("a LangGraph agent across a restart, on PostgreSQL", () => {
  it("resumes its interrupted graph where it stopped, without running what came before again", async () => {
    const deployment = `test.${newId("task")}`;
    const node = () => testClutch({ workspaceDir: "examples/agents-from-anywhere", dataDir: fs.mkdtempSync(path.join(os.tmpdir(), "clutch-data-")), modelFor: () => ({}) as never, deployment });
    let first: Clutch | null = await node();
    const thread_id = first.channels[0]!.thread_id;
    try {
      const asked = await say(first, thread_id, "Plan my trip to the Berlin office");
      const question = await waitFor(first, thread_id, "the question", (evs) => evs.find((e) => e.type === "chat.message" && e.payload.expects_reply && e.ts >= asked.ts && e.from.agent_id === "agent:planner-1"));
      const run_id = question.run_id;
      await first.stop({ graceMs: 1000 });
      first = null;
      // A new process: the graph's module is loaded afresh; its thread is in PostgreSQL.
      forgetLoadedGraphs();
      const second = await node();
      try {
        await answer(second, thread_id, "Berlin on Tuesday");
        const booking = await waitFor(second, thread_id, "travel-1's subtask", (evs) => evs.find((e) => e.type === "task.request" && e.run_id === run_id && e.to[0]?.agent_id === "agent:travel-1"));
        expect(booking.payload.title).toBe("Book the flight: Berlin on Tuesday");
        // The policy subgraph ran once, before the restart: the graph went on from its interrupt.
        const policy = (await second.store.readAll({ run_id })).filter((e) => e.type === "task.request" && e.to[0]?.agent_id === "agent:planner-1/policy");
        expect(policy).toHaveLength(1);
      } finally {
        await second.stop({ graceMs: 1000 });
      }
    } finally {
      await first?.stop({ graceMs: 1000 });
    }
  });
});

describe("a graph served by a LangGraph server", () => {
  let served: Clutch;
  let lgs: TestLangGraphServer;
  beforeAll(async () => {
    const { graph } = await import("@/examples/agents-from-anywhere/graphs/trip-planner");
    lgs = await startLangGraphServer({ "trip-planner": graph });
    process.env.CLUTCH_TEST_LANGGRAPH_URL = lgs.url;
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "clutch-ws-"));
    fs.mkdirSync(path.join(dir, "agents"));
    const manifest = { system_prompt: "", delegate_rules: {}, overseer: null, mcp_bindings: [] };
    fs.writeFileSync(
      path.join(dir, "agents", "remote-planner-1.json"),
      JSON.stringify({ ...manifest, id: "remote-planner-1", allowed_agents: ["travel-1"], runtime: { kind: "langgraph-server", url: "${CLUTCH_TEST_LANGGRAPH_URL}", assistant_id: "trip-planner", headers: { "x-api-key": "lg-key" } } }),
    );
    fs.writeFileSync(path.join(dir, "agents", "travel-1.json"), JSON.stringify({ ...manifest, id: "travel-1", allowed_agents: [], runtime: { kind: "a2a", card_url: remote.card_url } }));
    fs.writeFileSync(path.join(dir, "mcp.json"), JSON.stringify({ mcpServers: {} }));
    fs.writeFileSync(path.join(dir, "workspace.json"), JSON.stringify({ channels: [{ name: `lgs-${newId("thread").slice(-8).toLowerCase()}`, entry_agent: "remote-planner-1", answers: "every_message" }] }));
    served = await testClutch({ workspaceDir: dir, dataDir: fs.mkdtempSync(path.join(os.tmpdir(), "clutch-data-")), modelFor: () => ({}) as never });
  });
  afterAll(async () => {
    await served?.stop();
    await lgs?.close();
  });

  it("runs the same way over @langchain/langgraph-sdk: subtask, question, delegation, approval, result", async () => {
    const thread_id = served.channels[0]!.thread_id;
    const asked = await say(served, thread_id, "Plan my trip to the Oslo office");
    const sub = await waitFor(served, thread_id, "the subgraph's subtask", (evs) => evs.find((e) => e.type === "task.request" && e.to[0]?.agent_id === "agent:remote-planner-1/policy" && e.ts >= asked.ts), 10_000);
    await waitFor(served, thread_id, "the subtask's result", (evs) => evs.find((e) => e.type === "task.result" && e.task_id === sub.task_id), 10_000);
    await waitFor(served, thread_id, "the question", (evs) => evs.find((e) => e.type === "chat.message" && e.run_id === sub.run_id && e.payload.expects_reply), 10_000);
    await answer(served, thread_id, "Oslo on Tuesday");
    const approval = await waitFor(served, thread_id, "the approval", (evs) => evs.find((e) => e.type === "approval.requested" && e.run_id === sub.run_id), 10_000);
    expect(approval.payload.preview).toBe("Flight booked for Tuesday: Book a flight: Oslo on Tuesday");
    await served.approvals.decide(String(approval.payload.approval_id), { decision: "reject", comment: "over budget" }, approver("Lee"));
    const result = await waitFor(served, thread_id, "the plan", (evs) => evs.find((e) => e.type === "task.result" && e.task_id === sub.parent_task_id), 10_000);
    expect(result.payload.summary).toBe("Your trip (Oslo on Tuesday) is planned: the flight is booked.");
    expect(result.payload.report_markdown).toMatch(/- \*\*Finance\*\*: not sent \(rejected by .+: over budget\)\./);
    // Every call carried the manifest's header; the thread was the server's.
    const runsCalls = lgs.requests.filter((r) => r.path.endsWith("/runs/stream"));
    expect(runsCalls.length).toBe(4);
    expect(runsCalls.every((r) => r.headers["x-api-key"] === "lg-key")).toBe(true);
  });
});

describe("a LangGraph agent that cannot run", () => {
  let broken: Clutch;
  beforeAll(async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "clutch-ws-"));
    fs.mkdirSync(path.join(dir, "agents"));
    const agent = (id: string, module: string) => ({ id, system_prompt: "", allowed_agents: [], delegate_rules: {}, overseer: null, mcp_bindings: [], runtime: { kind: "langgraph", module } });
    fs.writeFileSync(path.join(dir, "agents", "boom-1.json"), JSON.stringify(agent("boom-1", "boom.mjs")));
    fs.writeFileSync(path.join(dir, "agents", "gone-1.json"), JSON.stringify(agent("gone-1", "missing.mjs")));
    fs.writeFileSync(
      path.join(dir, "boom.mjs"),
      `import { StateGraph, MessagesAnnotation, START, END } from ${JSON.stringify(import.meta.resolve("@langchain/langgraph"))};
export const graph = new StateGraph(MessagesAnnotation).addNode("crash", () => { throw new Error("the archive is offline"); }).addEdge(START, "crash").addEdge("crash", END).compile();`,
    );
    fs.writeFileSync(path.join(dir, "mcp.json"), JSON.stringify({ mcpServers: {} }));
    fs.writeFileSync(path.join(dir, "workspace.json"), JSON.stringify({ channels: [{ name: `lg-${newId("thread").slice(-8).toLowerCase()}`, entry_agent: "boom-1", answers: "every_message" }] }));
    broken = await testClutch({ workspaceDir: dir, dataDir: fs.mkdtempSync(path.join(os.tmpdir(), "clutch-data-")), modelFor: () => ({}) as never });
  });
  afterAll(async () => {
    await broken?.stop();
  });

  it("ends the task with the graph's exception, or with the module that is missing", async () => {
    const thread_id = broken.channels[0]!.thread_id;
    const asked = await say(broken, thread_id, "Summarize the archive");
    const error = await waitFor(broken, thread_id, "the error", (evs) => evs.find((e) => e.type === "task.error" && e.ts >= asked.ts));
    expect(error.payload).toMatchObject({ code: "LANGGRAPH_ERROR", message: "agent:boom-1's graph failed: the archive is offline", retryable: false });
    const again = await say(broken, thread_id, "@gone-1 Summarize the archive");
    const missing = await waitFor(broken, thread_id, "the load error", (evs) => evs.find((e) => e.type === "task.error" && e.ts >= again.ts));
    expect(missing.from.agent_id).toBe("agent:gone-1");
    expect(String(missing.payload.message)).toContain("agent:gone-1's graph could not be loaded");
  });
});

/** A graph module whose two nodes each call a fake chat model that streams its reply character by character. */
const STREAMING_GRAPH = (langgraph: string, testing: string) => `import { StateGraph, MessagesAnnotation, START, END } from ${JSON.stringify(langgraph)};
import { FakeListChatModel } from ${JSON.stringify(testing)};
export const DRAFT = "Spring weekends: Lisbon, Porto and Seville are all warm in April.";
export const ANSWER = "Go to Lisbon: 22 degrees, jacarandas in bloom, and a two-hour flight.";
export function makeGraph(sleep = 6) {
  const draft = new FakeListChatModel({ responses: [DRAFT], sleep });
  const answer = new FakeListChatModel({ responses: [ANSWER], sleep });
  return new StateGraph(MessagesAnnotation)
    .addNode("draft", async (s) => ({ messages: [await draft.invoke(s.messages)] }))
    .addNode("answer", async (s) => ({ messages: [await answer.invoke(s.messages)] }))
    .addEdge(START, "draft").addEdge("draft", "answer").addEdge("answer", END).compile();
}
export const graph = makeGraph();
export const slowGraph = makeGraph(40);
`;

type StreamingModule = { DRAFT: string; ANSWER: string; makeGraph(sleep?: number): { checkpointer?: unknown; getState(c: unknown): Promise<unknown>; stream(i: unknown, c: Record<string, unknown>): Promise<AsyncIterable<[string[], string, unknown]>> } };

/**
 * `graph` as a LangGraph server serves it: stream mode `messages-tuple` runs as LangGraph's
 * `messages` (an event named `messages`), its chunks in the server's JSON (`type: "AIMessageChunk"`).
 */
function asServed(graph: ReturnType<StreamingModule["makeGraph"]>) {
  return {
    get checkpointer() {
      return graph.checkpointer;
    },
    set checkpointer(c: unknown) {
      graph.checkpointer = c;
    },
    getState: (config: unknown) => graph.getState(config),
    async stream(input: unknown, config: Record<string, unknown>) {
      const modes = (config.streamMode as string[]).map((m) => (m === "messages-tuple" ? "messages" : m));
      const inner = await graph.stream(input, { ...config, streamMode: modes });
      return (async function* () {
        for await (const [ns, mode, data] of inner) {
          if (mode !== "messages") yield [ns, mode, data];
          else {
            const [m, meta] = data as [BaseMessage, { langgraph_node?: string }];
            yield [ns, mode, [{ type: isBaseMessageChunk(m) && isAIMessageChunk(m) ? "AIMessageChunk" : m.getType(), content: m.content, id: m.id }, { langgraph_node: meta.langgraph_node, tags: [] }]];
          }
        }
      })();
    },
  };
}

describe("a graph whose chat model streams", () => {
  let streaming: Clutch;
  let lgs: TestLangGraphServer;
  let mod: StreamingModule;
  const heard: HubEvent[] = [];

  beforeAll(async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "clutch-ws-"));
    fs.mkdirSync(path.join(dir, "agents"));
    fs.writeFileSync(path.join(dir, "streaming.mjs"), STREAMING_GRAPH(import.meta.resolve("@langchain/langgraph"), import.meta.resolve("@langchain/core/utils/testing")));
    mod = (await import(`${pathToFileURL(path.join(dir, "streaming.mjs")).href}?served`)) as StreamingModule;
    lgs = await startLangGraphServer({ writer: asServed(mod.makeGraph()) });
    const manifest = { system_prompt: "", allowed_agents: [], delegate_rules: {}, overseer: null, mcp_bindings: [] };
    fs.writeFileSync(path.join(dir, "agents", "writer-1.json"), JSON.stringify({ ...manifest, id: "writer-1", runtime: { kind: "langgraph", module: "streaming.mjs" } }));
    fs.writeFileSync(path.join(dir, "agents", "slow-writer-1.json"), JSON.stringify({ ...manifest, id: "slow-writer-1", runtime: { kind: "langgraph", module: "streaming.mjs", export: "slowGraph" } }));
    fs.writeFileSync(path.join(dir, "agents", "remote-writer-1.json"), JSON.stringify({ ...manifest, id: "remote-writer-1", runtime: { kind: "langgraph-server", url: lgs.url, assistant_id: "writer" } }));
    fs.writeFileSync(path.join(dir, "mcp.json"), JSON.stringify({ mcpServers: {} }));
    fs.writeFileSync(path.join(dir, "workspace.json"), JSON.stringify({ channels: [{ name: `lgstream-${newId("thread").slice(-8).toLowerCase()}`, entry_agent: "writer-1", answers: "every_message" }] }));
    streaming = await testClutch({ workspaceDir: dir, dataDir: fs.mkdtempSync(path.join(os.tmpdir(), "clutch-data-")), modelFor: () => ({}) as never });
    streaming.streams.listen((e) => heard.push(e));
  });
  afterAll(async () => {
    await streaming?.stop();
    await lgs?.close();
  });

  /** The stream `stream_id`: its info, the text after each delta, and how it ended. */
  function streamOf(stream_id: string) {
    const info = heard.find((e): e is Extract<HubEvent, { open: unknown }> => "open" in e && e.open.stream_id === stream_id)?.open;
    if (!info) return null;
    const texts: string[] = [];
    let text = info.text;
    for (const e of heard) {
      if (!("delta" in e) || e.delta.stream_id !== stream_id) continue;
      text = text.slice(0, e.delta.offset) + e.delta.text;
      texts.push(text);
    }
    const end = heard.find((e): e is Extract<HubEvent, { end: unknown }> => "end" in e && e.end.stream_id === stream_id)?.end ?? null;
    return { info, texts, end };
  }

  /** The stored event's stream grew delta by delta to exactly `text`, and ended done. */
  async function expectStreamed(ev: StoredEvent, text: string, agent_id: string) {
    const stream_id = String(ev.meta?.stream_id);
    const stream = streamOf(stream_id)!;
    expect(stream.info).toMatchObject({ thread_id: ev.thread_id, run_id: ev.run_id, task_id: ev.task_id, author: agent_id, to: [agent_id], kind: "text" });
    expect(stream.texts.length).toBeGreaterThanOrEqual(3);
    for (const [i, t] of stream.texts.entries()) if (i) expect(t.startsWith(stream.texts[i - 1]!) && t.length > stream.texts[i - 1]!.length).toBe(true);
    expect(stream.texts.at(-1)).toBe(text);
    await expect.poll(() => streamOf(stream_id)!.end).toEqual({ stream_id, status: "done" });
  }

  it.each([
    ["in process", "writer-1", ""],
    ["on a LangGraph server", "remote-writer-1", "@remote-writer-1 "],
  ])("grows a stream per AI message as the model writes it, %s; the stored message is its final text", async (_how, name, mention) => {
    const agent_id = `agent:${name}`;
    const thread_id = streaming.channels[0]!.thread_id;
    const asked = await say(streaming, thread_id, `${mention}Where should I go for a spring weekend?`);
    const result = await waitFor(streaming, thread_id, "the result", (evs) => evs.find((e) => e.type === "task.result" && e.from.agent_id === agent_id && e.ts >= asked.ts), 15_000);
    expect(result.payload.report_markdown).toBe(mod.ANSWER);
    const draft = await waitFor(streaming, thread_id, "the draft", (evs) => evs.find((e) => e.type === "chat.message" && e.task_id === result.task_id && e.from.agent_id === agent_id));
    expect(draft.payload.text).toBe(mod.DRAFT);
    await expectStreamed(draft, mod.DRAFT, agent_id);
    await expectStreamed(result, mod.ANSWER, agent_id);
    expect(draft.meta?.stream_id).not.toBe(result.meta?.stream_id);
    // Streaming stored nothing more: the request's events, one chat.message and the result.
    const stored = (await streaming.store.readAll({ run_id: result.run_id })).filter((e) => e.from.agent_id === agent_id).map((e) => e.type);
    expect(stored).toEqual(["task.accept", "chat.message", "task.result"]);
  });

  it("stops the graph and stores neither the message nor a result when a person stops its stream", async () => {
    const thread_id = streaming.channels[0]!.thread_id;
    const asked = await say(streaming, thread_id, "@slow-writer-1 Where should I go for a spring weekend?");
    const accepted = await waitFor(streaming, thread_id, "the accept", (evs) => evs.find((e) => e.type === "task.accept" && e.from.agent_id === "agent:slow-writer-1" && e.ts >= asked.ts));
    const opened = () => heard.find((e): e is Extract<HubEvent, { open: unknown }> => "open" in e && e.open.task_id === accepted.task_id)?.open;
    await expect.poll(() => (opened() ? (streamOf(opened()!.stream_id)?.texts.length ?? 0) : 0)).toBeGreaterThan(1);
    const stream_id = opened()!.stream_id;
    expect(streaming.streams.endFromOutside({ stream_id, status: "stopped", stopped_by: "user:dana" })).toBe(true);
    await streaming.runner.idle();
    const written = streamOf(stream_id)!.texts.at(-1)!;
    expect(mod.DRAFT.startsWith(written) && written.length < mod.DRAFT.length).toBe(true);
    // Nothing more streamed, nothing was stored for it: the Stop keeps the partial text.
    await new Promise((r) => setTimeout(r, 300));
    expect(streamOf(stream_id)!.texts.at(-1)).toBe(written);
    expect(heard.filter((e) => "open" in e && e.open.task_id === accepted.task_id)).toHaveLength(1);
    const stored = (await streaming.store.readAll({ run_id: accepted.run_id })).filter((e) => e.from.agent_id === "agent:slow-writer-1").map((e) => e.type);
    expect(stored).toEqual(["task.accept"]);
  });
});
