/**
 * Clutch as an ACP server (seed 003; docs/adapters.md "ACP"), driven by the official MCP SDK
 * client over Streamable HTTP against the route handler: the server declares the `agents`
 * capability; `agents/list` names the sales team; `agents/run` on pm-1 starts a run in the
 * channel, streams its steps as deltas, stops at pm-1's clarifying question
 * (`input_required`), and a second call with the run's id and the answer carries it to the
 * team's report. The deltas, joined with the seed's algorithm, are exactly the final output
 * each time. Unknown agents and calls without a key are refused with a message.
 *
 * The other way (docs/adapters.md "ACP", Streaming): an outside agent writing the reply of a task
 * assigned to it sends the seed's `notifications/agents/run/progress` with the task id as its
 * `progressToken` and `delta: { text }`; the deltas grow one StreamHub stream of the task (joined
 * as the seed joins them), which ends done when the result naming it is stored, interrupted when
 * the task is cancelled. Progress for someone else's task, an unknown task, a bad delta, a
 * stopped stream or an ended task is refused with an HTTP status and a JSON-RPC error.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { joinDeltas, type AcpDelta } from "@/lib/acp/delta";
import { makeMessage, newId, type StoredEvent } from "@/lib/protocol";
import type { Clutch } from "@/server/clutch";
import type { HubEvent } from "@/server/streams/hub";
import { cancelTask } from "@/server/lifecycle/cancel";
import { registerAgent } from "@/server/router/registration";
import * as acpRoute from "@/app/api/acp/route";
import { POST as postEvents } from "@/app/api/events/route";
import { requestAs, runRow, taskRow, testAgent, testPerson, type TestPrincipal } from "./helpers";
import { say, scratchWorkspace, startAgents, threadEvents, waitFor } from "./agents";

let rt: Clutch;
let dana: TestPrincipal;
let client: Client;
const deltas = new Map<string | number, AcpDelta[]>();

const Output = z.object({ run_id: z.string(), thread_id: z.string(), channel: z.string(), steps: z.array(z.string()), status: z.string(), text: z.string() });
const RunResult = z.object({ output: Output });
const ListResult = z.object({ agents: z.array(z.object({ name: z.string(), description: z.string(), inputSchema: z.record(z.string(), z.unknown()), outputSchema: z.record(z.string(), z.unknown()) })) });
const Progress = z.object({ method: z.literal("notifications/agents/run/progress"), params: z.object({ progressToken: z.union([z.string(), z.number()]), delta: z.unknown() }) });

/** The route handler as the MCP client's fetch: no HTTP server needed. */
const viaRoute = (url: string | URL, init?: RequestInit) => acpRoute.POST(new Request(url, init), undefined as never);

async function connect(key: string): Promise<Client> {
  const c = new Client({ name: "acp-test", version: "1.0.0" });
  c.setNotificationHandler(Progress, (n) => {
    const list = deltas.get(n.params.progressToken) ?? [];
    list.push(n.params.delta as AcpDelta);
    deltas.set(n.params.progressToken, list);
  });
  await c.connect(new StreamableHTTPClientTransport(new URL("http://test/api/acp"), { fetch: viaRoute, requestInit: { headers: { authorization: `Bearer ${key}` } } }));
  return c;
}

const run = (params: Record<string, unknown>) => client.request({ method: "agents/run", params }, RunResult, { timeout: 120_000 });

beforeAll(async () => {
  rt = await startAgents(scratchWorkspace().dir);
  dana = await testPerson(rt, "member", "Dana");
  client = await connect(dana.key);
});
afterAll(async () => {
  await client?.close();
  await rt?.stop();
});

describe("Clutch's ACP server", () => {
  it("declares the agents capability on initialize", async () => {
    const res = await acpRoute.POST(
      new Request("http://test/api/acp", {
        method: "POST",
        headers: { authorization: `Bearer ${dana.key}`, "content-type": "application/json", accept: "application/json, text/event-stream" },
        body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "initialize", params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "raw", version: "1" } } }),
      }),
      undefined as never,
    );
    expect(res.status).toBe(200);
    const data = (await res.text()).split("\n").find((l) => l.startsWith("data: "))!;
    expect(JSON.parse(data.slice(6)).result.capabilities).toMatchObject({ agents: {} });
  });

  it("lists the workspace's agents with their input and output schemas", async () => {
    const { agents } = await client.request({ method: "agents/list", params: {} }, ListResult);
    expect(agents.map((a) => a.name)).toEqual(expect.arrayContaining(["analyst-1", "pm-1", "qa-1"]));
    const pm = agents.find((a) => a.name === "pm-1")!;
    expect(pm.inputSchema).toMatchObject({ type: "object", required: ["text"] });
    expect(pm.outputSchema).toMatchObject({ required: expect.arrayContaining(["status", "text", "steps"]) });
  });

  it("runs pm-1 in the channel, streaming deltas that join into the output, through its question to the report", async () => {
    const first = await run({ name: "pm-1", input: { text: "Analyze last quarter's sales trends" }, _meta: { progressToken: "ask" } });
    expect(first.output).toMatchObject({ status: "input_required", channel: rt.channels[0]!.name, thread_id: rt.channels[0]!.thread_id });
    expect(first.output.text).toMatch(/regional breakdowns, customer segments, or overall trend/);
    expect(first.output.steps[0]).toBe("pm-1: started");
    expect(joinDeltas(deltas.get("ask")!)).toEqual(first.output);
    expect(deltas.get("ask")!.length).toBe(first.output.steps.length + 2);

    // The run is in the channel like any other, requested by Dana.
    const events = (await threadEvents(rt, first.output.thread_id)).filter((e) => e.run_id === first.output.run_id);
    expect(events.find((e) => e.type === "task.request")).toMatchObject({ to: [{ agent_id: "agent:pm-1" }], payload: { input: { via: "acp", from: { agent_id: dana.agent_id } } } });

    const second = await run({ name: "pm-1", input: { text: "Regional breakdown by major market", run_id: first.output.run_id }, _meta: { progressToken: "answer" } });
    expect(second.output).toMatchObject({ status: "succeeded", run_id: first.output.run_id });
    expect(second.output.text).toMatch(/West/);
    expect(second.output.steps).toEqual(expect.arrayContaining([expect.stringMatching(/^pm-1 → analyst-1: /), expect.stringMatching(/^qa-1: /)]));
    expect(joinDeltas(deltas.get("answer")!)).toEqual(second.output);
    expect(await runRow(rt, first.output.run_id)).toMatchObject({ state: "succeeded" });
  });

  it("cancels the run when the caller aborts the call (the SDK's notifications/cancelled)", async () => {
    const first = await run({ name: "pm-1", input: { text: "Analyze last quarter's sales trends" } });
    expect(first.output.status).toBe("input_required");
    const controller = new AbortController();
    const answering = client.request({ method: "agents/run", params: { name: "pm-1", input: { text: "Regional breakdown by major market", run_id: first.output.run_id } } }, RunResult, { signal: controller.signal, timeout: 120_000 });
    // Abort as soon as the answer is in the log, while the run goes on.
    await waitFor(rt, first.output.thread_id, "the answer", (evs) => evs.find((e) => e.run_id === first.output.run_id && e.type === "chat.message" && e.from.agent_id === dana.agent_id));
    controller.abort("changed my mind");
    await expect(answering).rejects.toThrow();
    await expect.poll(async () => (await runRow(rt, first.output.run_id)).state, { timeout: 20_000 }).toBe("cancelled");
    const cancel = (await threadEvents(rt, first.output.thread_id)).find((e) => e.run_id === first.output.run_id && e.type === "task.cancel");
    expect(cancel?.payload).toMatchObject({ reason: "cancelled by the ACP caller" });
  });

  it("refuses an unknown agent, a run that waits for nothing, and a call without a key", async () => {
    await expect(run({ name: "nobody", input: { text: "hi" } })).rejects.toThrow(/no agent nobody; agents\/list names the agents you may run/);
    await expect(run({ name: "pm-1", input: { text: "" } })).rejects.toThrow(/input.text/);
    // A missing text is invalid params (-32602) with a message, never an internal error.
    const empty = run({ name: "pm-1", input: {} });
    await expect(empty).rejects.toMatchObject({ code: -32602 });
    await expect(empty).rejects.toThrow(/input.text is the request; it is required/);
    await expect(run({ name: "pm-1" })).rejects.toMatchObject({ code: -32602, message: expect.stringContaining("input: { text, channel?, run_id? } is required") });
    const noKey = await acpRoute.POST(new Request("http://test/api/acp", { method: "POST", headers: { "content-type": "application/json" }, body: "{}" }), undefined as never);
    expect(noKey.status).toBe(401);
  });
});

describe("an outside agent's reply streaming over ACP", () => {
  const tag = newId("user").slice(-6).toLowerCase();
  const SCRIBE = `agent:scribe-${tag}`;
  let scribe: TestPrincipal;
  let thread_id: string;
  const heard: HubEvent[] = [];
  /** The reply, as the scribe's model writes it. */
  const PIECES = ["## Meeting notes\n\n", "- Q3 revenue up 12% in the West; ", "East flat.\n", "- Next: a regional breakdown by Friday."];

  beforeAll(async () => {
    await registerAgent(rt.store, rt.registry, { v: "clutch/0.1", agent_id: SCRIBE, display: { name: `Scribe ${tag}` }, capabilities: [{ id: "skill:notes", version: "1.0" }] });
    scribe = await testAgent(rt, SCRIBE);
    thread_id = rt.channels[0]!.thread_id;
    rt.streams.listen((e) => heard.push(e));
  });

  /** POST the seed's progress notification to /api/acp as `as`. */
  const progress = (as: TestPrincipal, params: Record<string, unknown>) =>
    acpRoute.POST(
      requestAs(as, "http://test/api/acp", { method: "POST", headers: { "content-type": "application/json", accept: "application/json, text/event-stream" }, body: JSON.stringify({ jsonrpc: "2.0", method: "notifications/agents/run/progress", params }) }),
      undefined as never,
    );
  /** Post events as the scribe through the API. */
  const post = async (events: unknown[]) => {
    const res = await postEvents(requestAs(scribe, "http://test/api/events", { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(events) }));
    expect(res.status).toBe(201);
    return ((await res.json()) as { events: StoredEvent[] }).events;
  };
  /** A task for the scribe: a person's request that @mentions it. */
  const taskForScribe = async (text: string) => {
    const asked = await say(rt, thread_id, `@scribe-${tag} ${text}`);
    return waitFor(rt, thread_id, "the scribe's task", (evs) => evs.find((e) => e.type === "task.request" && e.to[0]?.agent_id === SCRIBE && e.ts >= asked.ts));
  };
  const streamOf = (stream_id: string) => {
    const info = heard.find((e): e is Extract<HubEvent, { open: unknown }> => "open" in e && e.open.stream_id === stream_id)?.open;
    const texts: string[] = [];
    let text = info?.text ?? "";
    for (const e of heard) {
      if (!("delta" in e) || e.delta.stream_id !== stream_id) continue;
      text = text.slice(0, e.delta.offset) + e.delta.text;
      texts.push(text);
    }
    const end = heard.find((e): e is Extract<HubEvent, { end: unknown }> => "end" in e && e.end.stream_id === stream_id)?.end ?? null;
    return { info, texts, end };
  };

  it("grows a stream of the task from the agent's progress deltas, ended done by the result that names it", async () => {
    const request = await taskForScribe("Write up the meeting notes");
    const task_id = request.task_id;
    const stream_id = `acp:${task_id}`;
    for (const [i, text] of PIECES.entries()) {
      if (i) await new Promise((r) => setTimeout(r, 70)); // longer than the hub's coalescing: one delta each
      const res = await progress(scribe, { progressToken: task_id, delta: { text } });
      expect(res.status).toBe(202);
    }
    const stream = streamOf(stream_id);
    const task = await taskRow(rt, task_id);
    expect(stream.info).toMatchObject({ thread_id, run_id: request.run_id, task_id, author: SCRIBE, to: [task.requester], kind: "result" });
    // Written from outside: the hub interrupts it if the agent goes silent.
    expect(rt.streams.get(stream_id)).toMatchObject({ external: true, ended: null });
    expect(stream.texts.length).toBeGreaterThanOrEqual(3);
    for (const [i, t] of stream.texts.entries()) if (i) expect(t.startsWith(stream.texts[i - 1]!) && t.length > stream.texts[i - 1]!.length).toBe(true);
    // The deltas joined with the seed's algorithm are the stream's text; nothing of them was stored.
    expect(stream.texts.at(-1)).toBe((joinDeltas(PIECES.map((text) => ({ text }))) as { text: string }).text);
    expect((await rt.store.readAll({ run_id: request.run_id })).filter((e) => e.from.agent_id === SCRIBE)).toEqual([]);

    const at = { thread_id, run_id: request.run_id, task_id, parent_task_id: request.parent_task_id ?? null, from: { agent_id: SCRIBE, role: "worker" as const }, to: [{ agent_id: request.from.agent_id }] };
    const report = PIECES.join("");
    const [, result] = await post([
      makeMessage({ type: "task.accept", ...at, payload: { agent_id: SCRIBE } }),
      makeMessage({ type: "task.result", ...at, payload: { summary: "Meeting notes", report_markdown: report }, meta: { stream_id } }),
    ]);
    expect(result!.meta).toMatchObject({ stream_id });
    await expect.poll(() => streamOf(stream_id).end).toEqual({ stream_id, status: "done" });
    expect(stream.texts.at(-1)).toBe(result!.payload.report_markdown);
    // Its task has ended: no more progress for it.
    const late = await progress(scribe, { progressToken: `${task_id}#late`, delta: { text: "P.S." } });
    expect(late.status).toBe(409);
    expect((await late.json()).error.message).toContain(`task ${task_id} has ended (succeeded)`);
  });

  it("refuses progress that is not the agent's to write; a Stop and a cancel end its streams", async () => {
    const request = await taskForScribe("Summarize the call");
    const task_id = request.task_id;
    const refused = async (res: Response, status: number, message: string) => {
      expect(res.status).toBe(status);
      const body = (await res.json()) as { jsonrpc: string; id: null; error: { code: number; message: string } };
      expect(body).toMatchObject({ jsonrpc: "2.0", id: null, error: { code: -32602 } });
      expect(body.error.message).toContain(message);
    };
    const other = await testAgent(rt, `agent:intruder-${tag}`);
    await refused(await progress(other, { progressToken: task_id, delta: { text: "Not mine" } }), 403, `task ${task_id} is assigned to ${SCRIBE}, not to ${other.agent_id}`);
    await refused(await progress(scribe, { progressToken: "task_nothing", delta: { text: "Hello" } }), 404, "no task task_nothing");
    await refused(await progress(scribe, { progressToken: task_id, delta: { text: 42 } }), 400, "delta.text: the text to add to the message, a string");
    await refused(await progress(scribe, { progressToken: task_id, delta: { text: "x", status: "working" } }), 400, "delta: { text } is what Clutch takes from an agent's progress");
    await refused(await progress(scribe, { delta: { text: "x" } }), 400, "progressToken: the id of the Clutch task you work on");
    await refused(await progress(scribe, { progressToken: task_id, delta: { text: "x".repeat(100_001) } }), 400, "delta.text: the message would be 100,001 characters, and one is at most 100,000");
    expect(streamOf(`acp:${task_id}`).info).toBeUndefined();

    // A person stops the reply as it streams: the agent learns it at its next delta.
    const draft = `acp:${task_id}#draft`;
    expect((await progress(scribe, { progressToken: `${task_id}#draft`, delta: { text: "So far: " } })).status).toBe(202);
    expect(rt.streams.endFromOutside({ stream_id: draft, status: "stopped", stopped_by: dana.agent_id })).toBe(true);
    await refused(await progress(scribe, { progressToken: `${task_id}#draft`, delta: { text: "more" } }), 409, `${dana.agent_id} stopped stream ${draft}: stop writing it and store nothing for it`);

    // A new message of the same task streams anew; cancelling the task interrupts it.
    const again = `acp:${task_id}#again`;
    expect((await progress(scribe, { progressToken: `${task_id}#again`, delta: { text: "Take two: " } })).status).toBe(202);
    expect(streamOf(again).info).toMatchObject({ task_id, author: SCRIBE, text: "" });
    await cancelTask(rt.store, await taskRow(rt, task_id), { agent_id: dana.agent_id, role: "human", display_name: "Dana" }, "not needed");
    await expect.poll(() => streamOf(again).end).toEqual({ stream_id: again, status: "interrupted", reason: "the task was cancelled: not needed" });
    await refused(await progress(scribe, { progressToken: `${task_id}#again`, delta: { text: "more" } }), 409, `stream ${again} has ended (interrupted: the task was cancelled: not needed)`);
  });
});
