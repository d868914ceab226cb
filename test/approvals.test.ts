/**
 * Policy and approvals in a real run: a call held for approval pauses its task while other work
 * goes on; approving resumes it; a rejection reaches the agent, which carries on; a pending
 * approval survives a restart.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { StoredEvent } from "@/lib/protocol";
import type { Clutch } from "@/server/clutch";
import { say, scratchWorkspace, startAgents, threadEvents, waitFor, answer } from "./agents";
import { runRow, taskRow, approver } from "./helpers";

const POLICY = `
version: 1
rules:
  - id: human-confirms-review
    match: { agent: qa-1, tool: submit_result }
    decision: require_approval
    reason: A person confirms qa-1's verdict
  - id: approve-report
    match: { agent: pm-1, tool: reply, recipient: user }
    decision: require_approval
    approvers: [user:dana]
    reason: Reports to people are checked first
`;

let rt: Clutch;
let ws: { dir: string; channel: string };
let thread_id: string;

beforeAll(async () => {
  ws = scratchWorkspace(undefined, POLICY);
  rt = await startAgents(ws.dir);
  thread_id = rt.channels[0]!.thread_id;
});
afterAll(async () => {
  await rt?.stop();
});

const requested = (evs: StoredEvent[], rule: string, after = 0) =>
  evs.find((e) => e.type === "approval.requested" && e.payload.rule === rule && e.seq > after);

describe("approvals", () => {
  it("holds qa-1's verdict for a person, resumes on approval, survives a restart, and lets a rejection reach pm-1", async () => {
    await say(rt, thread_id, "Analyze last quarter's sales trends");
    const q = await waitFor(rt, thread_id, "the question", (evs) => evs.find((e) => e.from.agent_id === "agent:pm-1" && e.payload.expects_reply));
    await answer(rt, thread_id, "Regional breakdown by major market");

    const review = await waitFor(rt, thread_id, "qa-1's verdict held for approval", (evs) => requested(evs, "human-confirms-review"));
    expect(review.payload).toMatchObject({ recommendation: { decision: "approved" }, approvers: "any", summary: "QA Agent will submit its review: approved" });
    const policyEvent = (await threadEvents(rt, thread_id)).find((e) => e.type === "policy.decision" && e.payload.approval_id === review.payload.approval_id);
    expect(policyEvent?.payload).toMatchObject({ decision: "require_approval", rule: "human-confirms-review" });
    expect((await taskRow(rt, review.task_id)).state).toBe("approval_required");
    // The held call is recorded (tool.call without an outcome); after that nothing moves on.
    await waitFor(rt, thread_id, "the held call recorded", (evs) =>
      evs.find((e) => e.type === "tool.call" && e.task_id === review.task_id && e.payload.tool === "submit_result"),
    );
    await new Promise((r) => setTimeout(r, 300));
    const held = (await threadEvents(rt, thread_id)).length;
    await new Promise((r) => setTimeout(r, 800));
    expect((await threadEvents(rt, thread_id)).length).toBe(held);

    // Restart Clutch while the approval is pending: it is still pending afterwards.
    await rt.stop();
    rt = await startAgents(ws.dir);
    const pending = await rt.approvals.decide(String(review.payload.approval_id), { decision: "approve" }, approver("Lee"));
    expect(pending.state).toBe("granted");

    const report = await waitFor(rt, thread_id, "the report held for dana", (evs) => requested(evs, "approve-report", review.seq));
    expect(report.payload.approvers).toEqual(["user:dana"]);
    expect(String(report.payload.preview)).toMatch(/Q4 2017 sales trends/);
    await expect(rt.approvals.decide(String(report.payload.approval_id), { decision: "approve" }, approver("Lee"))).rejects.toMatchObject({
      code: "not_an_approver",
    });
    await rt.approvals.decide(String(report.payload.approval_id), { decision: "reject", comment: "Not yet, add the margins" }, approver("Dana"));

    const refusal = await waitFor(rt, thread_id, "pm-1 told of the rejection", (evs) =>
      evs.find((e) => e.type === "tool.error" && e.from.agent_id === "agent:pm-1" && e.payload.code === "PERMISSION_DENIED"),
    );
    expect(refusal.payload.message).toMatch(/rejected by Dana: Not yet, add the margins/);
    await expect(rt.approvals.decide(String(report.payload.approval_id), { decision: "approve" }, approver("Dana"))).rejects.toMatchObject({ code: "not_pending" });
    // pm-1 reacts: the report is not sent, pm-1 finishes its task, and the run comes to an end.
    await waitFor(rt, thread_id, "pm-1's result", (evs) => evs.find((e) => e.run_id === q.run_id && e.type === "task.result" && e.from.agent_id === "agent:pm-1"));
    const events = (await threadEvents(rt, thread_id)).filter((e) => e.run_id === q.run_id);
    expect(events.some((e) => e.type === "chat.message" && e.from.agent_id === "agent:pm-1" && e.to[0]?.agent_id === "user" && !e.payload.expects_reply)).toBe(false);
    expect(events.filter((e) => e.type === "approval.granted").map((e) => e.payload.by)).toEqual(["user:lee"]);
    expect(events.filter((e) => e.type === "approval.rejected").map((e) => [e.payload.by, e.payload.comment])).toEqual([["user:dana", "Not yet, add the margins"]]);
    const run = await runRow(rt, q.run_id);
    expect(run.state).toBe("succeeded");
  });
});
