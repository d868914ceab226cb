/**
 * A request the orchestrator gives one agent it chose without capability matching: the
 * routing.decision that says why (Clutch Protocol §2.5, §4.3 "Routing Decision Event") and the
 * task.request to that agent, in this order. Matched requests are the router's
 * (server/router/router.ts).
 */
import { makeMessage, type ClutchMessage, type PayloadOf } from "@/lib/protocol";
import { fixedRouting, ORCHESTRATOR } from "../router/router";

/**
 * Why the agent was chosen, as the decision says it:
 * - `fixed`: the agent was named (a channel's entry agent, an @mention, the agent a follow-up
 *   replies to); it is the only candidate, and `rejected` lists the agents passed over, if any.
 * - `group_chat`: a group chat's pattern gave it the turn (docs/adapters.md "Group chats: the
 *   team's pattern, run by Clutch"); `candidates` are the team's agents, `rule` the pattern
 *   (round_robin, selector, swarm, graph_flow, magentic_one).
 */
export type Assignment =
  | { mode: "fixed"; reason: string; rejected?: PayloadOf<"routing.decision">["rejected"] }
  | { mode: "group_chat"; reason: string; rule: string; candidates: string[] };

/**
 * The routing.decision (from agent:orchestrator, to nobody, `selected` scored 1) and the
 * task.request to `agent_id`, both in the task `at`, each with its idempotency key (§5.2) so a
 * repeated reaction stores them once. The request is from `request.from`, else from
 * agent:orchestrator.
 */
export function assign(
  at: { thread_id: string; run_id: string; task_id: string; parent_task_id: string | null },
  agent_id: string,
  why: Assignment,
  request: { payload: PayloadOf<"task.request">; meta: Record<string, unknown>; from?: ClutchMessage["from"] },
  keys: { routing: string; request: string },
): [ClutchMessage, ClutchMessage] {
  const routing =
    why.mode === "fixed"
      ? fixedRouting(at, agent_id, why, keys.routing)
      : makeMessage({
          type: "routing.decision",
          ...at,
          from: ORCHESTRATOR,
          to: [],
          payload: { selected: agent_id, candidates: why.candidates, reason: why.reason, scores: { [agent_id]: 1 }, mode: "group_chat", rule: why.rule },
          idempotency_key: keys.routing,
        });
  return [
    routing,
    makeMessage({ type: "task.request", ...at, from: request.from ?? ORCHESTRATOR, to: [{ agent_id }], payload: request.payload, meta: request.meta, idempotency_key: keys.request }),
  ];
}
