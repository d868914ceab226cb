/**
 * Which steps of a workflow no agent can take (docs/workflows.md "Steps no agent can take"): a
 * step's capability requirement that no registered agent's card satisfies (Clutch Protocol §4.2
 * step 2). The workflow's page and its API say so (`uncovered`), and so does the answer to a run,
 * which starts all the same: such a step waits for an agent as routing says (`on_no_match`).
 */
import type { Workflow } from "@/lib/workflows/definition";
import type { AgentRegistry } from "../router/registry";
import { findCapability, parseRequirement, RequirementError } from "../router/requirement";

/** A step no agent can take: its id, title and the capability it asks for. */
export interface UncoveredStep {
  step: string;
  title: string;
  capability: string;
}

/** The steps of `wf` whose capability no agent in `registry` offers (any version range taken into account). */
export function uncoveredSteps(wf: Workflow, registry: AgentRegistry): UncoveredStep[] {
  const agents = registry.list();
  return wf.steps.flatMap((s) => {
    let covered = false;
    try {
      const req = parseRequirement(s.capability);
      covered = agents.some((a) => "cap" in findCapability(a.card.capabilities, req));
    } catch (err) {
      if (!(err instanceof RequirementError)) throw err;
    }
    return covered ? [] : [{ step: s.id, title: s.title ?? s.id, capability: s.capability }];
  });
}

