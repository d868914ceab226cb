/**
 * Clutch as an ACP server (seed 003; docs/adapters.md "ACP"), driven by the official MCP SDK
 * client over Streamable HTTP against the route handler: the server declares the `agents`
 * capability; `agents/list` names the sales team; `agents/run` on pm-1 starts a run in the
 * channel, streams its steps as deltas, stops at pm-1's clarifying question
 * (`input_required`), and a second call with the run's id and the answer carries it to the
 * team's report. The deltas, joined with the seed's algorithm, are exactly the final output
 * each time. Unknown agents and calls without a key are refused with a message.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { joinDeltas, type AcpDelta } from "@/lib/acp/delta";
import type { Clutch } from "@/server/clutch";
import * as acpRoute from "@/app/api/acp/route";
import { runRow, testPerson, type TestPrincipal } from "./helpers";
import { scratchWorkspace, startAgents, threadEvents, waitFor } from "./agents";

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
