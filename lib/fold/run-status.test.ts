/**
 * A run's status and its words (lib/fold/run-status.ts; docs/channels.md "Run states"): what a
 * person reads for a run and a task, from the same fold the server's RunSummary and the run view
 * use: "Waiting on you" for whom the run needs, "Waiting on an admin" / "Waiting on Dana" for
 * everyone else, "Cancelled by Lee", "Not done" for a declined run, tasks done counted by the
 * tasks that succeeded, and no raw state name anywhere.
 */
import { describe, expect, it } from "vitest";
import { ADMIN, DANA, LEE, nameOf } from "@/test/fixtures/status-runs";
import {
  progressOf,
  RUN_STATUS_LABEL,
  RUN_STATUSES,
  runStatusFacts,
  runStatusLabel,
  runsInProgressLabel,
  TASK_STATE_LABEL,
  taskStatusLabel,
  taskWaitingOn,
  waitingLabel,
  waitingOnOf,
  type ApprovalFacts,
  type TaskFacts,
} from "./run-status";
import { TASK_STATES, type OpenQuestion, type TaskState } from "./task-state";

const task = (state: TaskState, extra: Partial<TaskFacts> = {}): TaskFacts => ({ task_id: "task_pm", state, error: null, open_questions: [], ...extra });
const question = (to: string[], id = "msg_q"): OpenQuestion => ({ id, from: "agent:pm-1", to });
const approval = (extra: Partial<ApprovalFacts> = {}): ApprovalFacts => ({
  approval_id: "apr_1",
  task_id: "task_pm",
  agent_id: "agent:pm-1",
  approvers: ["role:admin"],
  state: "pending",
  request: { requesters: ["user:dana"] },
  ...extra,
});

describe("whom a run waits on (waitingOnOf)", () => {
  it("lists questions to people of tasks not ended, then approvals without a decision", () => {
    const tasks = [
      task("waiting_input", { task_id: "t1", open_questions: [question(["user:dana", "agent:analyst-1"], "q1"), question(["agent:analyst-1"], "q2")] }),
      task("cancelled", { task_id: "t2", open_questions: [question(["user"], "q3")] }),
    ];
    const waits = waitingOnOf(tasks, [approval(), approval({ approval_id: "apr_2", state: "granted" })]);
    expect(waits).toEqual([
      { kind: "answer", task_id: "t1", message_id: "q1", from: "agent:pm-1", to: ["user:dana"] },
      { kind: "approval", task_id: "task_pm", approval_id: "apr_1", agent_id: "agent:pm-1", approvers: ["role:admin"], requesters: ["user:dana"], forbid_self_approval: false },
    ]);
  });

  it("lets a task wait on an agent too (its own open questions and approvals)", () => {
    const t = { ...task("waiting_input", { open_questions: [question(["agent:analyst-1"])] }), open_approvals: [] };
    expect(taskStatusLabel(t, taskWaitingOn(t, []), DANA, nameOf)).toBe("Waiting on Analyst");
    const held = { ...task("approval_required"), open_approvals: [{ id: "apr_1", resume: "running" as const }] };
    expect(taskWaitingOn(held, waitingOnOf([], [approval({ approval_id: "other" }), approval()])).map((w) => w.kind === "approval" && w.approval_id)).toEqual(["apr_1"]);
  });
});

describe("the words a person reads for a run", () => {
  const waitingOnAdmin = runStatusFacts([task("approval_required")], waitingOnOf([], [approval()]));

  it("reads 'Waiting on you' for an approver and 'Waiting on an admin' for a member", () => {
    expect(waitingOnAdmin.status).toBe("waiting");
    expect(runStatusLabel(waitingOnAdmin, ADMIN, nameOf)).toBe("Waiting on you");
    expect(runStatusLabel(waitingOnAdmin, DANA, nameOf)).toBe("Waiting on an admin");
    expect(runStatusLabel(waitingOnAdmin, null, nameOf)).toBe("Waiting on an admin");
  });

  it("never has the requester approve their own work when the rule forbids it", () => {
    const self = runStatusFacts([task("approval_required")], waitingOnOf([], [approval({ approvers: "any", request: { requesters: ["user:dana"], forbid_self_approval: true } })]));
    expect(runStatusLabel(self, DANA, nameOf)).toBe("Waiting on an approver");
    expect(runStatusLabel(self, LEE, nameOf)).toBe("Waiting on you");
  });

  it("reads 'Waiting on you' for whom a question is put to, and their name for everyone else", () => {
    const asked = runStatusFacts([task("waiting_input")], waitingOnOf([task("waiting_input", { open_questions: [question(["user:dana"])] })], []));
    expect(runStatusLabel(asked, DANA, nameOf)).toBe("Waiting on you");
    expect(runStatusLabel(asked, LEE, nameOf)).toBe("Waiting on Dana");
    const toAll = runStatusFacts([task("waiting_input")], waitingOnOf([task("waiting_input", { open_questions: [question(["user"])] })], []));
    expect(runStatusLabel(toAll, LEE, nameOf)).toBe("Waiting on you");
  });

  it("reads 'Running' while nobody is waited on, even with a question between agents", () => {
    const facts = runStatusFacts([task("waiting_input")], waitingOnOf([task("waiting_input", { open_questions: [question(["agent:analyst-1"])] })], []));
    expect(runStatusLabel(facts, ADMIN, nameOf)).toBe("Running");
  });

  it("names who cancelled: the name the cancel carried, else the person's name", () => {
    const carried = runStatusFacts([task("cancelled", { error: { code: "CANCELLED", message: "", requested_by: "user:lee", requested_by_name: "Lee Park" } })], []);
    expect(carried).toMatchObject({ status: "cancelled", cancelled_by: { id: "user:lee", name: "Lee Park" } });
    expect(runStatusLabel(carried, DANA, nameOf)).toBe("Cancelled by Lee Park");
    const bare = runStatusFacts([task("cancelled", { error: { code: "CANCELLED", message: "", requested_by: "user:lee" } })], []);
    expect(runStatusLabel(bare, DANA, nameOf)).toBe("Cancelled by Lee");
    expect(runStatusLabel(runStatusFacts([task("cancelled")], []), DANA, nameOf)).toBe("Cancelled");
  });

  it("reads 'Not done' when the agent declined, 'Failed' when anything else failed", () => {
    const declined = { code: "CANNOT_ANSWER", message: "I only know the sales data" };
    expect(runStatusLabel(runStatusFacts([task("failed", { error: declined })], []), DANA, nameOf)).toBe("Not done");
    expect(runStatusLabel(runStatusFacts([task("failed", { error: declined }), task("failed", { error: { code: "MODEL_ERROR" } })], []), DANA, nameOf)).toBe("Failed");
    expect(runStatusLabel(runStatusFacts([task("timed_out")], []), DANA, nameOf)).toBe("Timed out");
    expect(runStatusLabel(runStatusFacts([task("succeeded"), task("succeeded")], []), DANA, nameOf)).toBe("Succeeded");
  });

  it("says how many runs are in progress, and how many wait on you", () => {
    const running = runStatusFacts([task("running")], []);
    expect(runsInProgressLabel([running, waitingOnAdmin], ADMIN)).toBe("1 running · 1 waiting on you");
    expect(runsInProgressLabel([running, waitingOnAdmin], DANA)).toBe("1 running · 1 waiting on others");
  });
});

describe("the words a person reads for a task", () => {
  it("says whom a waiting task waits on, and falls back to what it waits on", () => {
    const held = { ...task("approval_required"), open_approvals: [{ id: "apr_1", resume: "running" as const }] };
    const runWaits = waitingOnOf([], [approval()]);
    expect(taskStatusLabel(held, taskWaitingOn(held, runWaits), ADMIN, nameOf)).toBe("Waiting on you");
    expect(taskStatusLabel(held, taskWaitingOn(held, runWaits), DANA, nameOf)).toBe("Waiting on an admin");
    expect(taskStatusLabel(held, [], DANA, nameOf)).toBe("Waiting on an approval");
    expect(taskStatusLabel(task("waiting_input"), [], DANA, nameOf)).toBe("Waiting on an answer");
    expect(taskStatusLabel(task("failed", { error: { code: "CANNOT_ANSWER" } }), [], DANA, nameOf)).toBe("Not done");
    expect(taskStatusLabel(task("cancelled", { error: { code: "CANCELLED", requested_by: "user:lee" } }), [], DANA, nameOf)).toBe("Cancelled by Lee");
  });

  it("never shows a raw state name", () => {
    const raw = /_|^[a-z]/;
    for (const s of TASK_STATES) {
      expect(TASK_STATE_LABEL[s]).not.toMatch(raw);
      expect(taskStatusLabel(task(s), [], DANA, nameOf)).not.toMatch(raw);
    }
    for (const s of RUN_STATUSES) expect(RUN_STATUS_LABEL[s]).not.toMatch(raw);
    expect(waitingLabel({ waiting_on: [] }, DANA)).toBe("Waiting");
  });
});

describe("progress counts the tasks that succeeded", () => {
  it("shows a cancelled run with its one task not done, the bar empty", () => {
    expect(progressOf(0, 1)).toEqual({ done: 0, total: 1, fraction: 0, text: "0 of 1 task done" });
    expect(progressOf(2, 3)).toMatchObject({ text: "2 of 3 tasks done", fraction: 2 / 3 });
    expect(progressOf(0, 0)).toMatchObject({ text: "0 of 0 tasks done", fraction: 0 });
  });
});
