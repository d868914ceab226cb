/** Workflows as the API shows them (docs/workflows.md). */
import type { WorkflowDetail, WorkflowSummary } from "@/lib/api/types";
import { shapeOf } from "@/lib/workflows/definition";
import type { StoredWorkflow } from "./store";
import type { AgentRegistry } from "../router/registry";
import { uncoveredSteps } from "./coverage";

/** A workflow without its source: name, version, description, steps, who saved it last and when. */
export function workflowSummary(wf: StoredWorkflow): WorkflowSummary {
  return { name: wf.name, version: wf.version, description: wf.workflow.description ?? "", steps: shapeOf(wf.workflow, wf.version).steps, updated_by: wf.updated_by, updated_at: wf.updated_at };
}

/** A workflow with its source as written, and the steps no agent in `registry` can take now. */
export function workflowDetail(wf: StoredWorkflow, registry: AgentRegistry): WorkflowDetail {
  return { ...workflowSummary(wf), source: wf.source, uncovered: uncoveredSteps(wf.workflow, registry) };
}
