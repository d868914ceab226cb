/**
 * A workflow run's steps as they stand (docs/workflows.md): one fold for the run view, live and
 * in replay. From the run's events, in seq order: the root request's `meta.workflow` (the shape
 * the run started from), each step's task (the request the workflow made for it, `meta.workflow_step`),
 * who took it (the routed copy's recipient), where it is, and why the run failed when a step did.
 */
import { isEvent, type StoredEvent } from "@/lib/protocol";
import type { WorkflowShape } from "@/lib/workflows/definition";

export type StepStatus = "waiting" | "pending" | "running" | "succeeded" | "failed";

export interface StepProgress {
  id: string;
  title: string;
  /** null: the step goes to an agent that produces `payload_type`. */
  capability: string | null;
  payload_type: string | null;
  status: StepStatus;
  task_id: string | null;
  /** The agent the router chose, once it did. */
  agent: string | null;
  /** The payload type of the step's result, once it has one. */
  result_type: string | null;
}

export interface WorkflowProgress {
  name: string;
  version: number;
  steps: StepProgress[];
  /** The root's error message when the workflow failed (`Step … failed: …`). */
  failure: string | null;
  done: boolean;
}

/** The progress of the workflow run whose events are `events` (the first `upTo` of them); null for a run that is not a workflow's. */
export function workflowProgress(events: readonly StoredEvent[], upTo = events.length): WorkflowProgress | null {
  let shape: WorkflowShape | null = null;
  let root: string | null = null;
  const stepOfTask = new Map<string, StepProgress>();
  let steps: StepProgress[] = [];
  let failure: string | null = null;
  let done = false;
  for (let i = 0; i < Math.min(upTo, events.length); i++) {
    const ev = events[i]!;
    if (!root) {
      const w = ev.type === "task.request" && !ev.parent_task_id ? (ev.meta?.workflow as WorkflowShape | undefined) : undefined;
      if (!w || !Array.isArray(w.steps)) {
        if (ev.type === "task.request" && !ev.parent_task_id) return null;
        continue;
      }
      shape = w;
      root = ev.task_id;
      steps = w.steps.map((s) => ({ id: s.id, title: s.title, capability: s.capability, payload_type: s.payload_type, status: "waiting", task_id: null, agent: null, result_type: null }));
      continue;
    }
    if (ev.task_id === root) {
      if (ev.type === "task.result") done = true;
      if (isEvent(ev, "task.error")) {
        done = true;
        failure = String(ev.payload.message ?? "the workflow failed");
      }
      if (ev.type === "task.timeout" || ev.type === "task.cancel") done = true;
      continue;
    }
    const stepId = ev.meta?.workflow_step;
    if (ev.type === "task.request" && ev.parent_task_id === root && typeof stepId === "string") {
      const step = steps.find((s) => s.id === stepId);
      if (step) {
        step.task_id = ev.task_id;
        if (step.status === "waiting") step.status = "pending";
        const to = ev.to[0]?.agent_id;
        if (to && to !== "agent:orchestrator") step.agent = to;
        stepOfTask.set(ev.task_id, step);
      }
      continue;
    }
    const step = stepOfTask.get(ev.task_id);
    if (!step) continue;
    if (ev.type === "task.accept") {
      step.status = "running";
      step.agent ??= ev.from.agent_id;
    } else if (ev.type === "task.result") {
      step.status = "succeeded";
      step.result_type = ev.payload_type ?? null;
    } else if (ev.type === "task.error" || ev.type === "task.timeout" || ev.type === "task.cancel") step.status = "failed";
  }
  if (!shape) return null;
  // A step whose result the workflow refused failed, though its own task succeeded.
  const failed = failure ? /^Step (\S+) /.exec(failure)?.[1] : undefined;
  if (failed) for (const s of steps) if (s.id === failed) s.status = "failed";
  return { name: shape.name, version: shape.version, steps, failure, done };
}
