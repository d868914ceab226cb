/**
 * Clutch's agents as AG-UI agents (docs/adapters.md "AG-UI: Clutch's agents as AG-UI agents";
 * server/adapters/ag-ui/server.ts), driven by `@ag-ui/client`'s HttpAgent as a CopilotKit front
 * end drives it, over real HTTP to the route handlers, on the example's sales team (built-in
 * model): a run of pm-1 starts in the channel with the caller as its requester, streams
 * RUN_STARTED, its tool calls and its messages, and stops at pm-1's clarifying question with
 * RUN_FINISHED's interrupt outcome; the client's resume answers it in the channel and the next
 * AG-UI run carries the same Clutch run to the report (RUN_FINISHED with the result). A plain
 * user message on the same AG-UI thread answers too; a client that goes away stops the following,
 * not the run; calls without a key, with a bad body, for an unknown agent are refused with a
 * message.
 */
import http from "node:http";
import type { AddressInfo } from "node:net";
import { Readable } from "node:stream";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { EventType, HttpAgent, type BaseEvent, type Interrupt, type Message, type RunFinishedEvent, type RunStartedEvent, type StateSnapshotEvent, type TextMessageContentEvent, type TextMessageStartEvent, type ToolCallArgsEvent, type ToolCallResultEvent, type ToolCallStartEvent } from "@ag-ui/client";
import type { Clutch } from "@/server/clutch";
import * as workspaceRoute from "@/app/api/ag-ui/route";
import * as agentRoute from "@/app/api/ag-ui/agents/[agent_id]/route";
import { runRow, testPerson, type TestPrincipal } from "./helpers";
import { scratchWorkspace, startAgents, threadEvents, waitFor } from "./agents";

let rt: Clutch;
let server: http.Server;
let base: string;
let dana: TestPrincipal;

/** The route modules behind a real HTTP server: the response body streams out as it is written; a client that goes away aborts the request. */
function serveRoutes(): http.Server {
  return http.createServer((req, res) => {
    const abort = new AbortController();
    res.on("close", () => {
      if (!res.writableFinished) abort.abort();
    });
    const headers = new Headers();
    for (let i = 0; i < req.rawHeaders.length; i += 2) headers.append(req.rawHeaders[i]!, req.rawHeaders[i + 1]!);
    const url = `http://${req.headers.host}${req.url}`;
    const hasBody = req.method !== "GET" && req.method !== "HEAD";
    const request = new Request(url, { method: req.method, headers, signal: abort.signal, ...(hasBody ? { body: Readable.toWeb(req) as ReadableStream<Uint8Array>, duplex: "half" } : {}) } as RequestInit);
    const path = new URL(url).pathname;
    const agent = /^\/api\/ag-ui\/agents\/([^/]+)$/.exec(path);
    const method = req.method === "GET" ? "GET" : "POST";
    const answer =
      path === "/api/ag-ui" ? workspaceRoute[method](request) : agent ? agentRoute[method](request, { params: Promise.resolve({ agent_id: agent[1]! }) }) : Promise.resolve(new Response("no route", { status: 404 }));
    void answer.then(async (response) => {
      res.writeHead(response.status, Object.fromEntries(response.headers));
      if (response.body) for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>) res.write(chunk);
      res.end();
    });
  });
}

beforeAll(async () => {
  rt = await startAgents(scratchWorkspace().dir);
  dana = await testPerson(rt, "member", "Dana");
  server = serveRoutes();
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  server?.closeAllConnections();
  server?.close();
  await rt?.stop();
});

const REQUEST = "Analyze last quarter's sales trends";
const ANSWER = "Regional breakdown by major market";

/** An HttpAgent as a CopilotKit front end makes one, with Dana's key. */
function agentAt(path: string, opts: { threadId?: string; key?: string | null } = {}): HttpAgent {
  const key = opts.key === undefined ? dana.key : opts.key;
  return new HttpAgent({ url: `${base}${path}`, headers: key ? { Authorization: `Bearer ${key}` } : {}, ...(opts.threadId ? { threadId: opts.threadId } : {}) });
}

/** Run `agent` once (with `params`), recording every event the client applied. */
async function run(agent: HttpAgent, params: Parameters<HttpAgent["runAgent"]>[0] = {}): Promise<{ events: BaseEvent[]; result: unknown }> {
  const events: BaseEvent[] = [];
  const { result } = await agent.runAgent(params, { onEvent: ({ event }) => void events.push(event) });
  return { events, result };
}

const ofType = <T extends BaseEvent>(events: BaseEvent[], type: EventType) => events.filter((e) => e.type === type) as T[];

/** The text of each message, joined from its CONTENT events in order, by messageId. */
function texts(events: BaseEvent[]): Map<string, string> {
  const out = new Map<string, string>();
  for (const e of ofType<TextMessageContentEvent>(events, EventType.TEXT_MESSAGE_CONTENT)) out.set(e.messageId, (out.get(e.messageId) ?? "") + e.delta);
  return out;
}

/** Every STEP_STARTED has its STEP_FINISHED, and every text message and tool call its end. */
function expectBalanced(events: BaseEvent[]): void {
  const keys = (type: EventType, field: "stepName" | "messageId" | "toolCallId") => ofType(events, type).map((e) => String((e as unknown as Record<string, unknown>)[field])).sort();
  expect(keys(EventType.STEP_FINISHED, "stepName")).toEqual(keys(EventType.STEP_STARTED, "stepName"));
  expect(keys(EventType.TEXT_MESSAGE_END, "messageId")).toEqual(keys(EventType.TEXT_MESSAGE_START, "messageId"));
  expect(keys(EventType.TOOL_CALL_END, "toolCallId")).toEqual(keys(EventType.TOOL_CALL_START, "toolCallId"));
}

const clutchRunOf = (events: BaseEvent[]) => (ofType<RunStartedEvent>(events, EventType.RUN_STARTED)[0]!.metadata as { clutch: { run_id: string; thread_id: string; channel: string } }).clutch;
const interruptOf = (events: BaseEvent[]): Interrupt => {
  const finished = events.at(-1) as RunFinishedEvent;
  expect(finished.type).toBe(EventType.RUN_FINISHED);
  expect(finished.outcome?.type).toBe("interrupt");
  return (finished.outcome as { interrupts: Interrupt[] }).interrupts[0]!;
};
const assistantTexts = (messages: Message[]) => messages.filter((m) => m.role === "assistant").map((m) => (m as { content?: string }).content ?? "");

describe("Clutch's agents as AG-UI agents", () => {
  it("runs pm-1 in the channel: tool calls and streamed messages, its question as an interrupt, the resume to the report", async () => {
    const agent = agentAt("/api/ag-ui/agents/pm-1");
    agent.messages = [{ id: crypto.randomUUID(), role: "user", content: REQUEST }];
    const first = await run(agent);

    // RUN_STARTED first, with the caller's ids and Clutch's run; then the state.
    expect(first.events[0]).toMatchObject({ type: EventType.RUN_STARTED, threadId: agent.threadId, protocolVersion: "1.0" });
    const clutch = clutchRunOf(first.events);
    expect(clutch.channel).toBe(rt.channels[0]!.name);
    expect(first.events[1]).toMatchObject({ type: EventType.STATE_SNAPSHOT, snapshot: { run_id: clutch.run_id, state: "running" } });

    // pm-1's tool calls, with their arguments and results.
    const starts = ofType<ToolCallStartEvent>(first.events, EventType.TOOL_CALL_START);
    expect(starts.map((s) => s.toolCallName)).toEqual(["list_documents", "read_file"]);
    const args = ofType<ToolCallArgsEvent>(first.events, EventType.TOOL_CALL_ARGS).find((a) => a.toolCallId === starts[1]!.toolCallId)!;
    expect(JSON.parse(args.delta)).toEqual({ path: "project-spec-q4-sales-trends.md" });
    const results = ofType<ToolCallResultEvent>(first.events, EventType.TOOL_CALL_RESULT);
    expect(results.map((r) => r.toolCallId)).toEqual(starts.map((s) => s.toolCallId));
    expect(results[1]!.content).toContain("Project spec: Q4 sales trends analysis");

    // The question: a message whose streamed text is the question, and the interrupt.
    const interrupt = interruptOf(first.events);
    expect(interrupt).toMatchObject({ reason: "input_required", responseSchema: { required: ["answer"] }, metadata: { clutch: { run_id: clutch.run_id, asked_by: "agent:pm-1" } } });
    expect(interrupt.message).toMatch(/regional breakdowns, customer segments, or overall trend/);
    expect([...texts(first.events).values()]).toContain(interrupt.message);
    expect(ofType<TextMessageStartEvent>(first.events, EventType.TEXT_MESSAGE_START)[0]).toMatchObject({ role: "assistant", name: "Project Manager" });
    expect(assistantTexts(agent.messages)).toContain(interrupt.message);
    expect(agent.pendingInterrupts.map((i) => i.id)).toEqual([interrupt.id]);
    expectBalanced(first.events);

    // The run is the channel's like any other, requested by Dana over AG-UI.
    const inChannel = (await threadEvents(rt, clutch.thread_id)).filter((e) => e.run_id === clutch.run_id);
    expect(inChannel.find((e) => e.type === "task.request")).toMatchObject({
      to: [{ agent_id: "agent:pm-1" }],
      meta: { requested_by: dana.agent_id },
      payload: { instructions: REQUEST, input: { via: "ag-ui", from: { agent_id: dana.agent_id }, ag_ui: { thread_id: agent.threadId } } },
    });
    expect(inChannel.find((e) => e.id === interrupt.id)).toMatchObject({ type: "chat.message", payload: { expects_reply: true } });

    // The front end answers the interrupt: the same Clutch run goes on to the report.
    const second = await run(agent, { resume: [{ interruptId: interrupt.id, status: "resolved", payload: { answer: ANSWER } }] });
    expect(second.events[0]).toMatchObject({ type: EventType.RUN_STARTED });
    expect(clutchRunOf(second.events).run_id).toBe(clutch.run_id);
    const reply = (await threadEvents(rt, clutch.thread_id)).find((e) => e.run_id === clutch.run_id && e.type === "chat.message" && e.payload.reply_to === interrupt.id);
    expect(reply).toMatchObject({ from: { agent_id: dana.agent_id }, payload: { text: ANSWER } });

    const finished = second.events.at(-1) as RunFinishedEvent;
    expect(finished).toMatchObject({ type: EventType.RUN_FINISHED, threadId: agent.threadId, outcome: { type: "success" } });
    const report = (finished.result as { report_markdown: string }).report_markdown;
    expect(report).toMatch(/West/);
    expect(second.result).toEqual(finished.result);
    // The report reached the client once, as a message whose CONTENT joins into it.
    expect([...texts(second.events).values()].filter((t) => t === report)).toHaveLength(1);
    expect(assistantTexts(agent.messages).filter((t) => t === report)).toHaveLength(1);
    // The team's work: analyst-1's queries, pm-1's delegation as a step, the tasks in the state.
    expect(ofType<ToolCallStartEvent>(second.events, EventType.TOOL_CALL_START).map((s) => s.toolCallName)).toContain("query_data");
    expect(ofType<{ stepName: string } & BaseEvent>(second.events, EventType.STEP_STARTED).map((s) => s.stepName)).toEqual(expect.arrayContaining([expect.stringMatching(/^pm-1 → analyst-1: /)]));
    const state = ofType<StateSnapshotEvent>(second.events, EventType.STATE_SNAPSHOT).at(-1)!.snapshot as { state: string; tasks: { assignee: string; state: string }[] };
    expect(state.state).toBe("succeeded");
    expect(state.tasks.map((t) => t.assignee)).toEqual(expect.arrayContaining(["agent:pm-1", "agent:analyst-1", "agent:qa-1"]));
    expect(agent.state).toEqual(state);
    expectBalanced(second.events);
    expect(await runRow(rt, clutch.run_id)).toMatchObject({ state: "succeeded" });
  });

  it("continues the AG-UI thread's run with a plain user message when it waits on a question", async () => {
    const agent = agentAt("/api/ag-ui");
    agent.messages = [{ id: crypto.randomUUID(), role: "user", content: REQUEST }];
    const first = await run(agent);
    const interrupt = interruptOf(first.events);
    const clutch = clutchRunOf(first.events);

    // Another front end on the same thread (it knows nothing of the interrupt) says the answer.
    const other = agentAt("/api/ag-ui", { threadId: agent.threadId });
    other.messages = [...agent.messages, { id: crypto.randomUUID(), role: "user", content: ANSWER }];
    const second = await run(other);
    expect(clutchRunOf(second.events).run_id).toBe(clutch.run_id);
    expect(second.events.at(-1)).toMatchObject({ type: EventType.RUN_FINISHED, outcome: { type: "success" } });
    const reply = (await threadEvents(rt, clutch.thread_id)).find((e) => e.run_id === clutch.run_id && e.payload.reply_to === interrupt.id);
    expect(reply).toMatchObject({ from: { agent_id: dana.agent_id }, payload: { text: ANSWER } });

    // A new request on the thread, with nothing waiting, is a new run.
    other.messages = [...other.messages, { id: crypto.randomUUID(), role: "user", content: REQUEST }];
    const third = await run(other);
    const next = clutchRunOf(third.events).run_id;
    expect(next).not.toBe(clutch.run_id);
    // Cancelling its interrupt cancels that run: RUN_ERROR.
    const cancelled = await run(other, { resume: [{ interruptId: interruptOf(third.events).id, status: "cancelled" }] });
    expect(cancelled.events.at(-1)).toMatchObject({ type: EventType.RUN_ERROR, code: "CANCELLED", message: "Cancelled: the AG-UI caller cancelled the question" });
    expectBalanced(cancelled.events);
    expect(await runRow(rt, next)).toMatchObject({ state: "cancelled" });
  });

  it("speaks AG-UI's protobuf framing when the Accept header asks for it", async () => {
    let contentType: string | null = null;
    const agent = new HttpAgent({
      url: `${base}/api/ag-ui/agents/pm-1`,
      // HttpAgent adds `Accept: text/event-stream`; the encoder prefers protobuf when the client accepts it too.
      headers: { Authorization: `Bearer ${dana.key}`, accept: "application/vnd.ag-ui.event+proto" },
      fetch: async (url, init) => {
        const res = await fetch(url, init);
        contentType = res.headers.get("content-type");
        return res;
      },
    });
    agent.messages = [{ id: crypto.randomUUID(), role: "user", content: REQUEST }];
    const { events } = await run(agent);
    expect(contentType).toBe("application/vnd.ag-ui.event+proto");
    expect(events[0]!.type).toBe(EventType.RUN_STARTED);
    expect(interruptOf(events).message).toMatch(/regional breakdowns/);
    expect(assistantTexts(agent.messages)).toContain(interruptOf(events).message);
  });

  it("stops following when the client goes away, and the run goes on in the channel", async () => {
    const listeners = () => (rt.streams as unknown as { listeners: Set<unknown> }).listeners.size;
    const before = listeners();
    const agent = agentAt("/api/ag-ui/agents/pm-1");
    agent.messages = [{ id: crypto.randomUUID(), role: "user", content: REQUEST }];
    const abortController = new AbortController();
    let clutch: { run_id: string; thread_id: string } | null = null;
    await agent
      .runAgent(
        { abortController },
        {
          onEvent: ({ event }) => {
            if (event.type !== EventType.RUN_STARTED) return;
            clutch = clutchRunOf([event]);
            abortController.abort();
          },
        },
      )
      .catch(() => {});
    expect(clutch).not.toBeNull();
    const { run_id, thread_id } = clutch!;
    await expect.poll(listeners, { timeout: 10_000 }).toBe(before);
    // pm-1 still asks its question, and nothing cancelled the run.
    await waitFor(rt, thread_id, "pm-1's question", (events) => events.find((e) => e.run_id === run_id && e.type === "chat.message" && e.payload.expects_reply));
    expect((await threadEvents(rt, thread_id)).some((e) => e.run_id === run_id && e.type === "task.cancel")).toBe(false);
    expect((await runRow(rt, run_id)).state).toBe("running");
  });

  it("refuses a call without a key, a bad body, an unknown agent and an answer to nothing, saying what to do", async () => {
    const post = (path: string, body: unknown, key: string | null = dana.key) =>
      fetch(`${base}${path}`, { method: "POST", headers: { "content-type": "application/json", accept: "text/event-stream", ...(key ? { authorization: `Bearer ${key}` } : {}) }, body: typeof body === "string" ? body : JSON.stringify(body) });
    const input = { threadId: "t1", runId: crypto.randomUUID(), messages: [{ id: "m1", role: "user", content: "hi" }] };

    const noKey = await post("/api/ag-ui", input, null);
    expect(noKey.status).toBe(401);
    expect((await noKey.json()).error.message).toMatch(/API key/);
    const keyless = agentAt("/api/ag-ui", { key: null });
    keyless.messages = [{ id: "m1", role: "user", content: "hi" }];
    await expect(keyless.runAgent()).rejects.toThrow(/HTTP 401: .*API key/);

    const bad = await post("/api/ag-ui", { threadId: "t1", messages: "hi" });
    expect(bad.status).toBe(400);
    const badBody = (await bad.json()).error;
    expect(badBody.code).toBe("invalid_body");
    expect(badBody.message).toMatch(/AG-UI RunAgentInput .*runId: /);
    const role = await post("/api/ag-ui", { ...input, messages: [{ id: "m1", role: "robot", content: "hi" }] });
    expect((await role.json()).error.message).toMatch(/messages\.0\.role: /);
    const noUser = await post("/api/ag-ui", { ...input, messages: [] });
    expect(noUser.status).toBe(400);
    expect((await noUser.json()).error.message).toMatch(/no user message/);
    const notJson = await post("/api/ag-ui", "{nope");
    expect(notJson.status).toBe(400);

    const nobody = await post("/api/ag-ui/agents/nobody", input);
    expect(nobody.status).toBe(404);
    expect((await nobody.json()).error.message).toMatch(/no agent nobody/);

    const stray = await post("/api/ag-ui", { ...input, resume: [{ interruptId: "msg_nothing", status: "resolved", payload: { answer: "yes" } }] });
    expect(stray.status).toBe(400);
    expect((await stray.json()).error.message).toMatch(/resume\.0\.interruptId: no question/);

    const get = await fetch(`${base}/api/ag-ui`, { headers: { authorization: `Bearer ${dana.key}` } });
    expect(get.status).toBe(405);
  });
});
