/**
 * AG-UI agents as Clutch agents (docs/adapters.md "AG-UI agents in Clutch (runtime ag-ui)"):
 * packer-1 is a workspace agent whose manifest names `runtime: { kind: "ag-ui", url, headers }`,
 * the example packing agent (examples/ag-ui-agent/agent.ts, an `@ag-ui/encoder` SSE server)
 * started here. A person's request goes out as a RunAgentInput with Clutch's ids in
 * forwardedProps and the manifest's credentials; the reply streams live through the StreamHub and
 * is stored once as a chat.message; the tool call, steps and result become tool.call, tool.result,
 * task.progress and task.result; an interrupt is a question in the channel whose answer resumes
 * the run on the same AG-UI thread; RUN_ERROR is a task.error and interrupts the half-written
 * reply; a cancel aborts the HTTP request; an agent that cannot be reached, or whose connection
 * drops mid-run, is tried again without storing anything twice.
 */
import fs from "node:fs";
import http from "node:http";
import os from "node:os";
import path from "node:path";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { EventType, type BaseEvent, type RunAgentInput } from "@ag-ui/core";
import { EventEncoder } from "@ag-ui/encoder";
import { isEvent, newId, type StoredEvent } from "@/lib/protocol";
import type { Clutch } from "@/server/clutch";
import type { HubEvent } from "@/server/streams/hub";
import { cancelTask } from "@/server/lifecycle/cancel";
import { answer, say, waitFor } from "./agents";
import { requestAs, runRow, taskRow, testClutch, testPerson } from "./helpers";
import * as stopRoute from "@/app/api/streams/[stream_id]/stop/route";
import { forecastOf, packingAdvice, startPackingAgent, type PackingAgent } from "@/examples/ag-ui-agent/agent";

const DANA = { agent_id: "user:dana", role: "human" as const, display_name: "Dana" };
let rt: Clutch;
let remote: PackingAgent;
let flaky: { url: string; requests: RunAgentInput[]; close(): Promise<void> };
let thread_id: string;
const hub: HubEvent[] = [];

/**
 * An AG-UI agent whose first connection of each run drops after the tool call (the socket is
 * destroyed mid-stream); the second answers the whole run.
 */
async function startFlakyAgent(): Promise<typeof flaky> {
  const requests: RunAgentInput[] = [];
  const server = http.createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const input = JSON.parse(Buffer.concat(chunks).toString("utf8")) as RunAgentInput;
    requests.push(input);
    const first = requests.filter((r) => r.runId === input.runId).length === 1;
    const encoder = new EventEncoder({ accept: req.headers.accept });
    res.writeHead(200, { "content-type": encoder.getContentType() });
    const send = (e: Record<string, unknown>) => res.write(encoder.encode(e as unknown as BaseEvent));
    const { threadId, runId } = input;
    send({ type: EventType.RUN_STARTED, threadId, runId });
    send({ type: EventType.STEP_STARTED, stepName: "count" });
    const toolCallId = `call-${Math.random()}`;
    send({ type: EventType.TOOL_CALL_START, toolCallId, toolCallName: "count_bags" });
    send({ type: EventType.TOOL_CALL_ARGS, toolCallId, delta: '{"people":2}' });
    send({ type: EventType.TOOL_CALL_END, toolCallId });
    send({ type: EventType.TOOL_CALL_RESULT, messageId: `r-${Math.random()}`, toolCallId, content: "3 bags" });
    if (first) {
      send({ type: EventType.TEXT_MESSAGE_START, messageId: "m-1", role: "assistant" });
      send({ type: EventType.TEXT_MESSAGE_CONTENT, messageId: "m-1", delta: "Three" });
      setTimeout(() => res.destroy(), 30);
      return;
    }
    send({ type: EventType.STEP_FINISHED, stepName: "count" });
    send({ type: EventType.TEXT_MESSAGE_START, messageId: "m-2", role: "assistant" });
    send({ type: EventType.TEXT_MESSAGE_CONTENT, messageId: "m-2", delta: "Three bags " });
    send({ type: EventType.TEXT_MESSAGE_CONTENT, messageId: "m-2", delta: "will do." });
    send({ type: EventType.TEXT_MESSAGE_END, messageId: "m-2" });
    send({ type: EventType.RUN_FINISHED, threadId, runId, result: { bags: 3 } });
    res.end();
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/agent`,
    requests,
    close: async () => {
      server.closeAllConnections();
      await new Promise((r) => server.close(() => r(null)));
    },
  };
}

/** A CAP manifest of an agent whose runtime is the AG-UI agent at `url`. */
const agUiAgent = (id: string, url: string, headers: Record<string, string> = {}) => ({
  id,
  system_prompt: "",
  allowed_agents: [],
  delegate_rules: {},
  overseer: null,
  mcp_bindings: [],
  capabilities: [{ id: `skill:${id}`, version: "1.0" }],
  runtime: { kind: "ag-ui", url, headers },
});

/** A workspace folder with packer-1 (the packing agent, with its token) and a channel of its own, whose entry agent it is. */
function packerWorkspace(): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "clutch-ws-"));
  fs.mkdirSync(path.join(dir, "agents"));
  fs.writeFileSync(path.join(dir, "agents", "packer-1.json"), JSON.stringify(agUiAgent("packer-1", "${CLUTCH_TEST_AGUI_URL}", { authorization: "Bearer ${CLUTCH_TEST_AGUI_TOKEN}" })));
  fs.writeFileSync(path.join(dir, "mcp.json"), JSON.stringify({ mcpServers: {} }));
  const channel = `agui-${newId("thread").slice(-8).toLowerCase()}`;
  fs.writeFileSync(path.join(dir, "workspace.json"), JSON.stringify({ channels: [{ name: channel, entry_agent: "packer-1", answers: "every_message" }], lifecycle: { retry_delay_ms: 20 } }));
  return dir;
}

beforeAll(async () => {
  remote = await startPackingAgent({ wordDelayMs: 200, token: "s3cret" });
  flaky = await startFlakyAgent();
  process.env.CLUTCH_TEST_AGUI_URL = remote.url;
  process.env.CLUTCH_TEST_AGUI_TOKEN = "s3cret";
  const dir = packerWorkspace();
  fs.writeFileSync(path.join(dir, "agents", "locked-1.json"), JSON.stringify(agUiAgent("locked-1", "${CLUTCH_TEST_AGUI_URL}", { authorization: "Bearer wrong" })));
  fs.writeFileSync(path.join(dir, "agents", "flaky-1.json"), JSON.stringify(agUiAgent("flaky-1", flaky.url)));
  // A port nothing listens on any more: connections are refused.
  const closed = http.createServer();
  await new Promise<void>((r) => closed.listen(0, "127.0.0.1", r));
  const gonePort = (closed.address() as AddressInfo).port;
  await new Promise((r) => closed.close(() => r(null)));
  fs.writeFileSync(path.join(dir, "agents", "gone-1.json"), JSON.stringify(agUiAgent("gone-1", `http://127.0.0.1:${gonePort}/`)));
  rt = await testClutch({ workspaceDir: dir, dataDir: fs.mkdtempSync(path.join(os.tmpdir(), "clutch-data-")), modelFor: () => ({}) as never });
  rt.streams.listen((e) => hub.push(e));
  thread_id = rt.channels[0]!.thread_id;
});
afterAll(async () => {
  await rt?.stop();
  await remote?.close();
  await flaky?.close();
});

/** The events of `task_id` so far. */
async function taskEvents(task_id: string): Promise<StoredEvent[]> {
  return (await rt.store.readAll({ thread_id })).filter((e) => e.task_id === task_id);
}

describe("a workspace agent that is an AG-UI agent", () => {
  it("streams its reply word by word, records its tool call and steps, and finishes with the result", async () => {
    const asked = await say(rt, thread_id, "Pack for my trip to Lisbon");
    const result = await waitFor(rt, thread_id, "the result", (evs) => evs.find((e) => e.type === "task.result" && e.from.agent_id === "agent:packer-1" && e.ts >= asked.ts), 15_000);
    const { task_id, run_id } = result;
    const events = await taskEvents(task_id);
    const expected = packingAdvice(forecastOf("Lisbon"));

    // One chat.message with the whole reply, to the people in the channel (a person asked), naming the stream it was written as.
    const replies = events.filter((e) => isEvent(e, "chat.message") && e.from.agent_id === "agent:packer-1");
    expect(replies).toHaveLength(1);
    const reply = replies[0]!;
    expect(reply.payload.text).toBe(expected);
    expect(reply.to).toEqual([{ agent_id: "user", role: "human" }]);
    const stream_id = reply.meta?.stream_id as string;
    expect(stream_id).toBeTruthy();

    // The hub saw the reply grow: several deltas, each carrying on where the last stopped, then "done".
    const open = hub.find((e) => "open" in e && e.open.stream_id === stream_id);
    expect(open && "open" in open && open.open).toMatchObject({ author: "agent:packer-1", task_id, run_id, kind: "message", to: ["user"] });
    const deltas = hub.flatMap((e) => ("delta" in e && e.delta.stream_id === stream_id ? [e.delta] : []));
    expect(deltas.length).toBeGreaterThanOrEqual(3);
    let text = "";
    const seen: string[] = [];
    for (const d of deltas) {
      expect(d.offset).toBe(text.length);
      text = text.slice(0, d.offset) + d.text;
      seen.push(text);
    }
    expect(text).toBe(expected);
    expect(seen[0]!.length).toBeLessThan(expected.length);
    expect(hub.find((e) => "end" in e && e.end.stream_id === stream_id)).toMatchObject({ end: { status: "done" } });

    // The tool call and its result, under the AG-UI tool call's id.
    const call = events.find((e) => isEvent(e, "tool.call"));
    expect(call?.payload).toMatchObject({ tool: "get_forecast", arguments: { city: "Lisbon" } });
    const toolResult = events.find((e) => isEvent(e, "tool.result"));
    expect(toolResult?.payload).toMatchObject({ call_id: call!.payload.call_id, tool: "get_forecast", result: { city: "Lisbon", temperature_c: 22, conditions: "sunny" } });

    // Steps as progress, and as the agent's status while they ran (cleared at the end).
    const progress = events.filter((e) => isEvent(e, "task.progress")).map((e) => e.payload.message);
    expect(progress).toEqual(["understand", "Done: understand", "check the forecast", "Done: check the forecast", "write the answer", "Done: write the answer"]);
    const statuses = hub.flatMap((e) => ("status" in e && e.status.task_id === task_id ? [e.status.status] : []));
    expect(statuses).toContain("check the forecast");
    expect(statuses.at(-1)).toBeNull();

    // The result: the reply as the report, the run's result as data.
    expect(result.payload).toMatchObject({ summary: expected, report_markdown: expected, data: { city: "Lisbon", temperature_c: 22, conditions: "sunny" } });
    expect(result.to).toEqual([{ agent_id: (await taskEvents(task_id)).find((e) => e.type === "task.request")!.from.agent_id }]);
    expect((await runRow(rt, run_id)).state).toBe("succeeded");

    // What went out: a RunAgentInput with Clutch's ids, the request, the manifest's credentials.
    const sent = remote.received.find((r) => r.input.threadId === task_id)!;
    expect(sent.input).toMatchObject({ threadId: task_id, runId: `${task_id}.1.1`, tools: [], context: [], state: {} });
    expect(sent.input.messages).toEqual([{ id: expect.any(String), role: "user", content: "Pack for my trip to Lisbon" }]);
    expect(sent.input.forwardedProps).toEqual({ clutch: { thread_id, run_id, task_id, agent_id: "agent:packer-1" } });
    expect(sent.headers.authorization).toBe("Bearer s3cret");
  });

  it("asks the person when the run is interrupted, and resumes it on the same AG-UI thread with the answer", async () => {
    const asked = await say(rt, thread_id, "Pack for my trip please");
    const question = await waitFor(rt, thread_id, "the question", (evs) => evs.find((e) => isEvent(e, "chat.message") && e.payload.expects_reply && e.from.agent_id === "agent:packer-1" && e.ts >= asked.ts), 15_000);
    expect(question.payload.text).toBe("Where are you going?");
    expect(question.to).toEqual([{ agent_id: "user", role: "human" }]);
    const { task_id } = question;
    expect((await taskRow(rt, task_id)).state).toBe("waiting_input");

    const reply = await answer(rt, thread_id, "Oslo");
    const result = await waitFor(rt, thread_id, "the result", (evs) => evs.find((e) => e.type === "task.result" && e.task_id === task_id), 15_000);
    expect(result.payload.report_markdown).toBe(packingAdvice(forecastOf("Oslo")));
    expect((await runRow(rt, result.run_id)).state).toBe("succeeded");

    // Run 2 of the attempt, on the same thread, answers the interrupt in `resume`, with the conversation so far.
    const runs = remote.received.filter((r) => r.input.threadId === task_id).map((r) => r.input);
    expect(runs.map((r) => r.runId)).toEqual([`${task_id}.1.1`, `${task_id}.1.2`]);
    expect(runs[1]!.resume).toEqual([{ interruptId: `where-${task_id}`, status: "resolved", payload: "Oslo" }]);
    expect(runs[1]!.messages.map((m) => [m.role, "content" in m ? m.content : null])).toEqual([
      ["user", "Pack for my trip please"],
      ["assistant", "Where are you going?"],
      ["user", "Oslo"],
    ]);
    expect(runs[1]!.messages[2]!.id).toBe(reply.id);
  });

  it("ends the task with task.error on RUN_ERROR, interrupting the half-written reply", async () => {
    const asked = await say(rt, thread_id, "[fail] Pack for my trip to Lisbon");
    const error = await waitFor(rt, thread_id, "the error", (evs) => evs.find((e) => e.type === "task.error" && e.ts >= asked.ts), 15_000);
    expect(error.from.agent_id).toBe("agent:packer-1");
    expect(error.payload).toMatchObject({ code: "AG_UI_RUN_ERROR", message: "agent:packer-1 (AG-UI) failed: The forecast service did not answer", retryable: true, details: { ag_ui_code: "FORECAST_DOWN" } });
    expect((await runRow(rt, error.run_id)).state).toBe("failed");
    // The reply it had started streamed, then stopped with the reason; nothing of it was stored.
    const open = hub.find((e) => "open" in e && e.open.task_id === error.task_id);
    const stream_id = open && "open" in open ? open.open.stream_id : "";
    expect(hub.find((e) => "end" in e && e.end.stream_id === stream_id)).toMatchObject({ end: { status: "interrupted", reason: "The forecast service did not answer" } });
    expect((await taskEvents(error.task_id)).filter((e) => e.type === "chat.message" && e.from.agent_id === "agent:packer-1")).toEqual([]);
  });

  it("stops the run when a person stops the reply as it streams: the Stop keeps the text so far, nothing more is stored", async () => {
    const admin = await testPerson(rt, "admin", "Ada");
    // The earlier tests' runs have stopped writing: the stream found below is this run's.
    await rt.runner.idle();
    const asked = await say(rt, thread_id, "Pack for my trip to Paris");
    let opened: { stream_id: string; task_id: string | null } | undefined;
    await expect
      .poll(
        () => {
          // The reply still being written: two deltas in, not ended (the short "Checking the forecast" ends after one).
          const seen = hub.find(
            (e) =>
              "delta" in e &&
              e.delta.text &&
              hub.some((o) => "open" in o && o.open.stream_id === e.delta.stream_id && o.open.started_at >= Date.parse(asked.ts)) &&
              !hub.some((o) => "end" in o && o.end.stream_id === e.delta.stream_id) &&
              hub.filter((o) => "delta" in o && o.delta.stream_id === e.delta.stream_id).length >= 2,
          );
          const open = seen && "delta" in seen ? hub.find((o) => "open" in o && o.open.stream_id === seen.delta.stream_id) : undefined;
          opened = open && "open" in open ? open.open : undefined;
          return opened;
        },
        { timeout: 10_000, interval: 5 },
      )
      .toBeTruthy();
    const { stream_id, task_id } = opened!;
    const res = await stopRoute.POST(requestAs(admin, `http://localhost:3000/api/streams/${encodeURIComponent(stream_id)}/stop`, { method: "POST", headers: { "content-type": "application/json" } }), {
      params: Promise.resolve({ stream_id }),
    });
    expect(res.status).toBe(200);
    await expect.poll(async () => (await taskRow(rt, task_id!)).state, { timeout: 10_000 }).toBe("cancelled");
    await expect.poll(() => remote.aborted, { timeout: 10_000 }).toContain(`${task_id}.1.1`);
    await rt.runner.idle();
    const events = await taskEvents(task_id!);
    const said = events.filter((e) => isEvent(e, "chat.message") && e.from.agent_id === "agent:packer-1");
    expect(said).toHaveLength(1);
    expect(said[0]!.meta).toMatchObject({ stream_id, stopped_by: admin.agent_id });
    expect(packingAdvice(forecastOf("Paris")).startsWith(isEvent(said[0]!, "chat.message") ? said[0]!.payload.text : "?")).toBe(true);
    expect(events.filter((e) => e.type === "task.result" || e.type === "task.error")).toEqual([]);
  });

  it("aborts the HTTP request when the task is cancelled in Clutch", async () => {
    const asked = await say(rt, thread_id, "[slow] Pack for my trip to Berlin");
    const step = await waitFor(rt, thread_id, "the agent at work", (evs) => evs.find((e) => isEvent(e, "task.progress") && e.payload.message === "wait for the forecast" && e.ts >= asked.ts), 15_000);
    await cancelTask(rt.store, await taskRow(rt, step.task_id), DANA, "changed my mind");
    await expect.poll(() => remote.aborted, { timeout: 10_000 }).toContain(`${step.task_id}.1.1`);
    expect((await taskRow(rt, step.task_id)).state).toBe("cancelled");
    await rt.runner.idle();
    expect((await taskEvents(step.task_id)).filter((e) => e.type === "task.error" || e.type === "task.result")).toEqual([]);
  });

  it("tries a run whose connection dropped again, storing nothing twice", async () => {
    const asked = await say(rt, thread_id, "@flaky-1 How many bags for two?");
    const result = await waitFor(rt, thread_id, "the result", (evs) => evs.find((e) => e.type === "task.result" && e.from.agent_id === "agent:flaky-1" && e.ts >= asked.ts), 15_000);
    const events = await taskEvents(result.task_id);
    expect(flaky.requests.filter((r) => r.threadId === result.task_id).map((r) => r.runId)).toEqual([`${result.task_id}.1.1`, `${result.task_id}.1.1`]);
    expect(events.filter((e) => e.type === "tool.call")).toHaveLength(1);
    expect(events.filter((e) => e.type === "tool.result")).toHaveLength(1);
    expect(events.filter((e) => isEvent(e, "task.progress") && e.payload.message === "count")).toHaveLength(1);
    const retry = events.find((e) => isEvent(e, "task.progress") && e.payload.status === "retrying");
    expect(String(retry?.payload.message)).toContain("the stream ended before the run did (terminated");
    const replies = events.filter((e) => isEvent(e, "chat.message"));
    expect(replies.map((e) => (isEvent(e, "chat.message") ? e.payload.text : ""))).toEqual(["Three bags will do."]);
    expect(result.payload).toMatchObject({ report_markdown: "Three bags will do.", data: { bags: 3 } });
    // The first try's half-written reply ended as interrupted; the second one's was stored.
    const streams = hub.flatMap((e) => ("open" in e && e.open.task_id === result.task_id ? [e.open.stream_id] : []));
    expect(streams).toHaveLength(2);
    expect(hub.find((e) => "end" in e && e.end.stream_id === streams[0])).toMatchObject({ end: { status: "interrupted" } });
    expect(replies[0]!.meta?.stream_id).toBe(streams[1]);
  });

  it("ends the task AG_UI_UNREACHABLE when the agent cannot be reached", async () => {
    const asked = await say(rt, thread_id, "@gone-1 Pack for my trip to Porto");
    const error = await waitFor(rt, thread_id, "the error", (evs) => evs.find((e) => e.type === "task.error" && e.ts >= asked.ts), 15_000);
    expect(error.from.agent_id).toBe("agent:gone-1");
    expect(error.payload).toMatchObject({ code: "AG_UI_UNREACHABLE", retryable: true });
    expect(String(error.payload.message)).toContain("could not be reached after 3 attempts: fetch failed");
    const retries = (await taskEvents(error.task_id)).filter((e) => isEvent(e, "task.progress") && e.payload.status === "retrying");
    expect(retries).toHaveLength(2);
  });

  it("ends the task AG_UI_HTTP_ERROR at once when the agent refuses the run", async () => {
    const asked = await say(rt, thread_id, "@locked-1 Pack for my trip to Paris");
    const error = await waitFor(rt, thread_id, "the error", (evs) => evs.find((e) => e.type === "task.error" && e.ts >= asked.ts), 15_000);
    expect(error.from.agent_id).toBe("agent:locked-1");
    expect(error.payload).toMatchObject({ code: "AG_UI_HTTP_ERROR", retryable: false, details: { status: 401 } });
    expect(String(error.payload.message)).toContain("HTTP 401");
    expect((await taskEvents(error.task_id)).filter((e) => isEvent(e, "task.progress") && e.payload.status === "retrying")).toEqual([]);
  });
});

describe.skipIf(inject("embeddedDatabase"))("an AG-UI agent across a restart, on PostgreSQL", () => {
  it("resumes the interrupted run on the next node with the answer, from what the log says", async () => {
    const dir = packerWorkspace();
    const deployment = `test.${newId("task")}`;
    const node = () => testClutch({ workspaceDir: dir, dataDir: fs.mkdtempSync(path.join(os.tmpdir(), "clutch-data-")), modelFor: () => ({}) as never, deployment });
    let first: Clutch | null = await node();
    const channel = first.channels[0]!.thread_id;
    try {
      const asked = await say(first, channel, "Pack for my trip please");
      const question = await waitFor(first, channel, "the question", (evs) => evs.find((e) => isEvent(e, "chat.message") && e.payload.expects_reply && e.from.agent_id === "agent:packer-1" && e.ts >= asked.ts), 15_000);
      await first.stop({ graceMs: 1000 });
      first = null;
      const second = await node();
      try {
        await answer(second, channel, "Berlin");
        const result = await waitFor(second, channel, "the result", (evs) => evs.find((e) => e.type === "task.result" && e.task_id === question.task_id), 15_000);
        expect(result.payload.report_markdown).toBe(packingAdvice(forecastOf("Berlin")));
        const runs = remote.received.filter((r) => r.input.threadId === question.task_id).map((r) => r.input);
        expect(runs.map((r) => r.runId)).toEqual([`${question.task_id}.1.1`, `${question.task_id}.1.2`]);
        expect(runs[1]!.resume).toEqual([{ interruptId: `where-${question.task_id}`, status: "resolved", payload: "Berlin" }]);
        const said = (await second.store.readAll({ run_id: question.run_id })).filter((e) => e.type === "chat.message" && e.from.agent_id === "agent:packer-1");
        expect(said.map((e) => (isEvent(e, "chat.message") ? e.payload.text : ""))).toEqual(["Where are you going?", packingAdvice(forecastOf("Berlin"))]);
      } finally {
        await second.stop({ graceMs: 1000 });
      }
    } finally {
      await first?.stop({ graceMs: 1000 });
    }
  });
});
