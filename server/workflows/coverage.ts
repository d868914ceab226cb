/**
 * Which steps of a workflow no agent can take (docs/workflows.md "Steps no agent can take"): a
 * step's capability requirement that no registered agent's card satisfies (Clutch Protocol §4.2
 * step 2). The workflow's page and its API say so (`uncovered`), and so does the answer to a run,
 * which starts all the same: such a step waits for an agent as routing says (`on_no_match`).
 */
import type { Workflow } from "@/lib/workflows/definition";
import type { AgentRegistry } from "../router/registry";
import { findCapability, parseRequirement, RequirementError } from "../router/requirement";

/**
 * A step no agent can take: its id, title and the capability it asks for, or (a step without a
 * capability) the payload type it expects, when every card declares other types.
 */
export type UncoveredStep = { step: string; title: string } & ({ capability: string } | { capability: null; payload_type: string });

/**
 * The steps of `wf` no agent in `registry` can take: a capability no card offers (any version
 * range taken into account), or for a step without one, a payload type that every card that
 * declares its types leaves out, with no card that declares none.
 */
export function uncoveredSteps(wf: Workflow, registry: AgentRegistry): UncoveredStep[] {
  const agents = registry.list();
  return wf.steps.flatMap((s): UncoveredStep[] => {
    const named = { step: s.id, title: s.title ?? s.id };
    if (!s.capability) {
      const type = s.expects?.payload_type ?? "";
      // The router's `produces` filter: a card that declares no types passes it.
      const takes = agents.some((a) => !a.card.produces?.length || a.card.produces.includes(type));
      return takes ? [] : [{ ...named, capability: null, payload_type: type }];
    }
    let covered = false;
    try {
      const req = parseRequirement(s.capability);
      covered = agents.some((a) => "cap" in findCapability(a.card.capabilities, req));
    } catch (err) {
      if (!(err instanceof RequirementError)) throw err;
    }
    return covered ? [] : [{ ...named, capability: s.capability }];
  });
}

