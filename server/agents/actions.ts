/**
 * Carrying out an agent's tool calls as events (CAP seed 000 "Delegation", "Oversight"; Clutch
 * Protocol §2). Each call first passes the policy gate (server/policy/approvals.ts): it goes
 * ahead, waits for an approval (the call is recorded as a tool.call without an outcome), or is
 * refused (tool.call + tool.error). A call that goes ahead becomes the events of its tool
 * (tool-calls.ts), appended through the one append path with idempotency keys made from the
 * instance, step and call id, so a call carried out twice (after a restart) is stored once.
 */
import type { Gate } from "../policy/approvals";
import type { Subject } from "../policy/rules";
import type { Workspace } from "../workspace/workspace";
import { agentDisplayName } from "../workspace/names";
import { parseMcpToolName, REPORT_PAYLOAD_TYPE } from "./contract";
import type { ActionDeps, TaskContext, ToolCall } from "./task-context";
import { asRecord, callScope, carryOut, normaliseTarget } from "./tool-calls";

/** What a message is about, in a few words: its first markdown heading, else its first line (≤ 90 characters). */
function headline(text: string): string {
  const line = (/^#{1,3}\s+(.+)$/m.exec(text)?.[1] ?? text.split("\n").find((l) => l.trim()) ?? "").replace(/[*_`]/g, "").trim();
  return line.length > 90 ? `${line.slice(0, 89)}…` : line;
}

/**
 * What a call is, for the policy gate: its subject (ids), a sentence for people that names the
 * agents by their cards' display names ("Project Manager's report to the people in the channel:
 * Q4 2017 sales trends"; docs/channels.md "One name per agent"), a preview.
 */
export function describeCall(ctx: TaskContext, call: ToolCall, workspace: Pick<Workspace, "agents">): Omit<Gate, "key" | "at"> {
  const who = ctx.agent.card.display.name;
  const input = asRecord(call.input);
  const subject: Subject = { kind: "tool_call", agent: ctx.agent.agent_id, ...(ctx.agent.card.capabilities ? { capabilities: ctx.agent.card.capabilities.map((c) => c.id) } : {}) };
  const mcp = parseMcpToolName(call.tool);
  if (mcp) return { subject: { ...subject, server_id: mcp.server_id, tool: mcp.tool }, summary: `${who} will call ${mcp.server_id}.${mcp.tool}`, arguments: input };
  const to = typeof input.to === "string" ? normaliseTarget(input.to) : typeof input.agent_id === "string" ? normaliseTarget(input.agent_id) : undefined;
  const withTool = { ...subject, tool: call.tool, ...(to ? { recipient: to } : {}) };
  const audience = to === "user" ? "the people in the channel" : to ? agentDisplayName(workspace, to) : Array.isArray(input.requires) ? `an agent offering ${input.requires.join(" and ")}` : "someone";
  switch (call.tool) {
    case "ask":
      return { subject: withTool, summary: `${who} will ask ${audience} a question`, arguments: input, preview: String(input.question ?? "") };
    case "reply": {
      const report = input.payload_type === REPORT_PAYLOAD_TYPE;
      const about = headline(String(input.text ?? ""));
      return {
        subject: { ...withTool, ...(typeof input.payload_type === "string" ? { payload_type: input.payload_type } : {}) },
        summary: `${who}'s ${report ? "report" : "message"} to ${audience}${about ? `: ${about}` : ""}`,
        arguments: input,
        preview: String(input.text ?? ""),
      };
    }
    case "decline":
      return { subject: withTool, summary: `${who} will decline its task`, arguments: input, preview: String(input.reason ?? "") };
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
    const described = describeCall(ctx, call, deps.workspace);
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
      const scope = callScope(ctx, call, deps);
      const tool = { call_id: call.call_id, tool: described.subject.tool ?? call.tool, ...(described.subject.server_id ? { server_id: described.subject.server_id } : {}) };
      // A held or refused call names its parent task too, unlike a call that went ahead.
      const recorded = ctx.envelope(
        "tool.call",
        { ...tool, arguments: asRecord(call.input) },
        { parent_task_id: ctx.parent_task_id, idempotency_key: scope.key("call"), meta: scope.meta() },
      );
      if (gate.status === "wait") {
        await deps.store.append(recorded);
        return "waiting";
      }
      const output = { error: gate.code, message: gate.message };
      await deps.store.append([
        recorded,
        ctx.envelope(
          "tool.error",
          { ...tool, code: gate.code, message: gate.message, retryable: false },
          {
            parent_task_id: ctx.parent_task_id,
            idempotency_key: scope.key("refused"),
            meta: { agent: { instance_id: ctx.instance_id, step: call.step, call_id: call.call_id, tool: call.tool, output } },
          },
        ),
      ]);
      return "done";
    }
    if (gate.arguments) call = { ...call, input: gate.arguments };
  }
  await carryOut(callScope(ctx, call, deps));
  return "done";
}
