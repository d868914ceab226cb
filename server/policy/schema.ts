/**
 * The workspace policy file, `clutch.policy.yaml` (Cordum's Safety Kernel decisions,
 * seed 004): ordered rules, the first that matches decides. Validated with zod; every error
 * names the rule and field.
 *
 *   version: 1
 *   default: allow                 # decision when no rule matches
 *   approvals: { timeout_sec: 3600, on_timeout: reject | escalate, escalate_to: [user:boss] }
 *   rules:
 *     - id: approve-process-data
 *       match: { tool: { server_id: DataServer, tool: process_data } }
 *       decision: require_approval
 *       approvers: any              # or [user:<id>, dana@example.com, role:admin]
 *       forbid_self_approval: true  # the person who asked for the work may not decide
 *       reason: Processing data changes what the analysis rests on
 *
 *   budgets:                       # every matching budget applies (BudgetSchema)
 *     - id: run-cap
 *       per: run                    # run | task | agent_day
 *       max_tokens: 200000
 *       max_cost: 2.50              # in the workspace's prices' currency
 *       on_exceed: require_approval # or stop: BUDGET_EXCEEDED
 *
 * `match` fields (all given must hold; lists match any of their values): kind, agent, capability,
 * tool ({ server_id?, tool? }, or a built-in tool name: ask, reply, delegate, submit_result),
 * recipient (agent id or "user"), payload_type, domain, risk_tags (any shared), run_labels.
 */
import { z } from "zod";

const oneOrMany = z.union([z.string().min(1), z.array(z.string().min(1)).min(1)]).transform((v) => (Array.isArray(v) ? v : [v]));

export const MatchSchema = z.strictObject({
  kind: z.enum(["dispatch", "tool_call", "model_call"]).optional(),
  agent: oneOrMany.optional(),
  capability: oneOrMany.optional(),
  tool: z.union([z.string().min(1), z.strictObject({ server_id: oneOrMany.optional(), tool: oneOrMany.optional() })]).optional(),
  recipient: oneOrMany.optional(),
  payload_type: oneOrMany.optional(),
  domain: oneOrMany.optional(),
  risk_tags: oneOrMany.optional(),
  run_labels: oneOrMany.optional(),
});
export type Match = z.infer<typeof MatchSchema>;

const base = { id: z.string().regex(/^[A-Za-z0-9_.-]+$/, "rule ids use letters, digits, . _ -"), match: MatchSchema.default({}), reason: z.string().optional() };

export const RuleSchema = z.discriminatedUnion("decision", [
  z.strictObject({ ...base, decision: z.literal("allow") }),
  z.strictObject({
    ...base,
    decision: z.literal("deny"),
    reason: z.string({ error: "a deny rule needs a reason people can read" }).min(1, "a deny rule needs a reason people can read"),
  }),
  z.strictObject({
    ...base,
    decision: z.literal("require_approval"),
    /**
     * Who may decide (lib/approvers.ts, docs/identity.md): "any" person who may read the run's
     * channel, or a list of `user:<id>`, email addresses and `role:admin|member|guest`.
     */
    approvers: z.union([z.literal("any"), z.array(z.string().min(1)).min(1)]).default("any"),
    /** The person who asked for the work (the run's requester) may not decide its approvals. */
    forbid_self_approval: z.boolean().default(false),
  }),
  z.strictObject({
    ...base,
    decision: z.literal("throttle"),
    /** At most `max` calls per `window_sec`, counted per agent or per tool; beyond, wait `delay_ms` and retry. */
    rate: z.strictObject({
      max: z.number().int().positive(),
      window_sec: z.number().positive(),
      per: z.enum(["agent", "tool"]).default("agent"),
    }),
    delay_ms: z.number().int().positive().max(600_000).default(1000),
  }),
  z.strictObject({
    ...base,
    decision: z.literal("constrain"),
    limits: z.strictObject({
      max_tool_calls: z.number().int().positive().optional(),
      max_tokens: z.number().int().positive().optional(),
      sandbox_only_tools: z.array(z.string().min(1)).optional(),
    }),
  }),
]);
export type Rule = z.infer<typeof RuleSchema>;

/**
 * A budget (docs/observability.md "Budgets"): tokens and/or cost an agent's model calls may use
 * per run, per task or per agent per day (UTC), counted from the log's `model.usage` events and
 * priced with the workspace's prices (calls of unpriced models count toward `max_tokens` only).
 * Checked before each model call of a workspace agent the budget matches (`match`, as a rule's;
 * the subject is `kind: model_call`); every matching budget applies. Once reached: `stop` ends the
 * task with BUDGET_EXCEEDED (not retryable), `require_approval` asks a person, and each approval
 * lets the scope use one more `max` before asking again.
 */
export const BudgetLimitSchema = z.strictObject({
  per: z.enum(["run", "task", "agent_day"]),
  max_tokens: z.number().int().positive().optional(),
  max_cost: z.number().positive().optional(),
  on_exceed: z.enum(["stop", "require_approval"]).default("stop"),
  approvers: z.union([z.literal("any"), z.array(z.string().min(1)).min(1)]).default("any"),
});
export const BudgetSchema = BudgetLimitSchema.extend({
  id: z.string().regex(/^[A-Za-z0-9_.-]+$/, "budget ids use letters, digits, . _ -"),
  match: MatchSchema.default({}),
  reason: z.string().optional(),
}).refine((b) => b.max_tokens !== undefined || b.max_cost !== undefined, { message: "a budget needs max_tokens, max_cost or both", path: ["max_tokens"] });
export type Budget = z.infer<typeof BudgetSchema>;

export const DECISIONS = ["allow", "deny", "require_approval", "throttle", "constrain"] as const;
export type DecisionKind = (typeof DECISIONS)[number];

export const PolicySchema = z
  .strictObject({
    version: z.literal(1, { error: "version must be 1" }),
    default: z.enum(["allow", "deny", "require_approval"]).default("allow"),
    approvals: z
      .strictObject({
        timeout_sec: z.number().positive().default(3600),
        on_timeout: z.enum(["reject", "escalate"]).default("reject"),
        escalate_to: z.array(z.string().min(1)).default([]),
      })
      .default({ timeout_sec: 3600, on_timeout: "reject", escalate_to: [] }),
    rules: z.array(RuleSchema).default([]),
    budgets: z.array(BudgetSchema).default([]),
  })
  .superRefine((p, ctx) => {
    const seen = new Set<string>();
    p.rules.forEach((r, i) => {
      if (seen.has(r.id)) ctx.addIssue({ code: "custom", path: ["rules", i, "id"], message: `rule id ${r.id} is used twice` });
      seen.add(r.id);
    });
    const budgetIds = new Set<string>();
    p.budgets.forEach((b, i) => {
      if (budgetIds.has(b.id)) ctx.addIssue({ code: "custom", path: ["budgets", i, "id"], message: `budget id ${b.id} is used twice` });
      budgetIds.add(b.id);
    });
    if (p.approvals.on_timeout === "escalate" && !p.approvals.escalate_to.length) {
      ctx.addIssue({ code: "custom", path: ["approvals", "escalate_to"], message: "on_timeout: escalate needs escalate_to (who to escalate to)" });
    }
  });
export type Policy = z.infer<typeof PolicySchema>;

/** The policy when a workspace has no file: allow everything. */
export const OPEN_POLICY: Policy = PolicySchema.parse({ version: 1 });
