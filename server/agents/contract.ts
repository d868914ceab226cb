/**
 * The contract between Clutch's agent runtime and any model (CAP seed 000,
 * Clutch Protocol §2). Shared by the runner (which builds prompts and executes tool calls)
 * and the built-in model (which reads prompts and chooses tool calls).
 *
 * ## Tools every agent is offered
 *   ask            send a question to a person or an agent; the answer arrives later as a
 *                  new user message (the call itself returns at once: "sent")
 *   reply          send a message, or answer one someone sent you (reply_to = that message's
 *                  id); `payload_type: chat.report.v1` marks a report, the deliverable people
 *                  asked for, which a policy can hold for approval (docs/protocol.md "Reports")
 *   delegate       hand a subtask to an agent in your allowed_agents (CAP delegation_notice →
 *                  task.request with parent_task_id), named by `agent_id`, or by the
 *                  capabilities it needs (`requires`, `prefers`: Clutch §4.2 routes it among
 *                  your allowed_agents); returns at once with the new task_id, or
 *                  an error when not permitted; the subtask's result arrives later as a user
 *                  message, after the delegate's overseer approved it
 *   submit_result  finish your task with a result (for a review task: a review.feedback.v1)
 *   decline        end your task without a result because you cannot do it: task.error
 *                  CANNOT_ANSWER (retryable: false) with your reason; tell the people why first
 * plus one tool per MCP tool of the servers in the agent's mcp_bindings, named
 * `<server_id>__<tool>` (e.g. `DataServer__query_data`), with the MCP tool's input schema.
 *
 * A turn ends when the model answers with text and no tool call, or after submit_result.
 * The runner calls the model again whenever something new arrives for the agent's task.
 *
 * ## Prompt
 *   system     the manifest's system_prompt plus Clutch's operating rules;
 *              providerOptions.clutch: SystemMeta (./models/system-meta.ts)
 *   user       one message per inbound event (the task.request, a message addressed to the
 *              agent, a subtask's outcome), as readable text; providerOptions.clutch:
 *              { event: StoredEvent } so a model can read the structured event
 *   assistant  the agent's earlier tool calls (rebuilt from the log)
 *   tool       their outputs (MCP results as JSON; acknowledgements for ask/reply/delegate)
 */
import { z } from "zod";
import { PAYLOAD_TYPE_PATTERN } from "@/lib/protocol/payloads";

export const MCP_TOOL_SEPARATOR = "__";

/** `<server_id>__<tool>` for an MCP tool. */
export function mcpToolName(server_id: string, tool: string): string {
  return `${server_id}${MCP_TOOL_SEPARATOR}${tool}`;
}

/** The server and tool of an MCP tool name, or null for a built-in tool. */
export function parseMcpToolName(name: string): { server_id: string; tool: string } | null {
  const i = name.indexOf(MCP_TOOL_SEPARATOR);
  return i > 0 ? { server_id: name.slice(0, i), tool: name.slice(i + MCP_TOOL_SEPARATOR.length) } : null;
}

const Attachment = z.looseObject({
  kind: z.enum(["tool_call_result", "text_snippet", "file", "python_object", "artifact_ref"]),
  server_id: z.string().optional(),
  tool: z.string().optional(),
  result: z.unknown().optional(),
  text: z.string().optional(),
  path: z.string().optional(),
  object: z.unknown().optional(),
  ref: z.string().optional(),
});

/** `ask`: `to` is an agent id (`agent:pm-1`) or `user` for the people in the channel. */
export const AskInput = z.object({
  to: z.string().min(1).describe('agent id such as "agent:pm-1", or "user" for the people in the channel'),
  question: z.string().min(1),
  /** CAP oversight_inquiry: an overseer questioning the work under review. */
  oversight_inquiry: z.boolean().optional(),
});
export type AskInput = z.infer<typeof AskInput>;

/** The payload type of a message that is a report: the deliverable people asked for (docs/protocol.md "Reports"). */
export const REPORT_PAYLOAD_TYPE = "chat.report.v1";

/** `reply`: a message to `to`, answering the message `reply_to` (its id) when given. Markdown text. */
export const ReplyInput = z.object({
  to: z.string().min(1),
  text: z.string().min(1),
  reply_to: z.string().optional().describe("id of the message you answer"),
  payload_type: z
    .literal(REPORT_PAYLOAD_TYPE)
    .optional()
    .describe(`"${REPORT_PAYLOAD_TYPE}" when this message is your report, the deliverable the people asked for; leave it out for any other message`),
});
export type ReplyInput = z.infer<typeof ReplyInput>;

/**
 * `delegate`: CAP delegation_notice, to `agent_id` (one of the delegator's allowed_agents) or to
 * whichever allowed agent the router finds for `requires` (Clutch Protocol §4.2). Exactly one of
 * the two.
 */
export const DelegateInput = z
  .object({
    agent_id: z.string().min(1).optional().describe("the agent to delegate to, one of your allowed_agents"),
    requires: z
      .array(z.string().min(1))
      .min(1)
      .optional()
      .describe("instead of agent_id: capabilities the subtask needs, e.g. skill:data-analysis or skill:data-analysis@^1.2"),
    prefers: z.array(z.string().min(1)).optional().describe("with requires: preferences such as tool:DataServer, domain:sales, cost:low"),
    title: z.string().min(1).max(200),
    context_summary: z.string().min(1).describe("what has been done and what remains"),
    instructions: z.string().optional(),
    attachments: z.array(Attachment).optional(),
    expects: z.string().regex(PAYLOAD_TYPE_PATTERN).optional().describe("the payload type the subtask's result must have, e.g. research.summary.v1 (checked against the schema registry)"),
  })
  .refine((d) => Boolean(d.agent_id) !== Boolean(d.requires?.length), { message: "give either agent_id or requires (not both, not neither)", path: ["agent_id"] });
export type DelegateInput = z.infer<typeof DelegateInput>;

/**
 * `submit_result`: the task's result. `report_markdown` is what people read; `data` the
 * figures behind it. A review task submits `payload_type: "review.feedback.v1"` with
 * `data: { decision, comments, blocking_issues }`.
 */
export const SubmitResultInput = z.object({
  summary: z.string().min(1),
  report_markdown: z.string().optional(),
  payload_type: z.string().optional(),
  data: z.record(z.string(), z.unknown()).optional(),
});
export type SubmitResultInput = z.infer<typeof SubmitResultInput>;

/** The error code of a task its agent declined: it cannot do what was asked (docs/lifecycle.md). */
export const CANNOT_ANSWER = "CANNOT_ANSWER";

/**
 * `decline`: end the task without a result because the agent cannot do it (outside what it
 * knows or may do). Becomes task.error CANNOT_ANSWER, retryable: false, with `reason` as its
 * message; the run shows as not done, never as succeeded.
 */
export const DeclineInput = z.object({
  reason: z.string().min(1).max(2000).describe("why you cannot do this task, in words for the person who asked"),
});
export type DeclineInput = z.infer<typeof DeclineInput>;

/** The payload type a task's result must have: its request's `expects.payload_type` (Clutch §3.4), or null. */
export function expectedPayloadType(request: { payload: { expects?: { payload_type: string } } }): string | null {
  return request.payload.expects?.payload_type ?? null;
}

export const BUILTIN_TOOLS = {
  ask: AskInput,
  reply: ReplyInput,
  delegate: DelegateInput,
  submit_result: SubmitResultInput,
  decline: DeclineInput,
} as const;
export type BuiltinToolName = keyof typeof BUILTIN_TOOLS;

