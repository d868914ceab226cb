/**
 * Running workflows (Clutch Protocol §3.4; docs/workflows.md). A workflow run is a run whose root
 * task is addressed to `agent:workflow`, with the workflow's shape in `meta.workflow`. Its steps
 * are subtasks, one at a time, in order:
 *
 *   the root task.request            → task.accept, then step 1's task.request: from agent:workflow
 *                                      to the router (`requires` the step's capability), with the
 *                                      step's `expects` and, as input, the person's request
 *   a step's task.result that meets  → the next step's request, its input the result (typed by
 *     its expectation                  `input_type`); after the last, the root's task.result: the
 *                                      last step's result with its payload type
 *   a step's result that does not    → the root's task.error WORKFLOW_STEP_FAILED naming the step
 *     (payload type, required fields,  and why (the field's JSON pointer for a schema)
 *     the registry's schema)
 *   a step's task.error / timeout /  → the root's task.error WORKFLOW_STEP_FAILED with the step's
 *     cancel                           own reason
 *
 * Every decision is computed from the run's events (`nextStep`, pure) and every append carries an
 * idempotency key, so a repeated or recovered reaction stores nothing twice. The runner works on
 * the node that runs the agents (the leader): it learns of workflow runs from the tail, whichever
 * node started them, and on start picks up those that have not ended.
 */
import { isEvent, makeMessage, newId, type ClutchMessage, type StoredEvent, type StoredEventOf } from "@/lib/protocol";
import { shapeOf, type WorkflowShape } from "@/lib/workflows/definition";
import type { EventStore } from "../events/store";
import type { EventTail } from "../events/tail";
import { log } from "../log";
import { ORCHESTRATOR } from "../router/router";
import { SerialByKey } from "../orchestrator/serial";
import { unmetExpectation, type SchemaRegistry } from "../schemas/registry";
import type { StoredWorkflow } from "./store";

/** Who runs workflows in the log: the assignee of every workflow run's root task. */
export const WORKFLOW_AGENT = { agent_id: "agent:workflow", role: "orchestrator", display_name: "Workflow" } as const;

type Request = StoredEventOf<"task.request">;
type Ending = StoredEventOf<"task.result" | "task.error" | "task.timeout" | "task.cancel">;
const ENDINGS = ["task.result", "task.error", "task.timeout", "task.cancel"] as const;

/** What a workflow run does next. */
export type NextStep =
  | { kind: "request"; step: number; input: { value: unknown; payload_type: string | null } }
  | { kind: "wait" }
  | { kind: "done"; result: StoredEventOf<"task.result"> }
  | { kind: "fail"; step: number; reason: string }
  | { kind: "ended" };

/** The shape a root request carries, or null when it is not a workflow run's. */
export function workflowOf(root: StoredEvent): WorkflowShape | null {
  const w = root.meta?.workflow as WorkflowShape | undefined;
  return isEvent(root, "task.request") && w && Array.isArray(w.steps) ? w : null;
}

/** Why a step's result does not meet what the step expects (see the module doc), or null. */
export type ResultCheck = (step: WorkflowShape["steps"][number], result: StoredEventOf<"task.result">) => string | null;

/**
 * The next thing workflow run `root` does, from `events` (its run's, in seq order): pure. A step
 * counts once its request is in the log; its newest ending decides it.
 */
export function nextStep(root: Request, shape: WorkflowShape, events: readonly StoredEvent[], check: ResultCheck): NextStep {
  if (events.some((e) => e.task_id === root.task_id && (ENDINGS as readonly string[]).includes(e.type))) return { kind: "ended" };
  let input: { value: unknown; payload_type: string | null } = { value: { text: root.payload.instructions ?? root.payload.title ?? "" }, payload_type: null };
  let last: StoredEventOf<"task.result"> | null = null;
  for (const [i, step] of shape.steps.entries()) {
    const request = events.find((e): e is Request => isEvent(e, "task.request") && e.parent_task_id === root.task_id && e.meta?.workflow_step === step.id);
    if (!request) return { kind: "request", step: i, input };
    const ending = [...events].reverse().find((e): e is Ending => e.task_id === request.task_id && isEvent(e, ...ENDINGS));
    if (!ending) return { kind: "wait" };
    if (isEvent(ending, "task.error")) return { kind: "fail", step: i, reason: `${ending.payload.code}: ${ending.payload.message}` };
    if (isEvent(ending, "task.timeout")) return { kind: "fail", step: i, reason: ending.payload.message ?? "it timed out" };
    if (isEvent(ending, "task.cancel")) return { kind: "fail", step: i, reason: `it was cancelled${ending.payload.reason ? `: ${ending.payload.reason}` : ""}` };
    const problem = check(step, ending as StoredEventOf<"task.result">);
    if (problem) return { kind: "fail", step: i, reason: problem };
    last = ending as StoredEventOf<"task.result">;
    input = { value: last.payload, payload_type: last.payload_type ?? null };
  }
  return { kind: "done", result: last! };
}

/** The check of a step's result against its expectation and the registry's schema of its payload type. */
export function resultCheck(schemas: SchemaRegistry): ResultCheck {
  return (step, result) => {
    if (step.payload_type && result.payload_type !== step.payload_type) return `its result is ${result.payload_type ? `a ${result.payload_type}` : "untyped"}, and the step expects a ${step.payload_type}`;
    const unmet = unmetExpectation(schemas, step, result.payload as Record<string, unknown>);
    if (!unmet) return null;
    if ("missing" in unmet) return `its result lacks ${unmet.missing.join(", ")}, which the step requires`;
    return `its result does not match ${step.payload_type} (${unmet.ref}): ${unmet.pointer || "/"} ${unmet.message}`;
  };
}

export interface WorkflowRunnerDeps {
  store: EventStore;
  tail: EventTail;
  schemas: SchemaRegistry;
  /**
   * Whether this deployment's agents work in `thread_id` (its orchestrator acts there): the
   * workflow runs of other deployments sharing the database are theirs. Absent: every thread.
   */
  inScope?: (thread_id: string) => Promise<boolean>;
}

export class WorkflowRunner {
  private unsubscribe: (() => void) | null = null;
  /** Open workflow runs: root task id → run id. */
  private readonly roots = new Map<string, string>();
  /** One reaction at a time per run. */
  private readonly chains = new SerialByKey();
  private readonly check: ResultCheck;

  constructor(private readonly deps: WorkflowRunnerDeps) {
    this.check = resultCheck(deps.schemas);
  }

  /**
   * The root request of a run of `wf` for `from` in `thread_id`: append it (from any node) and
   * the runner on the leader takes it from there. Returns the run's and root task's ids.
   */
  static async startRun(store: EventStore, wf: StoredWorkflow, req: { thread_id: string; from: { agent_id: string; role: string; display_name?: string }; text: string }): Promise<{ run_id: string; task_id: string }> {
    const run_id = newId("run");
    const task_id = newId("task");
    const shape = shapeOf(wf.workflow, wf.version);
    const first = req.text.split("\n")[0]!.trim();
    const { events } = await store.append(
      makeMessage({
        type: "task.request",
        thread_id: req.thread_id,
        run_id,
        task_id,
        parent_task_id: null,
        from: req.from,
        to: [{ agent_id: WORKFLOW_AGENT.agent_id }],
        payload: { title: `${wf.name}: ${first.length > 100 ? `${first.slice(0, 99)}…` : first}`, instructions: req.text, input: { text: req.text } },
        meta: { workflow: shape, requested_by: req.from.agent_id },
      }),
    );
    return { run_id: events[0]!.run_id, task_id: events[0]!.task_id };
  }

  /** Follow the log and pick up the workflow runs that have not ended. */
  async start(): Promise<void> {
    this.unsubscribe = this.deps.tail.subscribe((ev) => this.onEvent(ev));
    for (const t of await this.deps.store.queries.unfinishedTasks()) {
      if (t.assignee === WORKFLOW_AGENT.agent_id && !t.parent_task_id) this.track(t.id, t.run_id);
    }
  }

  /** Stop following; reactions in flight finish. */
  async stop(): Promise<void> {
    this.unsubscribe?.();
    this.unsubscribe = null;
    await this.chains.settled();
  }

  private onEvent(ev: StoredEvent): void {
    if (isEvent(ev, "task.request") && ev.to[0]?.agent_id === WORKFLOW_AGENT.agent_id && !ev.parent_task_id && workflowOf(ev)) return this.track(ev.task_id, ev.run_id);
    if (!(ENDINGS as readonly string[]).includes(ev.type)) return;
    if (this.roots.has(ev.task_id)) return this.track(ev.task_id, ev.run_id);
    if (ev.parent_task_id && this.roots.has(ev.parent_task_id)) this.track(ev.parent_task_id, ev.run_id);
  }

  /** Advance the run of root `task_id`, after whatever it is doing now. */
  private track(task_id: string, run_id: string): void {
    this.roots.set(task_id, run_id);
    this.chains.run(
      run_id,
      () => this.advance(task_id, run_id),
      (err) => log.error({ err, run_id }, "workflow: a step could not be taken; it is tried again at the next event or start"),
    );
  }

  private async advance(task_id: string, run_id: string): Promise<void> {
    const { store } = this.deps;
    const events = await store.readAll({ run_id });
    const root = events.find((e): e is Request => isEvent(e, "task.request") && e.task_id === task_id);
    const shape = root && workflowOf(root);
    if (!root || !shape) return void this.roots.delete(task_id);
    if (this.deps.inScope && !(await this.deps.inScope(root.thread_id))) return void this.roots.delete(task_id);
    // The steps' payload types as the registry knows them now (a schema added on another node).
    for (const s of shape.steps) if (s.payload_type) await this.deps.schemas.lookup(s.payload_type);
    const next = nextStep(root, shape, events, this.check);
    const at = { thread_id: root.thread_id, run_id, from: WORKFLOW_AGENT };
    const key = (part: string) => `workflow:${task_id}:${part}`;
    const out: ClutchMessage[] = [];
    if (!events.some((e) => isEvent(e, "task.accept") && e.task_id === task_id)) {
      out.push(makeMessage({ type: "task.accept", ...at, task_id, parent_task_id: null, to: [root.from], payload: { agent_id: WORKFLOW_AGENT.agent_id, note: `Workflow ${shape.name} v${shape.version}, ${shape.steps.length} step${shape.steps.length === 1 ? "" : "s"}` }, idempotency_key: key("accept") }));
    }
    if (next.kind === "request") {
      const step = shape.steps[next.step]!;
      out.push(
        makeMessage({
          type: "task.request",
          ...at,
          task_id: newId("task"),
          parent_task_id: task_id,
          to: [ORCHESTRATOR],
          requires: step.capability ? [step.capability] : [],
          payload: {
            title: step.title,
            instructions: stepInstructions(shape, next.step),
            context_summary: `Step ${next.step + 1} of ${shape.steps.length} of workflow ${shape.name} (${shape.steps.map((s) => s.id).join(" → ")}), for: ${root.payload.instructions ?? root.payload.title ?? ""}`,
            input: next.input.value,
            ...(next.input.payload_type ? { input_type: next.input.payload_type } : {}),
            ...(step.payload_type ? { expects: { type: "task.result" as const, payload_type: step.payload_type, ...(step.required.length ? { required: step.required } : {}) } } : {}),
          },
          meta: { workflow_step: step.id },
          idempotency_key: key(`step:${step.id}`),
        }),
      );
    } else if (next.kind === "done") {
      out.push(makeMessage({ type: "task.result", ...at, task_id, parent_task_id: null, to: [root.from], payload: next.result.payload, ...(next.result.payload_type ? { payload_type: next.result.payload_type } : {}), idempotency_key: key("result") }));
    } else if (next.kind === "fail") {
      const step = shape.steps[next.step]!;
      out.push(
        makeMessage({
          type: "task.error",
          ...at,
          task_id,
          parent_task_id: null,
          to: [root.from],
          payload: { code: "WORKFLOW_STEP_FAILED", message: `Step ${step.id} (${step.title}) failed: ${next.reason}`, retryable: false, details: { workflow: shape.name, step: step.id } },
          idempotency_key: key("error"),
        }),
      );
    }
    if (out.length) await store.append(out);
    if (next.kind === "done" || next.kind === "fail" || next.kind === "ended") this.roots.delete(task_id);
  }
}

/** A step's instructions: the workflow's own for it, and what its result must be. */
function stepInstructions(shape: WorkflowShape, i: number): string {
  const step = shape.steps[i]!;
  const own = step.instructions;
  const expects = step.payload_type ? `Submit your result as payload_type ${step.payload_type}${step.required.length ? ` with ${step.required.join(", ")}` : ""}.` : "";
  return [own ?? `Do step "${step.title}" of workflow ${shape.name}.`, i > 0 ? "Your input is the previous step's result." : "", expects].filter(Boolean).join(" ");
}
