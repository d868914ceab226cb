/**
 * Carrying out an agent's tool calls as events (issue 3; CAP seed 000 "Delegation",
 * "Oversight"; Clutch Protocol §2). Each call becomes the events a person sees, appended
 * through the one append path with idempotency keys made from the instance, step and call
 * id, so a call carried out twice (after a restart) is stored once.
 *
 *   MCP tool       tool.call, then tool.result | tool.error (refused calls too)
 *   ask / reply    chat.message (ask: expects_reply; reply: reply_to, in the asker's task)
 *   delegate       by id: routing.decision + task.request for a new subtask, or, outside the
 *                  delegator's allowed_agents, task.error PERMISSION_DENIED (the run goes on);
 *                  by capability: a task.request to agent:orchestrator with requires[] and
 *                  prefers[], which the router (server/router) decides among allowed_agents
 *   submit_result  task.result; for an agent with an overseer, a task.progress "in review"
 *                  and a review task.request to the overseer instead (the result goes back to
 *                  the delegator only after approval, server/orchestrator)
 */
import {
  makeMessage,
  newId,
  ReviewFeedbackV1,
  type ClutchMessage,
  type MessageType,
  type PayloadOf,
  type StoredEvent,
} from "@/lib/protocol";
import type { EventStore } from "../events/store";
import { ORCHESTRATOR } from "../router/router";
import type { WorkspaceAgent, Workspace } from "../workspace/workspace";
import { AskInput, DelegateInput, parseMcpToolName, ReplyInput, SubmitResultInput } from "./contract";
import type { AgentStepMeta } from "./conversation";
import type { Gate, GateResult } from "../policy/approvals";
import type { Subject } from "../policy/rules";

/** How MCP calls are made (server/adapters/mcp). */
export interface ToolCaller {
  callTool(req: {
    agent: WorkspaceAgent;
    server_id: string;
    tool: string;
    arguments: Record<string, unknown>;
  }): Promise<
    | { ok: true; result: unknown; duration_ms: number; truncated?: boolean; artifact_ref?: string }
    | { ok: false; code: string; message: string; retryable: boolean; duration_ms: number }
  >;
}

/** The task an instance works on, as the runner knows it. */
export interface TaskContext {
  agent: WorkspaceAgent;
  instance_id: string;
  run_id: string;
  thread_id: string;
  task_id: string;
  parent_task_id: string | null;
  kind: "work" | "review";
  /** The task.request that started the task. */
  request: StoredEvent;
}

export interface ToolCall {
  step: number;
  /** The newest seq the model had seen when it made the call (conversation.ts). */
  seen_seq?: number;
  call_id: string;
  tool: string;
  input: unknown;
  /** Model text of the step, recorded on the call's first event. */
  text?: string;
}

export interface ActionDeps {
  store: EventStore;
  workspace: Workspace;
  tools: ToolCaller;
  /** The policy gate for every call (server/policy/approvals.ts); absent: everything allowed. */
  gate?: (g: Gate) => Promise<GateResult>;
  /** Events of the run so far (to find the message a reply answers). */
  runEvents: () => Promise<StoredEvent[]>;
}


function who(agent_id: string) {
  return agent_id === "user" ? { agent_id: "user", role: "human" } : { agent_id };
}

/** What a call is, for the policy gate: its subject, a sentence for people, a preview. */
function describeCall(ctx: TaskContext, call: ToolCall): Omit<Gate, "key" | "at"> {
  const who = ctx.agent.manifest.id;
  const input = asRecord(call.input);
  const subject: Subject = { kind: "tool_call", agent: ctx.agent.agent_id, ...(ctx.agent.card.capabilities ? { capabilities: ctx.agent.card.capabilities.map((c) => c.id) } : {}) };
  const mcp = parseMcpToolName(call.tool);
  if (mcp) return { subject: { ...subject, server_id: mcp.server_id, tool: mcp.tool }, summary: `${who} will call ${mcp.server_id}.${mcp.tool}`, arguments: input };
  const to = typeof input.to === "string" ? normaliseTarget(input.to) : typeof input.agent_id === "string" ? normaliseTarget(input.agent_id) : undefined;
  const withTool = { ...subject, tool: call.tool, ...(to ? { recipient: to } : {}) };
  const audience = to === "user" ? "the people in the channel" : (to ?? (Array.isArray(input.requires) ? `an agent offering ${input.requires.join(" and ")}` : "someone"));
  switch (call.tool) {
    case "ask":
      return { subject: withTool, summary: `${who} will ask ${audience} a question`, arguments: input, preview: String(input.question ?? "") };
    case "reply":
      return { subject: withTool, summary: `${who} will send ${audience} a message`, arguments: input, preview: String(input.text ?? "") };
    case "delegate":
      return { subject: withTool, summary: `${who} will delegate "${String(input.title ?? "a subtask")}" to ${audience}`, arguments: input, preview: String(input.context_summary ?? "") };
    case "submit_result": {
      const data = asRecord(input.data ?? {});
      const review = ctx.kind === "review";
      return {
        subject: { ...withTool, ...(review ? { payload_type: "review.feedback.v1", domain: "review" } : input.payload_type ? { payload_type: String(input.payload_type) } : {}) },
        summary: review ? `${who} will submit its review: ${String(data.decision ?? "?")}` : `${who} will submit the result of its task`,
        arguments: input,
        preview: String(input.report_markdown ?? input.summary ?? ""),
        ...(review && typeof data.decision === "string" ? { recommendation: { decision: data.decision, comments: data.comments } } : {}),
      };
    }
    default:
      return { subject: withTool, summary: `${who} will call ${call.tool}`, arguments: input };
  }
}

/**
 * Carry out one tool call; resolves when its events are stored. "waiting" when the policy
 * holds it for an approval: the call is recorded (tool.call) without an output, and carried
 * out when the approval is decided and the instance is woken again.
 */
export async function perform(ctx: TaskContext, call: ToolCall, deps: ActionDeps): Promise<"done" | "waiting"> {
  if (deps.gate) {
    const described = describeCall(ctx, call);
    const gate = await deps.gate({
      key: `${ctx.instance_id}:${call.step}:${call.call_id}`,
      at: { thread_id: ctx.thread_id, run_id: ctx.run_id, task_id: ctx.task_id, parent_task_id: ctx.parent_task_id },
      ...described,
      usage: {
        sandboxed: ctx.agent.card.security?.sandbox !== false,
        tool_calls: (await deps.runEvents()).filter((e) => e.type === "tool.call" && e.task_id === ctx.task_id).length,
      },
    });
    if (gate.status !== "go") {
      const recorded = makeMessage({
        type: "tool.call",
        thread_id: ctx.thread_id,
        run_id: ctx.run_id,
        task_id: ctx.task_id,
        parent_task_id: ctx.parent_task_id,
        from: { agent_id: ctx.agent.agent_id, role: "worker" },
        to: [],
        payload: { call_id: call.call_id, tool: described.subject.tool ?? call.tool, ...(described.subject.server_id ? { server_id: described.subject.server_id } : {}), arguments: asRecord(call.input) },
        idempotency_key: `${ctx.instance_id}:${call.step}:${call.call_id}:call`,
        meta: { agent: { instance_id: ctx.instance_id, step: call.step, call_id: call.call_id, tool: call.tool, input: call.input, ...(call.text ? { text: call.text } : {}), ...(call.seen_seq !== undefined ? { seen_seq: call.seen_seq } : {}) } },
      });
      if (gate.status === "wait") {
        await deps.store.append(recorded);
        return "waiting";
      }
      const output = { error: gate.code, message: gate.message };
      await deps.store.append([
        recorded,
        makeMessage({
          type: "tool.error",
          thread_id: ctx.thread_id,
          run_id: ctx.run_id,
          task_id: ctx.task_id,
          parent_task_id: ctx.parent_task_id,
          from: { agent_id: ctx.agent.agent_id, role: "worker" },
          to: [],
          payload: { call_id: call.call_id, tool: described.subject.tool ?? call.tool, ...(described.subject.server_id ? { server_id: described.subject.server_id } : {}), code: gate.code, message: gate.message, retryable: false },
          idempotency_key: `${ctx.instance_id}:${call.step}:${call.call_id}:refused`,
          meta: { agent: { instance_id: ctx.instance_id, step: call.step, call_id: call.call_id, tool: call.tool, output } },
        }),
      ]);
      return "done";
    }
    if (gate.arguments) call = { ...call, input: gate.arguments };
  }
  await carryOut(ctx, call, deps);
  return "done";
}

async function carryOut(ctx: TaskContext, call: ToolCall, deps: ActionDeps): Promise<void> {
  const meta = (extra: Partial<AgentStepMeta> = {}): Record<string, unknown> => ({
    agent: {
      instance_id: ctx.instance_id,
      step: call.step,
      call_id: call.call_id,
      tool: call.tool,
      input: call.input,
      ...(call.text ? { text: call.text } : {}),
      ...(call.seen_seq !== undefined ? { seen_seq: call.seen_seq } : {}),
      ...extra,
    } satisfies AgentStepMeta,
  });
  const key = (part: string) => `${ctx.instance_id}:${call.step}:${call.call_id}:${part}`;
  const base = { thread_id: ctx.thread_id, run_id: ctx.run_id, from: { agent_id: ctx.agent.agent_id, role: "worker" } };
  const event = <T extends MessageType>(type: T, payload: PayloadOf<T>, extra: Partial<ClutchMessage>): ClutchMessage =>
    makeMessage({ type, payload, task_id: ctx.task_id, to: [], ...base, ...extra } as never);

  const mcp = parseMcpToolName(call.tool);
  if (mcp) return performMcp(ctx, call, mcp, deps, event, meta, key);

  const fail = (message: string) =>
    deps.store.append([
      event("tool.call", { call_id: call.call_id, tool: call.tool, arguments: asRecord(call.input) }, { idempotency_key: key("call"), meta: meta({ output: undefined }) }),
      event(
        "tool.error",
        { call_id: call.call_id, tool: call.tool, code: "INVALID_TOOL_CALL", message, retryable: false },
        { idempotency_key: key("error"), meta: meta({ output: { error: "INVALID_TOOL_CALL", message } }) },
      ),
    ]);

  switch (call.tool) {
    case "ask": {
      const r = AskInput.safeParse(call.input);
      if (!r.success) return void (await fail(r.error.issues.map((i) => `${i.path.join(".")}: ${i.message}`).join("; ")));
      const target = normaliseTarget(r.data.to);
      if (target !== "user" && !deps.workspace.agents.has(target)) return void (await fail(`no agent ${r.data.to} in this workspace`));
      const id = newId("message");
      await deps.store.append(
        event(
          "chat.message",
          { text: r.data.question, expects_reply: true, ...(r.data.oversight_inquiry ? { inquiry: true } : {}) },
          { id, to: [who(target)], idempotency_key: key("ask"), meta: meta({ output: `Sent as message ${id}. The answer will arrive as a new message; end your turn now.` }) },
        ),
      );
      return;
    }
    case "reply": {
      const r = ReplyInput.safeParse(call.input);
      if (!r.success) return void (await fail(r.error.issues.map((i) => `${i.path.join(".")}: ${i.message}`).join("; ")));
      const target = normaliseTarget(r.data.to);
      const answered = r.data.reply_to ? (await deps.runEvents()).find((e) => e.id === r.data.reply_to) : undefined;
      const id = newId("message");
      await deps.store.append(
        event(
          "chat.message",
          { text: r.data.text, ...(answered ? { reply_to: answered.id } : {}) },
          {
            id,
            to: [who(target)],
            ...(answered ? { task_id: answered.task_id, parent_task_id: answered.parent_task_id ?? null } : {}),
            idempotency_key: key("reply"),
            meta: meta({ output: `Sent as message ${id}.` }),
          },
        ),
      );
      return;
    }
    case "delegate": {
      const r = DelegateInput.safeParse(call.input);
      if (!r.success) return void (await fail(r.error.issues.map((i) => `${i.path.join(".")}: ${i.message}`).join("; ")));
      const child = newId("task");
      const subtask = { title: r.data.title, context_summary: r.data.context_summary, ...(r.data.instructions ? { instructions: r.data.instructions } : {}) };
      if (r.data.requires) {
        await deps.store.append(
          makeMessage({
            type: "task.request",
            ...base,
            to: [{ agent_id: ORCHESTRATOR.agent_id }],
            task_id: child,
            parent_task_id: ctx.task_id,
            requires: r.data.requires,
            ...(r.data.prefers?.length ? { prefers: r.data.prefers } : {}),
            payload: subtask,
            ...(r.data.attachments?.length ? { attachments: r.data.attachments } : {}),
            idempotency_key: key("delegate"),
            meta: meta({ output: { task_id: child, status: "routing", note: `Clutch routes it to an agent offering ${r.data.requires.join(" and ")}. The result will arrive as a new message; end your turn now.` } }),
          }),
        );
        return;
      }
      const target = normaliseTarget(r.data.agent_id!);
      if (!ctx.agent.allowed_agents.includes(target)) {
        const message = `${ctx.agent.manifest.id} may not delegate to ${r.data.agent_id}: its allowed_agents are [${ctx.agent.manifest.allowed_agents.join(", ")}]`;
        await deps.store.append(
          makeMessage({
            type: "task.error",
            ...base,
            from: ORCHESTRATOR,
            to: [{ agent_id: ctx.agent.agent_id }],
            task_id: child,
            parent_task_id: ctx.task_id,
            payload: { code: "PERMISSION_DENIED", message, retryable: false, details: { delegator: ctx.agent.agent_id, target } },
            idempotency_key: key("denied"),
            meta: meta({ output: { error: "PERMISSION_DENIED", message } }),
          }),
        );
        return;
      }
      const rule = ctx.agent.manifest.delegate_rules[target.replace(/^agent:/, "")]?.when_to_delegate;
      await deps.store.append([
        makeMessage({
          type: "routing.decision",
          ...base,
          from: ORCHESTRATOR,
          to: [],
          task_id: child,
          parent_task_id: ctx.task_id,
          payload: {
            selected: target,
            candidates: [target],
            reason: `delegated by id by ${ctx.agent.agent_id}; allowed by its manifest (allowed_agents)${rule ? `; rule: ${rule}` : ""}`,
            scores: { [target]: 1 },
            mode: "fixed",
          },
          idempotency_key: key("routing"),
        }),
        makeMessage({
          type: "task.request",
          ...base,
          to: [{ agent_id: target }],
          task_id: child,
          parent_task_id: ctx.task_id,
          payload: subtask,
          ...(r.data.attachments?.length ? { attachments: r.data.attachments } : {}),
          idempotency_key: key("delegate"),
          meta: meta({ output: { task_id: child, status: "delegated", note: "The result will arrive as a new message after review; end your turn now." } }),
        }),
      ]);
      return;
    }
    case "submit_result":
      return submitResult(ctx, call, deps, meta, key, fail);
    default:
      await fail(`there is no tool named ${call.tool}`);
  }
}

function normaliseTarget(to: string): string {
  if (to === "user" || to.startsWith("user:")) return "user";
  return to.startsWith("agent:") ? to : `agent:${to}`;
}

function asRecord(v: unknown): Record<string, unknown> {
  return v && typeof v === "object" && !Array.isArray(v) ? (v as Record<string, unknown>) : { value: v };
}

async function performMcp(
  ctx: TaskContext,
  call: ToolCall,
  mcp: { server_id: string; tool: string },
  deps: ActionDeps,
  event: <T extends MessageType>(type: T, payload: PayloadOf<T>, extra: Partial<ClutchMessage>) => ClutchMessage,
  meta: (extra?: Partial<AgentStepMeta>) => Record<string, unknown>,
  key: (part: string) => string,
) {
  const args = asRecord(call.input);
  await deps.store.append(
    event("tool.call", { call_id: call.call_id, tool: mcp.tool, server_id: mcp.server_id, arguments: args }, { idempotency_key: key("call"), meta: meta() }),
  );
  const r = await deps.tools.callTool({ agent: ctx.agent, server_id: mcp.server_id, tool: mcp.tool, arguments: args });
  const noInput = (m: Record<string, unknown>) => {
    const agent = { ...(m.agent as AgentStepMeta) };
    delete agent.input;
    delete agent.text;
    return { agent };
  };
  if (r.ok) {
    await deps.store.append(
      event(
        "tool.result",
        {
          call_id: call.call_id,
          tool: mcp.tool,
          server_id: mcp.server_id,
          result: r.result,
          duration_ms: r.duration_ms,
          ...(r.truncated ? { truncated: true, artifact_ref: r.artifact_ref } : {}),
        },
        { idempotency_key: key("result"), meta: noInput(meta({ output: r.result })) },
      ),
    );
  } else {
    const output = { error: r.code, message: r.message, retryable: r.retryable };
    await deps.store.append(
      event(
        "tool.error",
        { call_id: call.call_id, tool: mcp.tool, server_id: mcp.server_id, code: r.code, message: r.message, retryable: r.retryable, duration_ms: r.duration_ms },
        { idempotency_key: key("error"), meta: noInput(meta({ output })) },
      ),
    );
  }
}

async function submitResult(
  ctx: TaskContext,
  call: ToolCall,
  deps: ActionDeps,
  meta: (extra?: Partial<AgentStepMeta>) => Record<string, unknown>,
  key: (part: string) => string,
  fail: (message: string) => Promise<unknown>,
) {
  const r = SubmitResultInput.safeParse(call.input);
  if (!r.success) return void (await fail(r.error.issues.map((i) => `${i.path.join(".")}: ${i.message}`).join("; ")));
  const { summary, report_markdown, data, payload_type } = r.data;
  const result = { summary, ...(report_markdown ? { report_markdown } : {}), ...(data ?? {}) };
  const base = { thread_id: ctx.thread_id, run_id: ctx.run_id, task_id: ctx.task_id, parent_task_id: ctx.parent_task_id };
  const from = { agent_id: ctx.agent.agent_id, role: "worker" };

  if (ctx.kind === "review") {
    const feedback = ReviewFeedbackV1.safeParse(data ?? {});
    if (!feedback.success) {
      return void (await fail(`a review result needs data { decision: approved | changes_requested | rejected, comments, blocking_issues[] }: ${feedback.error.issues[0]!.message}`));
    }
    await deps.store.append(
      makeMessage({
        type: "task.result",
        ...base,
        from,
        to: ctx.request.from ? [{ agent_id: ctx.request.from.agent_id }] : [],
        payload_type: "review.feedback.v1",
        domain: "review",
        payload: { ...feedback.data, summary },
        idempotency_key: key("result"),
        meta: meta({ output: "Review submitted." }),
      }),
    );
    return;
  }

  const overseer = ctx.agent.overseer;
  if (overseer) {
    const review = newId("task");
    const reviewRule = `${overseer} oversees ${ctx.agent.agent_id} (manifest overseer)`;
    await deps.store.append([
      makeMessage({
        type: "task.progress",
        ...base,
        from,
        to: [],
        payload: { message: `Result submitted for review by ${overseer}.`, status: "in_review", review_task_id: review },
        idempotency_key: key("in-review"),
        meta: meta({ output: `Submitted for review by ${overseer} as task ${review}. You will be told the outcome; answer any questions from the reviewer. End your turn now.` }),
      }),
      makeMessage({
        type: "routing.decision",
        ...base,
        task_id: review,
        parent_task_id: ctx.task_id,
        from: ORCHESTRATOR,
        to: [],
        payload: { selected: overseer, candidates: [overseer], reason: reviewRule, scores: { [overseer]: 1 }, mode: "fixed" },
        idempotency_key: key("review-routing"),
      }),
      makeMessage({
        type: "task.request",
        ...base,
        task_id: review,
        parent_task_id: ctx.task_id,
        from: ORCHESTRATOR,
        to: [{ agent_id: overseer }],
        domain: "review",
        payload: {
          title: `Review: ${String(ctx.request.payload.title ?? summary).slice(0, 150)}`,
          instructions: `Verify the completeness and accuracy of ${ctx.agent.agent_id}'s result before it returns to ${ctx.request.from.agent_id}. Recompute at least one figure yourself. Submit review.feedback.v1.`,
          input: { review_of: ctx.task_id, author: ctx.agent.agent_id, payload_type: payload_type ?? null, result },
        },
        meta: { review_of: ctx.task_id },
        idempotency_key: key("review"),
      }),
    ]);
    return;
  }
  await deps.store.append(
    makeMessage({
      type: "task.result",
      ...base,
      from,
      to: [{ agent_id: ctx.request.from.agent_id }],
      ...(payload_type ? { payload_type } : {}),
      payload: result,
      idempotency_key: key("result"),
      meta: meta({ output: "Result submitted; your task is complete." }),
    }),
  );
}
