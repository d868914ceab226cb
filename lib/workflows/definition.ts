/**
 * Workflows (Clutch Protocol §3.4 "Workflow Validation"; docs/workflows.md): a team's process as
 * steps, each done by an agent with a capability and expected to produce a result of a payload
 * type. The definition is YAML or JSON:
 *
 *   workflow: product-research            # its name: lowercase letters, digits, - and _
 *   description: Research, then review     # optional
 *   steps:
 *     - id: research                       # unique within the workflow
 *       capability: skill:research@^1      # optional: a requirement the router matches (§4.2)
 *       title: Research the market         # optional; the step id otherwise
 *       instructions: Cite every source    # optional
 *       expects:                           # optional (§3.4)
 *         type: task.result
 *         payload_type: research.summary.v1
 *         required: [findings, citations]
 *
 * A step without a capability is §3.4's own form, a validation rule on a result: it is given to
 * an agent whose card produces its `expects.payload_type` (the router filters and prefers by
 * `produces`), and its result is checked like any step's. A step names a capability, a payload
 * type, or both.
 *
 * Steps run in order; each gets the previous step's result as its input. `WorkflowShape` is what
 * a run keeps of its workflow (the root request's `meta.workflow`), so the run view draws it and
 * a replay shows it as it was.
 */
import { parse as parseYaml } from "yaml";
import { z } from "zod";
import { PAYLOAD_TYPE_PATTERN } from "@/lib/protocol/payloads";

const NAME = /^[a-z0-9][a-z0-9_-]*$/;

export const WorkflowStepSchema = z.strictObject({
  id: z.string().regex(NAME, "a step id is lowercase letters, digits, - and _").max(60),
  capability: z.string().trim().min(1, "a step's capability names who does it, e.g. skill:research").optional(),
  title: z.string().trim().max(200).optional(),
  instructions: z.string().max(10_000).optional(),
  expects: z
    .strictObject({
      type: z.literal("task.result", { error: 'expects.type is "task.result" (what the step must end with)' }).default("task.result"),
      payload_type: z.string().regex(PAYLOAD_TYPE_PATTERN, "a payload type is <domain>.<name>.v<version>, e.g. research.summary.v1").optional(),
      required: z.array(z.string().min(1)).default([]),
    })
    .optional(),
});
export type WorkflowStep = z.infer<typeof WorkflowStepSchema>;

export const WorkflowSchema = z
  .strictObject({
    workflow: z.string().regex(NAME, "a workflow's name is lowercase letters, digits, - and _").max(60),
    description: z.string().trim().max(500).optional(),
    steps: z.array(WorkflowStepSchema).min(1, "a workflow needs at least one step").max(50, "a workflow has at most 50 steps"),
  })
  .superRefine((wf, ctx) => {
    const seen = new Set<string>();
    wf.steps.forEach((s, i) => {
      if (!s.capability && !s.expects?.payload_type) {
        ctx.addIssue({ code: "custom", path: ["steps", i], message: `step ${s.id} needs a capability (who does it, e.g. skill:research) or expects.payload_type (what an agent that produces it must return)` });
      }
      if (seen.has(s.id)) ctx.addIssue({ code: "custom", path: ["steps", i, "id"], message: `step id ${s.id} is used twice` });
      seen.add(s.id);
    });
  });
export type Workflow = z.infer<typeof WorkflowSchema>;

/** What a run keeps of its workflow (the root task.request's `meta.workflow`). */
export interface WorkflowShape {
  name: string;
  /** The stored version the run started from. */
  version: number;
  /** `capability` null: the step goes to an agent that produces its `payload_type`. */
  steps: { id: string; title: string; capability: string | null; instructions: string | null; payload_type: string | null; required: string[] }[];
}

/** A definition problem: where (a dot path from the root, e.g. `steps.1.capability`) and what. */
export interface WorkflowIssue {
  path: string;
  message: string;
}

/** Parse a workflow's YAML or JSON text: the workflow, or every problem with its path. */
export function parseWorkflow(source: string): { ok: true; workflow: Workflow } | { ok: false; issues: WorkflowIssue[] } {
  let value: unknown;
  try {
    value = parseYaml(source, { maxAliasCount: 100 });
  } catch (err) {
    return { ok: false, issues: [{ path: "", message: `not YAML or JSON: ${(err as Error).message.split("\n")[0]}` }] };
  }
  const r = WorkflowSchema.safeParse(value);
  return r.success ? { ok: true, workflow: r.data } : { ok: false, issues: r.error.issues.map((i) => ({ path: i.path.join("."), message: i.message })) };
}

/** The shape a run keeps of `wf` at `version`. */
export function shapeOf(wf: Workflow, version: number): WorkflowShape {
  return {
    name: wf.workflow,
    version,
    steps: wf.steps.map((s) => ({ id: s.id, title: s.title ?? s.id, capability: s.capability ?? null, instructions: s.instructions ?? null, payload_type: s.expects?.payload_type ?? null, required: s.expects?.required ?? [] })),
  };
}
