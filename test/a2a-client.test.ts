/**
 * Clutch as an A2A client (Clutch Protocol §7.2, docs/adapters.md "A2A"): travel-1 is a workspace
 * agent whose manifest names an A2A agent card (an `@a2a-js/sdk` server started here,
 * examples/agents-from-anywhere/travel-agent.ts). A person's request goes out as a streamed message with the manifest's
 * credentials; its status updates become task.progress, input-required a question in the channel
 * whose answer goes back on the same A2A task, artifacts the task.result; a remote failure is a
 * task.error; a Clutch cancel sends CancelTask; an agent that cannot be reached ends the task
 * A2A_UNREACHABLE instead of leaving it waiting. A registered (non-workspace) agent whose card
 * names an A2A endpoint is reached the same way.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { newId } from "@/lib/protocol";
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

beforeAll(async () => {
  remote = await startA2AAgent();
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
  fs.writeFileSync(path.join(dir, "mcp.json"), JSON.stringify({ mcpServers: {} }));
  const channel = `a2a-${newId("thread").slice(-8).toLowerCase()}`;
  fs.writeFileSync(path.join(dir, "workspace.json"), JSON.stringify({ channels: [{ name: channel, entry_agent: "travel-1", answers: "every_message" }], lifecycle: { retry_delay_ms: 20 } }));
  rt = await testClutch({ workspaceDir: dir, dataDir: fs.mkdtempSync(path.join(os.tmpdir(), "clutch-data-")), modelFor: () => ({}) as never });
  thread_id = rt.channels[0]!.thread_id;
});
afterAll(async () => {
  await rt?.stop();
  await remote?.close();
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
