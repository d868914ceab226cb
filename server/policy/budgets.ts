/**
 * Budgets (docs/observability.md "Budgets"): before each model call of a workspace agent, the
 * budgets that apply to it (the policy's `budgets` whose `match` holds for the subject
 * `{ kind: "model_call", agent, capabilities }`, and the agent's own `limits.budgets`) are
 * checked against what the log says was used so far in their scope: the run, the task, or the
 * agent's calls of the day (UTC). Tokens are input plus output tokens; cost is the workspace's
 * prices times the counts (calls of unpriced models count toward `max_tokens` only).
 *
 * Within every budget: `go`, and nothing is written. A budget reached: a `policy.decision`
 * event names it (rule = the budget's id), then
 *   - `on_exceed: stop`: `refused`; the runner ends the task with BUDGET_EXCEEDED (not retryable);
 *   - `on_exceed: require_approval`: an `approval.requested` asks a person (Approvals.gate, keyed
 *     by task, budget and tranche, so asking again after a restart finds it); granted, the scope
 *     may use one more `max` (the next tranche asks again); rejected or expired: `refused`.
 */
import { callCost, formatCost, formatTokens, type PriceTable } from "@/lib/fold/usage";
import type { Queries } from "../events/queries";
import type { WorkspaceAgent } from "../workspace/workspace";
import type { Approvals } from "./approvals";
import type { Decision, PolicyKernel } from "./kernel";
import { matches, type Subject } from "./rules";
import type { Budget } from "./schema";

/** Where the next model call is made. */
export interface BudgetScope {
  agent: WorkspaceAgent;
  thread_id: string;
  run_id: string;
  task_id: string;
  parent_task_id: string | null;
}

export type BudgetOutcome =
  | { status: "go" }
  | { status: "wait"; approval_id: string }
  | { status: "refused"; message: string; budget: string; used: { tokens: number; cost: number | null }; limit: { max_tokens?: number; max_cost?: number } };

/** What a scope has used: tokens (input + output) and the priced calls' cost. */
interface Used {
  tokens: number;
  cost: number | null;
}

const PER_WORDS = { run: "this run", task: "this task", agent_day: "today" } as const;

export class Budgets {
  constructor(
    private readonly deps: {
      queries: Queries;
      kernel: PolicyKernel;
      approvals: Approvals;
      prices: () => PriceTable;
      now?: () => Date;
    },
  ) {}

  /** The budgets for `agent`'s model calls: the policy's that match, then the agent's own. */
  budgetsFor(agent: WorkspaceAgent): Budget[] {
    const subject: Subject = { kind: "model_call", agent: agent.agent_id, ...(agent.card.capabilities ? { capabilities: agent.card.capabilities.map((c) => c.id) } : {}) };
    const fromPolicy = (this.deps.kernel.current().budgets ?? []).filter((b) => matches(b.match, subject));
    const own = (agent.manifest.limits?.budgets ?? []).map((b, i): Budget => ({ ...b, id: `${agent.manifest.id}.limits.budgets.${i}`, match: {}, approvers: "any" }));
    return [...fromPolicy, ...own];
  }

  /** Check before a model call in `at` (see the module doc). Never throws for a budget's sake. */
  async check(at: BudgetScope): Promise<BudgetOutcome> {
    const budgets = this.budgetsFor(at.agent);
    if (!budgets.length) return { status: "go" };
    const cache = new Map<string, Used>();
    for (const b of budgets) {
      const key = b.per === "run" ? `run:${at.run_id}` : b.per === "task" ? `task:${at.task_id}` : `day:${at.agent.agent_id}`;
      let used = cache.get(key);
      if (!used) cache.set(key, (used = await this.used(b.per, at)));
      const tranche = Math.max(b.max_tokens ? Math.floor(used.tokens / b.max_tokens) : 0, b.max_cost && used.cost !== null ? Math.floor(used.cost / b.max_cost) : 0);
      if (tranche < 1) continue;
      const outcome = await this.reached(b, used, tranche, at);
      if (outcome.status !== "go") return outcome;
    }
    return { status: "go" };
  }

  private async used(per: Budget["per"], at: BudgetScope): Promise<Used> {
    const now = this.deps.now?.() ?? new Date();
    const dayStart = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate()));
    const rows = await this.deps.queries.usageByModel(per === "run" ? { run_ids: [at.run_id] } : per === "task" ? { task_id: at.task_id } : { agent_id: at.agent.agent_id, since: dayStart });
    const prices = this.deps.prices();
    let tokens = 0;
    let cost: number | null = null;
    for (const r of rows) {
      tokens += r.input_tokens + r.output_tokens;
      const c = callCost(prices, r.model, r.input_tokens, r.output_tokens, r.cached_input_tokens);
      if (c !== null) cost = (cost ?? 0) + c;
    }
    return { tokens, cost };
  }

  private async reached(b: Budget, used: Used, tranche: number, at: BudgetScope): Promise<BudgetOutcome> {
    const currency = this.deps.prices().currency;
    const limit = { ...(b.max_tokens ? { max_tokens: b.max_tokens } : {}), ...(b.max_cost ? { max_cost: b.max_cost } : {}) };
    const allowed = [b.max_tokens ? `${formatTokens(b.max_tokens * tranche)} tokens` : null, b.max_cost ? formatCost({ cost: b.max_cost * tranche, unpriced_calls: 0, calls: 1 }, currency) : null].filter(Boolean).join(" or ");
    const spent = `${formatTokens(used.tokens)} tokens${used.cost !== null ? ` (${formatCost({ cost: used.cost, unpriced_calls: 0, calls: 1 }, currency)})` : ""}`;
    const who = at.agent.card.display?.name ?? at.agent.manifest.id;
    const reason = `${b.reason ? `${b.reason}: ` : ""}${who} has used ${spent} ${PER_WORDS[b.per]}; the budget ${b.id} allows ${allowed}`;
    const decided: Decision =
      b.on_exceed === "require_approval"
        ? { decision: "require_approval", rule: b.id, reason, approvers: b.approvers }
        : { decision: "deny", rule: b.id, reason, limits: limit };
    const gate = await this.deps.approvals.gate({
      key: `${at.task_id}:budget:${b.id}:${tranche}`,
      subject: { kind: "model_call", agent: at.agent.agent_id },
      at: { thread_id: at.thread_id, run_id: at.run_id, task_id: at.task_id, parent_task_id: at.parent_task_id },
      summary: `${who} has used ${spent} ${PER_WORDS[b.per]}, over the budget of ${allowed}; approve to let it go on`,
      decided,
    });
    if (gate.status === "go") return { status: "go" };
    if (gate.status === "wait") return gate;
    const message = b.on_exceed === "require_approval" ? `${reason}; going on was not approved (${gate.message})` : reason;
    return { status: "refused", message, budget: b.id, used, limit };
  }
}
