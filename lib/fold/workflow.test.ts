/** The workflow fold: steps from waiting to their outcome, live and at any point of a replay. */
import { describe, expect, it } from "vitest";
import { makeMessage, type StoredEvent } from "@/lib/protocol";
import { workflowProgress } from "./workflow";

const at = { thread_id: "thr_1", run_id: "run_1" };
let seq = 0;
const ev = (m: Parameters<typeof makeMessage>[0]): StoredEvent => ({ ...makeMessage(m), seq: ++seq });
const wf = { name: "product-research", version: 2, steps: [{ id: "research", title: "Research", capability: "skill:research", instructions: null, payload_type: "research.summary.v1", required: [] }, { id: "review", title: "Review", capability: "skill:review", instructions: null, payload_type: null, required: [] }] };
const person = { agent_id: "user:dana", role: "human" };
const flow = { agent_id: "agent:workflow", role: "orchestrator" };

const events = [
  ev({ type: "task.request", ...at, task_id: "task_root", from: person, to: [flow], payload: { title: "go" }, meta: { workflow: wf } }),
  ev({ type: "task.accept", ...at, task_id: "task_root", from: flow, to: [person], payload: {} }),
  ev({ type: "task.request", ...at, task_id: "task_a", parent_task_id: "task_root", from: flow, to: [{ agent_id: "agent:orchestrator" }], payload: { title: "Research" }, meta: { workflow_step: "research" } }),
  ev({ type: "task.request", ...at, task_id: "task_a", parent_task_id: "task_root", from: flow, to: [{ agent_id: "agent:researcher-1" }], payload: { title: "Research" }, meta: { workflow_step: "research" } }),
  ev({ type: "task.accept", ...at, task_id: "task_a", parent_task_id: "task_root", from: { agent_id: "agent:researcher-1" }, to: [flow], payload: {} }),
  ev({ type: "task.result", ...at, task_id: "task_a", parent_task_id: "task_root", from: { agent_id: "agent:researcher-1" }, to: [flow], payload_type: "research.summary.v1", payload: { findings: [], citations: [] } }),
  ev({ type: "task.request", ...at, task_id: "task_b", parent_task_id: "task_root", from: flow, to: [{ agent_id: "agent:orchestrator" }], payload: { title: "Review" }, meta: { workflow_step: "review" } }),
  ev({ type: "task.error", ...at, task_id: "task_root", from: flow, to: [person], payload: { code: "WORKFLOW_STEP_FAILED", message: "Step review (Review) failed: NO_MATCHING_AGENT: nobody" } }),
];

describe("workflowProgress", () => {
  it("follows each step to its outcome and names why the workflow failed", () => {
    const p = workflowProgress(events)!;
    expect(p).toMatchObject({ name: "product-research", version: 2, done: true, failure: "Step review (Review) failed: NO_MATCHING_AGENT: nobody" });
    expect(p.steps.map((s) => [s.id, s.status, s.agent, s.result_type])).toEqual([
      ["research", "succeeded", "agent:researcher-1", "research.summary.v1"],
      ["review", "failed", null, null],
    ]);
  });

  it("shows the steps as they stood at any point of a replay", () => {
    expect(workflowProgress(events, 1)!.steps.map((s) => s.status)).toEqual(["waiting", "waiting"]);
    expect(workflowProgress(events, 5)!.steps.map((s) => s.status)).toEqual(["running", "waiting"]);
    expect(workflowProgress(events, 7)).toMatchObject({ done: false, failure: null, steps: [{ status: "succeeded" }, { status: "pending" }] });
  });

  it("is null for a run that is not a workflow's", () => {
    expect(workflowProgress([ev({ type: "task.request", ...at, task_id: "task_x", from: person, to: [{ agent_id: "agent:pm-1" }], payload: { title: "hi" } })])).toBeNull();
  });
});
