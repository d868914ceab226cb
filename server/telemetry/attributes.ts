/**
 * The span attributes of Clutch's trace export (docs/observability.md "Traces (OpenTelemetry)").
 * The `gen_ai.*` names are the OpenTelemetry GenAI semantic conventions' (development status,
 * now kept in the semantic-conventions-genai repository): written out here, as OpenTelemetry
 * advises for attributes that are not stable, rather than imported from the package's
 * `incubating` entry point. `error.type` is stable semantic conventions. `clutch.*` are Clutch's
 * own: the ids of the log (Clutch Protocol §1.1) and what people decided.
 */
export const ATTR = {
  // GenAI semantic conventions
  OPERATION_NAME: "gen_ai.operation.name",
  PROVIDER_NAME: "gen_ai.provider.name",
  AGENT_ID: "gen_ai.agent.id",
  AGENT_NAME: "gen_ai.agent.name",
  CONVERSATION_ID: "gen_ai.conversation.id",
  WORKFLOW_NAME: "gen_ai.workflow.name",
  REQUEST_MODEL: "gen_ai.request.model",
  RESPONSE_MODEL: "gen_ai.response.model",
  FINISH_REASONS: "gen_ai.response.finish_reasons",
  INPUT_TOKENS: "gen_ai.usage.input_tokens",
  OUTPUT_TOKENS: "gen_ai.usage.output_tokens",
  CACHE_READ_INPUT_TOKENS: "gen_ai.usage.cache_read.input_tokens",
  REASONING_OUTPUT_TOKENS: "gen_ai.usage.reasoning.output_tokens",
  TOOL_NAME: "gen_ai.tool.name",
  TOOL_CALL_ID: "gen_ai.tool.call.id",
  TOOL_TYPE: "gen_ai.tool.type",
  // Stable semantic conventions
  ERROR_TYPE: "error.type",
  // Clutch's own
  RUN_ID: "clutch.run_id",
  THREAD_ID: "clutch.thread_id",
  TASK_ID: "clutch.task_id",
  PARENT_TASK_ID: "clutch.parent_task_id",
  RUN_STATE: "clutch.run.state",
  REQUESTED_BY: "clutch.run.requested_by",
  ENTRY_AGENT: "clutch.run.entry_agent",
  TASK_TITLE: "clutch.task.title",
  TASK_STATE: "clutch.task.state",
  TASK_ATTEMPT: "clutch.task.attempt",
  REQUESTER: "clutch.task.requester",
  ERROR_RETRYABLE: "clutch.error.retryable",
  CANCEL_REASON: "clutch.cancel.reason",
  STEP: "clutch.step",
  MODEL_PROVIDER: "clutch.model.provider",
  TOOL_SERVER_ID: "clutch.tool.server_id",
  WAIT: "clutch.wait",
  WAIT_OUTCOME: "clutch.wait.outcome",
  APPROVAL_ID: "clutch.approval_id",
  APPROVAL_KIND: "clutch.approval.kind",
  APPROVAL_SUMMARY: "clutch.approval.summary",
  APPROVAL_RULE: "clutch.approval.rule",
  APPROVAL_ESCALATED_TO: "clutch.approval.escalated_to",
  DECIDED_BY: "clutch.approval.decided_by",
  QUESTION_ID: "clutch.question_id",
  QUESTION_TO: "clutch.question.to",
  ANSWERED_BY: "clutch.answered_by",
} as const;
