/**
 * Refusals are visible and the run goes on: a delegation
 * outside allowed_agents gives task.error PERMISSION_DENIED; a tool outside the agent's
 * mcp_bindings gives tool.error TOOL_NOT_ALLOWED and is never sent to the server.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Clutch } from "@/server/clutch";
import { runRow } from "./helpers";
import { say, scratchWorkspace, startAgents, threadEvents, waitFor, answer } from "./agents";

let rt: Clutch;
let thread_id: string;

beforeAll(async () => {
  // pm-1 may no longer delegate to analyst-1, and may list documents but not read them.
  const ws = scratchWorkspace((m) => {
    const pm = m["pm-1.json"]!;
    pm.allowed_agents = [];
    pm.delegate_rules = {};
    (pm.mcp_bindings as { server_id: string; allowed_tools: string[] }[])[0]!.allowed_tools = ["list_documents"];
  });
  rt = await startAgents(ws.dir);
  thread_id = rt.channels[0]!.thread_id;
});
afterAll(async () => {
  await rt?.stop();
});

describe("refusals", () => {
  it("refuses a delegation and a tool call visibly, and the run still finishes", async () => {
    await say(rt, thread_id, "Analyze last quarter's sales trends");
    const question = await waitFor(rt, thread_id, "pm-1's question", (evs) => evs.find((e) => e.from.agent_id === "agent:pm-1" && e.payload.expects_reply));
    await answer(rt, thread_id, "Regional breakdown by major market");
    const finished = await waitFor(rt, thread_id, "pm-1's result", (evs) =>
      evs.find((e) => e.type === "task.result" && e.run_id === question.run_id && e.from.agent_id === "agent:pm-1"),
    );
    const events = (await threadEvents(rt, thread_id)).filter((e) => e.run_id === question.run_id);

    const toolRefusal = events.find((e) => e.type === "tool.error" && e.payload.code === "TOOL_NOT_ALLOWED");
    expect(toolRefusal?.payload).toMatchObject({ server_id: "DocsServer", tool: "read_file", retryable: false });
    expect(toolRefusal?.payload.message).toMatch(/read_file/);
    const call = events.find((e) => e.type === "tool.call" && e.payload.call_id === toolRefusal!.payload.call_id);
    expect(call).toBeDefined();
    expect(events.some((e) => e.type === "tool.result" && e.payload.tool === "read_file")).toBe(false);

    const denied = events.find((e) => e.type === "task.error" && e.payload.code === "PERMISSION_DENIED");
    expect(denied).toMatchObject({ parent_task_id: question.task_id, payload: { retryable: false } });
    expect(denied!.payload.message).toMatch(/^Project Manager may not delegate to Analyst Agent:/);
    expect(events.some((e) => e.type === "task.request" && e.to[0]?.agent_id === "agent:analyst-1")).toBe(false);

    expect(finished.seq).toBeGreaterThan(denied!.seq);
    const run = await runRow(rt, question.run_id);
    expect(run.state).toBe("succeeded");
    const report = events.filter((e) => e.type === "chat.message" && e.from.agent_id === "agent:pm-1").at(-1)!;
    expect(report.to[0]!.agent_id).toBe("user");
  });
});
