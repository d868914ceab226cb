/**
 * A request the example does not cover, through the real loop (orchestrator, runner, MCP hub,
 * PostgreSQL) on the built-in model with the example's playbooks. pm-1 tells the person plainly,
 * in the channel, that the built-in model knows only the example request and how to connect a
 * real model, then submits its result, so the run ends succeeded: pm-1 did what it could (it
 * answered the person) and its result says "Not done". Under the example's own policy that
 * message, like every message pm-1 sends people, is first held for a person's approval.
 */
import fs from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { RunSummary } from "@/lib/api/types";
import type { StoredEvent } from "@/lib/protocol";
import * as decisionRoute from "@/app/api/approvals/[approval_id]/decision/route";
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

  it("gets pm-1's plain answer in the channel, and the run ends succeeded", async () => {
    await say(rt, thread_id, ASKED);
    const answer = await waitFor(rt, thread_id, "pm-1's answer", plainAnswer);
    expectPlainAnswer(String(answer.payload.text));
    expect(answer.payload.expects_reply).toBeUndefined();

    const run = await runEnded(thread_id, answer.run_id);
    expect(run).toMatchObject({ state: "succeeded", task_total: 1, task_done: 1, title: ASKED });
    const events = (await threadEvents(rt, thread_id)).filter((e) => e.run_id === answer.run_id);
    const result = events.find((e) => e.type === "task.result" && e.from.agent_id === "agent:pm-1");
    expect(String(result?.payload.summary)).toMatch(/^Not done/);
    expect(result!.seq).toBeGreaterThan(answer.seq);
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

  it("holds pm-1's answer for a person like any message to people; once approved, it is posted and the run ends succeeded", async () => {
    await say(rt, thread_id, ASKED);
    const held = await waitFor(rt, thread_id, "pm-1's answer held for approval", (evs) =>
      evs.find((e) => e.type === "approval.requested" && e.payload.rule === "approve-final-report"),
    );
    expectPlainAnswer(String(held.payload.preview));
    const decided = await decisionRoute.POST(
      await asAdmin("http://t", { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ decision: "approve" }) }),
      { params: Promise.resolve({ approval_id: String(held.payload.approval_id) }) },
    );
    expect(decided.status).toBe(200);
    const answer = await waitFor(rt, thread_id, "pm-1's answer", plainAnswer);
    expectPlainAnswer(String(answer.payload.text));
    expect(await runEnded(thread_id, held.run_id)).toMatchObject({ state: "succeeded", task_total: 1, task_done: 1 });
  });
});
