/**
 * A request the example does not cover, through the real loop (orchestrator, runner, MCP hub,
 * PostgreSQL) on the built-in model with the example's playbooks. pm-1 tells the person plainly,
 * in the channel, that the built-in model knows only the example request and how to connect a
 * real model, then declines the task (task.error CANNOT_ANSWER, not retryable), so the run is
 * "not done", never "succeeded". Under the example's own policy that message reaches people at
 * once: the policy holds only pm-1's report (payload_type chat.report.v1).
 */
import fs from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { RunSummary } from "@/lib/api/types";
import type { StoredEvent } from "@/lib/protocol";
import * as threadRunsRoute from "@/app/api/threads/[thread_id]/runs/route";
import type { Clutch } from "@/server/clutch";
import { say, scratchWorkspace, startAgents, threadEvents, waitFor } from "@/test/agents";
import { asAdmin } from "@/test/helpers";
import { EXAMPLE_REQUEST } from "./playbooks/request";

const ASKED = "Which product category had the highest profit in 2016?";

/** The run `run_id` of `thread_id` once it has ended, as GET /api/threads/:id/runs gives it. */
async function runEnded(thread_id: string, run_id: string): Promise<RunSummary> {
  const end = Date.now() + 60_000;
  for (;;) {
    const res = await threadRunsRoute.GET(await asAdmin("http://t"), { params: Promise.resolve({ thread_id }) });
    const run = ((await res.json()) as { runs: RunSummary[] }).runs.find((r) => r.run_id === run_id);
    if (run && run.state !== "running") return run;
    if (Date.now() > end) throw new Error(`run ${run_id} still ${run?.state ?? "missing"}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

const plainAnswer = (evs: StoredEvent[]) =>
  evs.find((e) => e.type === "chat.message" && e.from.agent_id === "agent:pm-1" && e.to[0]?.agent_id === "user");

/** What pm-1 must say: what the built-in model knows and how to connect a real one. */
function expectPlainAnswer(text: string) {
  expect(text).toContain(`knows only the example request, *${EXAMPLE_REQUEST}*`);
  expect(text).toContain(ASKED);
  for (const v of ["CLUTCH_MODEL=openai:<model>", "OPENAI_BASE_URL", "CLUTCH_MODEL=anthropic:<model>", "ANTHROPIC_API_KEY", "CLUTCH_MODEL_PM_1"]) expect(text).toContain(v);
}

describe("a request other than the example's", () => {
  let rt: Clutch;
  let thread_id: string;
  beforeAll(async () => {
    rt = await startAgents(scratchWorkspace().dir);
    thread_id = rt.channels[0]!.thread_id;
  });
  afterAll(async () => {
    await rt?.stop();
  });

  it("gets pm-1's plain answer in the channel, and the run ends not done", async () => {
    await say(rt, thread_id, ASKED);
    const answer = await waitFor(rt, thread_id, "pm-1's answer", plainAnswer);
    expectPlainAnswer(String(answer.payload.text));
    expect(answer.payload.expects_reply).toBeUndefined();

    const run = await runEnded(thread_id, answer.run_id);
    expect(run).toMatchObject({ state: "failed", status: "not_done", task_total: 1, task_done: 1, title: ASKED });
    expect(run.outcome).toMatchObject({ kind: "error", text: expect.stringContaining("knows only the example request") });
    const events = (await threadEvents(rt, thread_id)).filter((e) => e.run_id === answer.run_id);
    expect(events.some((e) => e.type === "task.result")).toBe(false);
    const declined = events.find((e) => e.type === "task.error" && e.from.agent_id === "agent:pm-1");
    expect(declined?.payload).toMatchObject({ code: "CANNOT_ANSWER", retryable: false });
    expect(declined!.seq).toBeGreaterThan(answer.seq);
    // No clarifying question, no MCP call (the spec is not read), no delegation: nothing of the example ran.
    expect(events.some((e) => e.type === "chat.message" && e.payload.expects_reply)).toBe(false);
    expect(events.filter((e) => e.type === "tool.call" && e.payload.server_id)).toEqual([]);
    expect(events.filter((e) => e.type === "task.request").map((e) => e.to[0]?.agent_id)).toEqual(["agent:pm-1"]);
  });
});

describe("the same request under the example's policy", () => {
  let rt: Clutch;
  let thread_id: string;
  beforeAll(async () => {
    const policy = fs.readFileSync("examples/sales-analysis/clutch.policy.yaml", "utf8");
    rt = await startAgents(scratchWorkspace(undefined, policy).dir);
    thread_id = rt.channels[0]!.thread_id;
  });
  afterAll(async () => {
    await rt?.stop();
  });

  it("does not hold pm-1's plain answer (only reports are held): it reaches the channel at once and the run is not done", async () => {
    await say(rt, thread_id, ASKED);
    const answer = await waitFor(rt, thread_id, "pm-1's answer", plainAnswer);
    expectPlainAnswer(String(answer.payload.text));
    const run = await runEnded(thread_id, answer.run_id);
    expect(run).toMatchObject({ status: "not_done", task_total: 1, task_done: 1 });
    const events = (await threadEvents(rt, thread_id)).filter((e) => e.run_id === answer.run_id);
    expect(events.filter((e) => e.type === "approval.requested")).toEqual([]);
    expect(events.find((e) => e.type === "policy.decision" && e.payload.subject && (e.payload.subject as { tool?: string }).tool === "reply")?.payload).toMatchObject({ decision: "allow" });
  });
});
