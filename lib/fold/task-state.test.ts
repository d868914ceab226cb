/** The task-state fold (lib/fold/task-state.ts): lifecycle, questions, retries. */
import { describe, expect, it } from "vitest";
import { makeMessage, type ClutchMessage, type StoredEvent } from "@/lib/protocol";
import { foldTask, type TaskView } from "./task-state";
import { runStateOf } from "./run-state";

let seq = 0;
const ev = (m: Partial<ClutchMessage> & Pick<ClutchMessage, "type" | "payload">): StoredEvent => ({
  ...makeMessage({ thread_id: "thr_1", run_id: "run_1", task_id: "task_1", from: { agent_id: "agent:orchestrator" }, to: [], ...m } as never),
  seq: ++seq,
});
const fold = (events: StoredEvent[]) => events.reduce<TaskView | undefined>((t, e) => foldTask(t, e), undefined);

describe("foldTask", () => {
  it("follows request → accept → progress → result", () => {
    const t = fold([
      ev({ type: "task.request", payload: { title: "Analyze" }, to: [{ agent_id: "agent:pm-1" }] }),
      ev({ type: "task.accept", payload: {}, from: { agent_id: "agent:pm-1" } }),
      ev({ type: "task.progress", payload: { percent: 50 }, from: { agent_id: "agent:pm-1" } }),
    ]);
    expect(t).toMatchObject({ state: "running", assignee: "agent:pm-1", requester: "agent:orchestrator", title: "Analyze", attempts: 1 });
    const done = foldTask(t, ev({ type: "task.result", payload: {}, from: { agent_id: "agent:pm-1" } }));
    expect(done).toMatchObject({ state: "succeeded", ended_at: expect.any(String) });
  });

  it("waits for input while a question of the assignee is open, and resumes on its answer", () => {
    const q = ev({ type: "chat.message", payload: { text: "Which region?", expects_reply: true }, from: { agent_id: "agent:pm-1" }, to: [{ agent_id: "user" }] });
    const t = fold([
      ev({ type: "task.request", payload: {}, to: [{ agent_id: "agent:pm-1" }] }),
      ev({ type: "task.accept", payload: {}, from: { agent_id: "agent:pm-1" } }),
      q,
    ]);
    expect(t).toMatchObject({ state: "waiting_input", open_questions: [{ id: q.id, from: "agent:pm-1", to: ["user"] }] });
    const answered = foldTask(t, ev({ type: "chat.message", payload: { text: "West", reply_to: q.id }, from: { agent_id: "user:ada", role: "human" } }));
    expect(answered).toMatchObject({ state: "running", open_questions: [] });
  });

  it("returns to running after an approval granted, when a progress note came while it was held", () => {
    const request = { approval_id: "apr_1", subject: { kind: "tool_call", agent: "agent:pm-1", tool: "reply" }, summary: "s", approvers: "any", expires_at: "2030-01-01T00:00:00.000Z" };
    const held = fold([
      ev({ type: "task.request", payload: {}, to: [{ agent_id: "agent:pm-1" }] }),
      ev({ type: "task.accept", payload: {}, from: { agent_id: "agent:pm-1" } }),
      ev({ type: "approval.requested", payload: request, from: { agent_id: "agent:policy", role: "system" } }),
      ev({ type: "task.progress", payload: { message: "waiting for the approval" }, from: { agent_id: "agent:pm-1" } }),
    ]);
    expect(held).toMatchObject({ state: "approval_required" });
    const granted = foldTask(held, ev({ type: "approval.granted", payload: { approval_id: "apr_1", decided_by: "user:ada" }, from: { agent_id: "user:ada", role: "human" } }));
    expect(granted).toMatchObject({ state: "running", open_approvals: [] });
  });

  it("ignores chat in a task it has not seen, and events of other tasks", () => {
    expect(fold([ev({ type: "chat.message", payload: { text: "hi", expects_reply: true } })])).toBeUndefined();
    const t = fold([ev({ type: "task.request", payload: {} })]);
    expect(foldTask(t, ev({ type: "task.result", payload: {}, task_id: "task_2" }))).toBe(t);
  });

  it("counts a new request after failure as a new attempt", () => {
    const t = fold([
      ev({ type: "task.request", payload: {} }),
      ev({ type: "task.error", payload: { code: "X", message: "boom" } }),
      ev({ type: "task.request", payload: {}, attempt: 2 }),
    ]);
    expect(t).toMatchObject({ state: "pending", attempts: 2, error: null, ended_at: null });
  });

  it("stays cancelled when the agent's result arrives after the cancel", () => {
    const t = fold([
      ev({ type: "task.request", payload: {} }),
      ev({ type: "task.accept", payload: {}, from: { agent_id: "agent:pm-1" } }),
      ev({ type: "task.cancel", payload: { reason: "not needed", requested_by: "user:ada" } }),
      ev({ type: "task.result", payload: { summary: "late" }, from: { agent_id: "agent:pm-1" } }),
      ev({ type: "task.error", payload: { code: "X", message: "also late" }, from: { agent_id: "agent:pm-1" } }),
    ]);
    expect(t).toMatchObject({ state: "cancelled", error: { code: "CANCELLED", message: "not needed", requested_by: "user:ada" } });
  });
});

describe("runStateOf", () => {
  it("is running until every root task ends, then the worst outcome", () => {
    expect(runStateOf([])).toBe("running");
    expect(runStateOf(["succeeded", "running"])).toBe("running");
    expect(runStateOf(["succeeded", "failed"])).toBe("failed");
    expect(runStateOf(["succeeded", "cancelled"])).toBe("cancelled");
    expect(runStateOf(["succeeded"])).toBe("succeeded");
  });
});
