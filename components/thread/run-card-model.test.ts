/**
 * The channel's run card and run banner (run-card-model.ts, run-banner-model.ts) say a run's
 * status in the words of the run view and /runs (docs/channels.md "Run states"), from the
 * RunSummary the server folds: who the run waits on for the person reading, "Cancelled by Lee",
 * "Not done", the tasks that succeeded of all (a cancelled run never shows a full bar), and each
 * task in hand in the same words (no raw state name such as approval_required).
 */
import { describe, expect, it } from "vitest";
import type { RunSummary } from "@/lib/api/types";
import { foldRun, runStatusAt } from "@/lib/fold/run-graph";
import type { WaitingOn } from "@/lib/fold/run-status";
import { ADMIN, APPROVAL_ID, approvalRun, cancelledRun, DANA, declinedRun, LEE, nameOf, QUESTION_ID, questionRun, RUN_ID, TASK_ID } from "@/test/fixtures/status-runs";
import { runBannerModel } from "./run-banner-model";
import { runCardModel } from "./run-card-model";

/** A RunSummary as the server answers it, with the status of `events` folded. */
function summary(events: Parameters<typeof foldRun>[0], extra: Partial<RunSummary> = {}): RunSummary {
  const at = foldRun(events);
  const facts = runStatusAt(at);
  return {
    run_id: RUN_ID,
    thread_id: "thr_sales",
    run_number: 1,
    requester: "user:dana",
    agents: ["agent:pm-1"],
    state: at.run_state,
    status: facts.status,
    waiting_on: [...facts.waiting_on],
    cancelled_by: facts.cancelled_by,
    title: "Analyze last quarter's sales trends",
    started_at: events[0]!.ts,
    updated_at: events.at(-1)!.ts,
    ended_at: at.ended_at,
    task_total: at.task_total,
    task_done: at.task_done,
    task_succeeded: at.state_counts.succeeded,
    event_count: events.length,
    first_seq: 1,
    last_seq: events.length,
    forked_from: null,
    active: at.run_state === "running" ? [{ task_id: TASK_ID, title: "Analyze last quarter's sales trends", assignee: "agent:pm-1", state: at.state_counts.approval_required ? "approval_required" : at.state_counts.waiting_input ? "waiting_input" : "running" }] : [],
    questions: [],
    approvals: [],
    outcome: null,
    usage: [],
    ...extra,
  };
}

describe("the run card", () => {
  it("says whom a run waiting on an approval needs: 'Waiting on you' for an admin, 'Waiting on an admin' for a member", () => {
    const run = summary(approvalRun().slice(0, 4));
    expect(runCardModel(run, ADMIN, nameOf)).toMatchObject({ label: "Waiting on you", working: [{ label: "Waiting on you" }], progress: { text: "0 of 1 task done" } });
    expect(runCardModel(run, DANA, nameOf)).toMatchObject({ label: "Waiting on an admin", working: [{ label: "Waiting on an admin" }] });
  });

  it("says whom a question waits on, and the task's words match", () => {
    const run = summary(questionRun().slice(0, 3));
    expect(runCardModel(run, DANA, nameOf)).toMatchObject({ label: "Waiting on you", working: [{ assignee: "agent:pm-1", label: "Waiting on you" }] });
    expect(runCardModel(run, LEE, nameOf)).toMatchObject({ label: "Waiting on Dana", working: [{ label: "Waiting on Dana" }] });
  });

  it("names no raw state, even for a task in hand the runs do not list a wait for", () => {
    const run = summary(approvalRun().slice(0, 4), { waiting_on: [] });
    expect(runCardModel(run, DANA, nameOf).working[0]!.label).toBe("Waiting on an approval");
  });

  it("shows a cancelled run with 1 task as 'Cancelled by Lee Park', 0 of 1 task done, the bar empty", () => {
    const model = runCardModel(summary(cancelledRun()), DANA, nameOf);
    expect(model.label).toBe("Cancelled by Lee Park");
    expect(model.progress).toEqual({ done: 0, total: 1, fraction: 0, text: "0 of 1 task done" });
  });

  it("shows a declined run as 'Not done', 0 of 1 task done", () => {
    expect(runCardModel(summary(declinedRun()), DANA, nameOf)).toMatchObject({ label: "Not done", progress: { text: "0 of 1 task done", fraction: 0 } });
  });

  it("counts the tasks that succeeded once the run succeeded", () => {
    expect(runCardModel(summary(approvalRun()), DANA, nameOf)).toMatchObject({ label: "Succeeded", progress: { text: "1 of 1 task done", fraction: 1 } });
  });
});

describe("the run banner", () => {
  it("says the agent waits on you when you may decide its approval, on an admin when not", () => {
    const runs = [summary(approvalRun().slice(0, 4))];
    const approval = { id: APPROVAL_ID, agent: "Project Manager" };
    expect(runBannerModel(runs, null, approval, ADMIN, nameOf)).toEqual({ progress: "1 waiting on you", lead: "Project Manager is waiting on you", action: "Review" });
    expect(runBannerModel(runs, null, approval, DANA, nameOf)).toEqual({ progress: "1 waiting on others", lead: "Project Manager is waiting on an admin", action: "Review" });
  });

  it("says whom a question waits on", () => {
    const runs = [summary(questionRun().slice(0, 3))];
    const question = { id: QUESTION_ID, agent: "Project Manager" };
    expect(runBannerModel(runs, question, null, DANA, nameOf).lead).toBe("Project Manager is waiting on you");
    expect(runBannerModel(runs, question, null, LEE, nameOf).lead).toBe("Project Manager is waiting on Dana");
    // A question the runs do not list yet (it just arrived): what it waits on.
    const none: WaitingOn[] = [];
    expect(runBannerModel([{ ...runs[0]!, waiting_on: none }], question, null, LEE, nameOf).lead).toBe("Project Manager is waiting on an answer");
  });

  it("counts the runs in progress when nothing waits", () => {
    expect(runBannerModel([summary(approvalRun().slice(0, 2))], null, null, DANA, nameOf)).toEqual({ progress: "1 running", lead: null, action: "Show" });
  });
});
