/**
 * The events each kind of tool call becomes, once the policy let it go ahead (actions.ts;
 * CAP seed 000 "Delegation", "Oversight"; Clutch Protocol §2):
 *
 *   MCP tool       tool.call, then tool.result | tool.error (a server that stopped during the
 *                  call is tried again with backoff, each retry a task.progress "retrying")
 *   ask / reply    chat.message (ask: expects_reply; reply: reply_to, in the asker's task; a
 *                  report carries payload_type chat.report.v1)
 *   delegate       by id (a workspace agent, or a registered external agent in allowed_agents):
 *                  routing.decision + task.request for a new subtask, or, outside the
 *                  delegator's allowed_agents, task.error PERMISSION_DENIED (the run goes on);
 *                  by capability: a task.request to agent:orchestrator with requires[] and
 *                  prefers[], which the router (server/router) decides among allowed_agents;
 *                  past the runaway guards (max_depth, max_tasks_per_run: docs/lifecycle.md)
 *                  tool.error + task.error RUN_LIMIT, which ends the delegating task
 *   submit_result  task.result; for an agent with an overseer, a task.progress "in review"
 *                  and a review task.request to the overseer instead (the result goes back to
 *                  the delegator only after approval, server/orchestrator)
 *   decline        task.error CANNOT_ANSWER (retryable: false) with the agent's reason
 *
 * A call with invalid input, or to a tool that does not exist, becomes tool.call + tool.error
 * INVALID_TOOL_CALL, which the model reads as the call's output.
 */
import { newId, ReviewFeedbackV1 } from "@/lib/protocol";
import type { z } from "zod";
import { fixedRouting, ORCHESTRATOR } from "../router/router";
import type { ActionDeps, TaskContext, ToolCall } from "./task-context";
import type { ToolCaller } from "../workspace/tools";
import { AskInput, CANNOT_ANSWER, DeclineInput, DelegateInput, expectedPayloadType, parseMcpToolName, ReplyInput, SubmitResultInput } from "./contract";
import { retryNotice, withRetries } from "./retry";
import { unmetExpectation } from "../schemas/registry";
import { parentsOf, type AgentStepMeta } from "./conversation";
import { agentDisplayName } from "../workspace/names";

/** One tool call being carried out: where it happens, and the parts every event of it shares. */
export interface CallScope {
  ctx: TaskContext;
  call: ToolCall;
  deps: ActionDeps;
  /** `<instance>:<step>:<call id>:<part>`: the idempotency key of one of the call's events (§5.2). */
  key(part: string): string;
  /** `meta.agent` of the call's events (conversation.ts AgentStepMeta): the call, its input and step text, and `extra`. */
  meta(extra?: Partial<AgentStepMeta>): { agent: AgentStepMeta };
  /** Record the call with a tool.error INVALID_TOOL_CALL saying `message`. */
  fail(message: string): Promise<void>;
}

/** The CallScope of `call` in `ctx`. */
export function callScope(ctx: TaskContext, call: ToolCall, deps: ActionDeps): CallScope {
  const key = (part: string) => `${ctx.instance_id}:${call.step}:${call.call_id}:${part}`;
  const meta = (extra: Partial<AgentStepMeta> = {}) => ({
    agent: {
      instance_id: ctx.instance_id,
      step: call.step,
      call_id: call.call_id,
      tool: call.tool,
      input: call.input,
      ...(call.text ? { text: call.text } : {}),
      ...(call.seen_seq !== undefined ? { seen_seq: call.seen_seq } : {}),
      ...extra,
    },
  });
  const fail = async (message: string) => {
    await deps.store.append([
      ctx.envelope("tool.call", { call_id: call.call_id, tool: call.tool, arguments: asRecord(call.input) }, { idempotency_key: key("call"), meta: meta() }),
      ctx.envelope(
        "tool.error",
        { call_id: call.call_id, tool: call.tool, code: "INVALID_TOOL_CALL", message, retryable: false },
        { idempotency_key: key("error"), meta: meta({ output: { error: "INVALID_TOOL_CALL", message } }) },
      ),
    ]);
  };
  return { ctx, call, deps, key, meta, fail };
}

const BUILTIN: Record<string, (s: CallScope) => Promise<void>> = { ask, reply, delegate, submit_result: submitResult, decline };

/** Carry out a call the policy let go ahead: an MCP tool, a built-in tool, or an INVALID_TOOL_CALL. */
export async function carryOut(s: CallScope): Promise<void> {
  const mcp = parseMcpToolName(s.call.tool);
  if (mcp) return callMcpTool(s, mcp);
  const builtin = Object.hasOwn(BUILTIN, s.call.tool) ? BUILTIN[s.call.tool] : undefined;
  if (builtin) return builtin(s);
  await s.fail(`there is no tool named ${s.call.tool}`);
}

/** `user` for people (`user`, `user:<name>`), else an agent id (`agent:` added when missing). */
export function normaliseTarget(to: string): string {
  if (to === "user" || to.startsWith("user:")) return "user";
  return to.startsWith("agent:") ? to : `agent:${to}`;
}

/** `v` when it is a JSON object, else `{ value: v }`. */
export function asRecord(v: unknown): Record<string, unknown> {
  return v && typeof v === "object" && !Array.isArray(v) ? (v as Record<string, unknown>) : { value: v };
}

/** `meta.node` as `ctx.envelope` puts it on every message of the task (task-context.ts), for messages built without it. */
function nodeMeta(ctx: TaskContext): { node: string } | undefined {
  return ctx.node ? { node: ctx.node } : undefined;
}

function recipient(agent_id: string) {
  return agent_id === "user" ? { agent_id: "user", role: "human" } : { agent_id };
}

const issuesOf = (error: z.ZodError) => error.issues.map((i) => `${i.path.join(".")}: ${i.message}`).join("; ");

async function callMcpTool({ ctx, call, deps, key, meta }: CallScope, mcp: { server_id: string; tool: string }): Promise<void> {
  const args = asRecord(call.input);
  await deps.store.append(
    ctx.envelope("tool.call", { call_id: call.call_id, tool: mcp.tool, server_id: mcp.server_id, arguments: args }, { idempotency_key: key("call"), meta: meta() }),
  );
  const r = await callWithRetries(ctx, deps, mcp, args, key);
  // The outcome's meta names the call and its output; the input and step text are on the tool.call.
  const outcome = (output: unknown) => {
    const { input: _input, text: _text, ...agent } = meta({ output }).agent;
    return { agent };
  };
  const tool = { call_id: call.call_id, tool: mcp.tool, server_id: mcp.server_id };
  if (r.ok) {
    await deps.store.append(
      ctx.envelope(
        "tool.result",
        { ...tool, result: r.result, duration_ms: r.duration_ms, ...(r.truncated ? { truncated: true, artifact_ref: r.artifact_ref } : {}), ...(r.attempts ? { attempts: r.attempts } : {}) },
        { idempotency_key: key("result"), meta: outcome(r.result) },
      ),
    );
  } else {
    await deps.store.append(
      ctx.envelope(
        "tool.error",
        { ...tool, code: r.code, message: r.message, retryable: r.retryable, duration_ms: r.duration_ms, ...(r.attempts ? { attempts: r.attempts } : {}) },
        { idempotency_key: key("error"), meta: outcome({ error: r.code, message: r.message, retryable: r.retryable }) },
      ),
    );
  }
}

/**
 * The MCP call, tried again with backoff while it fails because its server stopped during the
 * call (TOOL_UNAVAILABLE, retryable), up to `lifecycle.retry_attempts` in all; each retry is a
 * task.progress people see (status "retrying"). A cancel stops the waiting at once.
 */
async function callWithRetries(
  ctx: TaskContext,
  deps: ActionDeps,
  mcp: { server_id: string; tool: string },
  args: Record<string, unknown>,
  key: (part: string) => string,
): Promise<Awaited<ReturnType<ToolCaller["callTool"]>> & { attempts?: number }> {
  const { retry_attempts, retry_delay_ms } = deps.workspace.lifecycle;
  const label = `${mcp.server_id}.${mcp.tool}`;
  const { outcome, attempts } = await withRetries(
    { attempts: retry_attempts, first_ms: retry_delay_ms, ...(deps.signal ? { signal: deps.signal } : {}) },
    async () => {
      const r = await deps.tools.callTool({ agent: ctx.agent, server_id: mcp.server_id, tool: mcp.tool, arguments: args, ...(deps.signal ? { signal: deps.signal } : {}) });
      return { outcome: r, again: !r.ok && r.code === "TOOL_UNAVAILABLE" && r.retryable };
    },
    async (next, delay_ms, r) => {
      const error = r.ok ? {} : { code: r.code, message: r.message };
      await deps.store.append(ctx.envelope("task.progress", { ...retryNotice({ of: "tool", label, tool: label }, error, next, retry_attempts, delay_ms) }, { idempotency_key: key(`retry-${next}`) }));
    },
  );
  return attempts > 1 ? { ...outcome, attempts } : outcome;
}

async function ask({ ctx, call, deps, key, meta, fail }: CallScope): Promise<void> {
  const r = AskInput.safeParse(call.input);
  if (!r.success) return fail(issuesOf(r.error));
  const target = normaliseTarget(r.data.to);
  if (target !== "user" && !deps.workspace.agents.has(target)) return fail(`no agent ${r.data.to} in this workspace`);
  const id = newId("message");
  await deps.store.append(
    ctx.envelope(
      "chat.message",
      { text: r.data.question, expects_reply: true, ...(r.data.oversight_inquiry ? { inquiry: true } : {}) },
      { id, to: [recipient(target)], idempotency_key: key("ask"), meta: meta({ output: `Sent as message ${id}. The answer will arrive as a new message; end your turn now.` }) },
    ),
  );
}

async function reply({ ctx, call, deps, key, meta, fail }: CallScope): Promise<void> {
  const r = ReplyInput.safeParse(call.input);
  if (!r.success) return fail(issuesOf(r.error));
  const target = normaliseTarget(r.data.to);
  const answered = r.data.reply_to ? (await deps.runEvents()).find((e) => e.id === r.data.reply_to) : undefined;
  const id = newId("message");
  await deps.store.append(
    ctx.envelope(
      "chat.message",
      { text: r.data.text, ...(answered ? { reply_to: answered.id } : {}) },
      {
        id,
        to: [recipient(target)],
        ...(r.data.payload_type ? { payload_type: r.data.payload_type } : {}),
        // The answer goes into the asker's task, where the question waits.
        ...(answered ? { task_id: answered.task_id, parent_task_id: answered.parent_task_id ?? null } : {}),
        idempotency_key: key("reply"),
        meta: meta({ output: `Sent as message ${id}.` }),
      },
    ),
  );
}

/**
 * The runaway guards on delegation (docs/lifecycle.md): the message when a new subtask of
 * `ctx.task_id` would be deeper than `max_depth` or the run already has `max_tasks_per_run` tasks,
 * naming the agent by its card's display name (docs/channels.md "One name per agent").
 */
async function runawayGuard(ctx: TaskContext, deps: ActionDeps): Promise<string | null> {
  const { max_depth, max_tasks_per_run } = deps.workspace.lifecycle;
  const parents = parentsOf(await deps.runEvents());
  let depth = 0;
  for (let t: string | null | undefined = ctx.task_id; (t = parents.get(t)) && depth <= max_depth; ) depth++;
  if (depth + 1 > max_depth) {
    return `${ctx.agent.card.display.name} may not delegate further: the subtask would be ${depth + 1} levels below the run's first task, and the workspace allows ${max_depth} (lifecycle.max_depth)`;
  }
  if (parents.size >= max_tasks_per_run) {
    return `${ctx.agent.card.display.name} may not delegate: the run already has ${parents.size} tasks, the most the workspace allows (lifecycle.max_tasks_per_run)`;
  }
  return null;
}

async function delegate({ ctx, call, deps, key, meta, fail }: CallScope): Promise<void> {
  const r = DelegateInput.safeParse(call.input);
  if (!r.success) return fail(issuesOf(r.error));
  const runaway = await runawayGuard(ctx, deps);
  if (runaway) {
    // A run that keeps growing ends here: the delegating task fails with the reason.
    await deps.store.append([
      ctx.envelope("tool.call", { call_id: call.call_id, tool: call.tool, arguments: asRecord(call.input) }, { idempotency_key: key("call"), meta: meta() }),
      ctx.envelope(
        "tool.error",
        { call_id: call.call_id, tool: call.tool, code: "RUN_LIMIT", message: runaway, retryable: false },
        { idempotency_key: key("error"), meta: meta({ output: { error: "RUN_LIMIT", message: runaway } }) },
      ),
      ctx.envelope("task.error", { code: "RUN_LIMIT", message: runaway, retryable: false }, { to: [{ agent_id: ctx.request.from.agent_id }], idempotency_key: key("run-limit") }),
    ]);
    return;
  }
  const subtask = { task_id: newId("task"), parent_task_id: ctx.task_id };
  const request = {
    title: r.data.title,
    context_summary: r.data.context_summary,
    ...(r.data.instructions ? { instructions: r.data.instructions } : {}),
    ...(r.data.expects ? { expects: { type: "task.result" as const, payload_type: r.data.expects } } : {}),
  };
  const attachments = r.data.attachments?.length ? { attachments: r.data.attachments } : {};
  if (r.data.requires) {
    await deps.store.append(
      ctx.envelope("task.request", request, {
        ...subtask,
        to: [{ agent_id: ORCHESTRATOR.agent_id }],
        requires: r.data.requires,
        ...(r.data.prefers?.length ? { prefers: r.data.prefers } : {}),
        ...attachments,
        idempotency_key: key("delegate"),
        meta: meta({
          output: {
            task_id: subtask.task_id,
            status: "routing",
            note: `Clutch routes it to an agent offering ${r.data.requires.join(" and ")}. The result will arrive as a new message; end your turn now.`,
          },
        }),
      }),
    );
    return;
  }
  const target = normaliseTarget(r.data.agent_id!);
  if (!ctx.agent.allowed_agents.includes(target)) {
    const message = `${ctx.agent.card.display.name} may not delegate to ${agentDisplayName(deps.workspace, target)}: its allowed_agents are [${ctx.agent.manifest.allowed_agents.join(", ")}]`;
    await deps.store.append(
      ctx.envelope(
        "task.error",
        { code: "PERMISSION_DENIED", message, retryable: false, details: { delegator: ctx.agent.agent_id, target } },
        { ...subtask, from: ORCHESTRATOR, to: [{ agent_id: ctx.agent.agent_id }], idempotency_key: key("denied"), meta: meta({ output: { error: "PERMISSION_DENIED", message } }) },
      ),
    );
    return;
  }
  if (!deps.workspace.agents.has(target) && deps.isRegistered && !deps.isRegistered(target)) {
    return fail(`${target} is in your allowed_agents but has not registered with Clutch (POST /api/agents), so it cannot take the task now; delegate to another agent or do it yourself`);
  }
  const rule = ctx.agent.manifest.delegate_rules[target.replace(/^agent:/, "")]?.when_to_delegate;
  await deps.store.append([
    fixedRouting(
      { thread_id: ctx.thread_id, run_id: ctx.run_id, ...subtask },
      target,
      { reason: `delegated by id by ${ctx.agent.card.display.name}; allowed by its manifest (allowed_agents)${rule ? `; rule: ${rule}` : ""}` },
      key("routing"),
      nodeMeta(ctx),
    ),
    ctx.envelope("task.request", request, {
      ...subtask,
      to: [{ agent_id: target }],
      ...attachments,
      idempotency_key: key("delegate"),
      meta: meta({ output: { task_id: subtask.task_id, status: "delegated", note: "The result will arrive as a new message after review; end your turn now." } }),
    }),
  ]);
}

/**
 * Why `result` does not meet payload type `payload_type` (its registered schema, and the
 * request's `expects.required` fields), as a sentence the model can act on; null when it does.
 * The pointer is into the result: `data`'s fields sit at its top level.
 */
async function contractProblem(deps: ActionDeps, payload_type: string, result: Record<string, unknown>, required: readonly string[]): Promise<string | null> {
  await deps.schemas?.lookup(payload_type);
  const unmet = unmetExpectation(deps.schemas, { payload_type, required }, result);
  if (!unmet) return null;
  if ("missing" in unmet) return `the result of this task must have ${unmet.missing.map((f) => `data.${f}`).join(", ")} (expects.required of ${payload_type}); add them and submit again`;
  return `the result does not match ${payload_type} (${unmet.ref}): at ${unmet.pointer || "/"} (data${unmet.pointer.replaceAll("/", ".")}) it ${unmet.message}; fix it and submit again`;
}

async function submitResult({ ctx, call, deps, key, meta, fail }: CallScope): Promise<void> {
  const r = SubmitResultInput.safeParse(call.input);
  if (!r.success) return fail(issuesOf(r.error));
  const { summary, report_markdown, data } = r.data;
  const result = { summary, ...(report_markdown ? { report_markdown } : {}), ...(data ?? {}) };
  const expected = ctx.kind === "review" ? null : expectedPayloadType(ctx.request);
  if (expected && r.data.payload_type && r.data.payload_type !== expected) {
    return fail(`this task expects a result of payload_type ${expected}, not ${r.data.payload_type}: submit it as ${expected}`);
  }
  const payload_type = r.data.payload_type ?? expected ?? undefined;
  if (payload_type && ctx.kind !== "review") {
    const problem = await contractProblem(deps, payload_type, result, ctx.request.payload.expects?.required ?? []);
    if (problem) return fail(problem);
  }

  if (ctx.kind === "review") {
    const feedback = ReviewFeedbackV1.safeParse(data ?? {});
    if (!feedback.success) {
      return fail(`a review result needs data { decision: approved | changes_requested | rejected, comments, blocking_issues[] }: ${feedback.error.issues[0]!.message}`);
    }
    await deps.store.append(
      ctx.envelope(
        "task.result",
        { ...feedback.data, summary },
        {
          to: ctx.request.from ? [{ agent_id: ctx.request.from.agent_id }] : [],
          payload_type: "review.feedback.v1",
          domain: "review",
          idempotency_key: key("result"),
          meta: meta({ output: "Review submitted." }),
        },
      ),
    );
    return;
  }

  const overseer = ctx.agent.overseer;
  if (overseer) {
    const review = { task_id: newId("task"), parent_task_id: ctx.task_id, from: ORCHESTRATOR };
    const reviewer = agentDisplayName(deps.workspace, overseer);
    await deps.store.append([
      ctx.envelope(
        "task.progress",
        { message: `Result submitted for review by ${reviewer}.`, status: "in_review", review_task_id: review.task_id },
        {
          idempotency_key: key("in-review"),
          meta: meta({ output: `Submitted for review by ${overseer} as task ${review.task_id}. You will be told the outcome; answer any questions from the reviewer. End your turn now.` }),
        },
      ),
      fixedRouting(
        { thread_id: ctx.thread_id, run_id: ctx.run_id, task_id: review.task_id, parent_task_id: review.parent_task_id },
        overseer,
        { reason: `${reviewer} oversees ${ctx.agent.card.display.name} (manifest overseer)` },
        key("review-routing"),
        nodeMeta(ctx),
      ),
      ctx.envelope(
        "task.request",
        {
          title: `Review: ${String(ctx.request.payload.title ?? summary).slice(0, 150)}`,
          instructions: `Verify the completeness and accuracy of ${ctx.agent.agent_id}'s result before it returns to ${ctx.request.from.agent_id}. Recompute at least one figure yourself. Submit review.feedback.v1.`,
          input: { review_of: ctx.task_id, author: ctx.agent.agent_id, payload_type: payload_type ?? null, result },
        },
        { ...review, to: [{ agent_id: overseer }], domain: "review", meta: { review_of: ctx.task_id }, idempotency_key: key("review") },
      ),
    ]);
    return;
  }
  await deps.store.append(
    ctx.envelope("task.result", result, {
      to: [{ agent_id: ctx.request.from.agent_id }],
      ...(payload_type ? { payload_type } : {}),
      idempotency_key: key("result"),
      meta: meta({ output: "Result submitted; your task is complete." }),
    }),
  );
}

/** The agent cannot do its task: task.error CANNOT_ANSWER to whoever asked (docs/lifecycle.md "Declined"). */
async function decline({ ctx, call, deps, key, meta, fail }: CallScope): Promise<void> {
  const r = DeclineInput.safeParse(call.input);
  if (!r.success) return fail(issuesOf(r.error));
  await deps.store.append(
    ctx.envelope(
      "task.error",
      { code: CANNOT_ANSWER, message: r.data.reason, retryable: false },
      { to: [{ agent_id: ctx.request.from.agent_id }], idempotency_key: key("decline"), meta: meta({ output: "Task declined; it is over." }) },
    ),
  );
}
