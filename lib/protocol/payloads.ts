/**
 * Payload shapes for every message type of Clutch Protocol §2 and the built-in payload types
 * of §3.3.
 *
 * The seed names the types but not most of their payload fields; the shapes below are Clutch's
 * choice, recorded in docs/protocol.md. Payload objects are loose: extra fields are kept, so an
 * adapter can carry framework detail without losing it.
 */
import { z } from "zod";
import { AgentCardSchema } from "./agent-card";

const text = z.string().max(100_000, "text is limited to 100,000 characters");

/** §2.1 task.request: a request to perform work. */
export const TaskRequestPayload = z.looseObject({
  title: z.string().max(500).optional(),
  instructions: text.optional(),
  /** CAP delegation_notice.context_summary: what has been done and what remains. */
  context_summary: text.optional(),
  input: z.unknown().optional(),
  /** The payload type (§3.2) of `input`; the schema registry checks `input` against it on ingest. */
  input_type: z.string().min(1).optional(),
  /**
   * What the result must be (§3.4 `expects`): its `payload_type`, checked against the schema
   * registry when the agent submits it; the router prefers agents whose AgentCard produces it.
   */
  expects: z
    .looseObject({
      type: z.literal("task.result").optional(),
      payload_type: z.string().min(1, "expects.payload_type names the payload type the result must have"),
      required: z.array(z.string()).optional(),
    })
    .optional(),
});
/** §2.1 task.accept. */
export const TaskAcceptPayload = z.looseObject({
  agent_id: z.string().optional(),
  instance_id: z.string().optional(),
  note: z.string().optional(),
});
/**
 * §2.1 task.progress: an intermediate status update; `percent` is 0–100. A result submitted to
 * the agent's overseer (CAP "Oversight") is a progress with `status: "in_review"` and the
 * `review_task_id` of the review task.
 */
export const TaskProgressPayload = z.looseObject({
  message: text.optional(),
  percent: z.number().min(0).max(100).optional(),
  status: z.string().optional(),
  review_task_id: z.string().optional(),
});
/** §2.1 task.result: shape set by `payload_type` (§3); any object otherwise. */
export const TaskResultPayload = z.looseObject({});
/** §5.4 error body, used by task.error. */
export const TaskErrorPayload = z.looseObject({
  code: z.string().min(1),
  message: z.string(),
  retryable: z.boolean().optional(),
  details: z.record(z.string(), z.unknown()).optional(),
});
/** §2.1 task.cancel. */
export const TaskCancelPayload = z.looseObject({
  reason: z.string().optional(),
  requested_by: z.string().optional(),
});
/** §2.1 task.timeout; `timeout_ms` in milliseconds. */
export const TaskTimeoutPayload = z.looseObject({
  timeout_ms: z.number().nonnegative().optional(),
  message: z.string().optional(),
});

/** §2.2 chat.message: markdown `text` from a person or an agent. */
export const ChatMessagePayload = z.looseObject({
  text: text.min(1, "a message needs text"),
  /** Agent ids or capability ids mentioned (`agent:analyst-1`, `skill:research`). */
  mentions: z.array(z.string()).optional(),
  /** id of the message this answers. */
  reply_to: z.string().optional(),
  /** True when the sender waits for an answer (a question to a person or agent). */
  expects_reply: z.boolean().optional(),
  /** True for a CAP oversight_inquiry: an overseer questioning the work under review. */
  inquiry: z.boolean().optional(),
  /** A reply in a thread that the channel shows too (Slack's "Also send to #channel"; docs/channels.md "Threads"). */
  also_in_channel: z.boolean().optional(),
});
/** §2.2 chat.system: a notification; `level` defaults to info. */
export const ChatSystemPayload = z.looseObject({
  text: text.min(1),
  level: z.enum(["info", "warning", "error"]).optional(),
});

// Message actions (Clutch's extension of §2.2; docs/protocol.md "Message actions (Clutch extension)").
// Each names the chat.message it acts on (`message_id`) and is stored in that message's thread,
// run and task, from the person acting, to nobody. The message itself is never changed: its
// current text, edits, deletion, reactions and pin are folded from these (lib/fold/message-actions.ts).

/** The message action types, in the order docs/protocol.md lists them. */
export const MESSAGE_ACTION_TYPES = ["chat.reaction", "chat.edit", "chat.delete", "chat.pin"] as const;
export type MessageActionType = (typeof MESSAGE_ACTION_TYPES)[number];

const messageId = z.string().min(1, "message_id names the chat.message acted on").max(200);

/** Longest reaction, in UTF-16 code units (a `:shortcode:` or one emoji with its modifiers). */
export const MAX_EMOJI_CHARS = 64;
const SHORTCODE = /^:[a-z0-9_+-]{1,62}:$/;
const PICTOGRAPHIC = /\p{Extended_Pictographic}|\p{Regional_Indicator}|\u20e3/u;

/**
 * True for a reaction's `emoji`: a `:shortcode:` (lowercase letters, digits, `_`, `+`, `-`) or one
 * emoji grapheme (with its skin tone, ZWJ sequence, flag or keycap), at most MAX_EMOJI_CHARS.
 * Pure; the browser's picker can check with it too.
 */
export function isReactionEmoji(value: string): boolean {
  if (!value || value.length > MAX_EMOJI_CHARS) return false;
  if (SHORTCODE.test(value)) return true;
  if (!PICTOGRAPHIC.test(value)) return false;
  const graphemes = [...new Intl.Segmenter(undefined, { granularity: "grapheme" }).segment(value)];
  return graphemes.length === 1;
}

/** chat.reaction: `op` add or remove one person's reaction `emoji` to the message. */
export const ChatReactionPayload = z.looseObject({
  message_id: messageId,
  emoji: z
    .string()
    .min(1, "a reaction needs an emoji")
    .max(MAX_EMOJI_CHARS, `a reaction is at most ${MAX_EMOJI_CHARS} characters`)
    .refine(isReactionEmoji, "a reaction is one emoji (👍) or a :shortcode: (:thumbsup:)"),
  op: z.enum(["add", "remove"], { error: 'op is "add" or "remove"' }),
});
/** chat.edit: the message's new markdown `text` (same limits as chat.message), its `mentions` read again. */
export const ChatEditPayload = z.looseObject({
  message_id: messageId,
  text: text.min(1, "an edit needs text"),
  mentions: z.array(z.string()).optional(),
});
/** chat.delete: a tombstone; the message stays in the log. */
export const ChatDeletePayload = z.looseObject({
  message_id: messageId,
  reason: z.string().max(500).optional(),
});
/** chat.pin: pin (`pinned: true`) or unpin the message in its channel. */
export const ChatPinPayload = z.looseObject({
  message_id: messageId,
  pinned: z.boolean(),
});

/** §2.3 tool.call. `tool` is the tool name (or `mcp:<server>`), `arguments` its JSON input. */
export const ToolCallPayload = z.looseObject({
  call_id: z.string().min(1),
  tool: z.string().min(1),
  server_id: z.string().optional(),
  arguments: z.record(z.string(), z.unknown()).optional(),
});
/** §2.3 tool.result; `duration_ms` in milliseconds; `truncated` with an `artifact_ref` to the whole. */
export const ToolResultPayload = z.looseObject({
  call_id: z.string().min(1),
  tool: z.string().min(1),
  server_id: z.string().optional(),
  result: z.unknown(),
  duration_ms: z.number().nonnegative().optional(),
  truncated: z.boolean().optional(),
  artifact_ref: z.string().optional(),
});
/** §2.3 tool.error. */
export const ToolErrorPayload = z.looseObject({
  call_id: z.string().min(1),
  tool: z.string().min(1),
  server_id: z.string().optional(),
  code: z.string().min(1),
  message: z.string(),
  retryable: z.boolean().optional(),
  duration_ms: z.number().nonnegative().optional(),
});

/** §2.4 agent.register and agent.update: the agent's card. */
export const AgentRegisterPayload = z.looseObject({ card: AgentCardSchema });
export const AgentUpdatePayload = z.looseObject({ card: AgentCardSchema });
/** §2.4 agent.heartbeat; `active_tasks` counts tasks in progress. */
export const AgentHeartbeatPayload = z.looseObject({
  agent_id: z.string().min(1),
  status: z.enum(["online", "busy", "draining"]).optional(),
  active_tasks: z.number().int().nonnegative().optional(),
});

/**
 * Which §4.2 step removed an agent: a hard filter (`offline`, `policy`, `security`,
 * `tool_allowlist`, `concurrency`, `network`, CAP `allowed_agents`, the payload types a card
 * `produces` and `consumes`), `requires` (a required
 * capability missing or outside the version range), or `entry_agent` (a channel's new request).
 */
export const RoutingFilter = z.string().min(1);
export const RoutingRejection = z.looseObject({ agent_id: z.string(), filter: RoutingFilter, reason: z.string() });
/** Rejections counted rather than listed (many agents): how many each filter removed. */
export const RoutingRejectionSummary = z.array(z.looseObject({ filter: RoutingFilter, count: z.number().int().positive(), reason: z.string() }));

/** How one candidate (an agent past every filter) was weighed (§4.2 steps 3 and 4). */
export const RoutingCandidate = z.looseObject({
  agent_id: z.string(),
  /** Preference score in 0..1 (1 when nothing is preferred). */
  score: z.number(),
  /** The prefers[] entries (and the request's domain) it matched. */
  matched: z.array(z.string()).optional(),
  /** Tasks it had in progress, and its max_concurrency. */
  load: z.number().int().nonnegative().optional(),
  max_concurrency: z.number().int().positive().optional(),
  /** Share of its recent ended tasks that succeeded (0..1), null with no history. */
  success_rate: z.number().min(0).max(1).nullable().optional(),
});

/**
 * §4.3 routing.decision. `scores` maps agent id to a score in 0..1; `candidates` lists the
 * agents that passed the filters, best first. Clutch adds how it got there: the request's
 * `requires`/`prefers`, each candidate's factors (`ranked`), the tie-breaker that settled it
 * (`tie_break`), and which filter removed which agent (`rejected`).
 */
export const RoutingDecisionPayload = z.looseObject({
  selected: z.string().min(1),
  candidates: z.array(z.string()),
  reason: z.string(),
  scores: z.record(z.string(), z.number()),
  requires: z.array(z.string()).optional(),
  prefers: z.array(z.string()).optional(),
  /**
   * `fixed` when the recipient was named (by id or @mention) rather than matched; `group_chat`
   * when a group chat's pattern gave the turn (docs/adapters.md "AutoGen: group chats"), with the
   * pattern's rule in `rule` (round_robin, selector, swarm).
   */
  mode: z.enum(["capability", "fixed", "group_chat"]).optional(),
  rule: z.string().optional(),
  ranked: z.array(RoutingCandidate).optional(),
  /** The tie-breaker that decided among equal scores, and the agents it chose among. */
  tie_break: z
    .looseObject({ by: z.enum(["least_loaded", "success_rate", "round_robin"]), among: z.array(z.string()) })
    .nullable()
    .optional(),
  rejected: z.array(RoutingRejection).optional(),
  rejected_summary: RoutingRejectionSummary.optional(),
});
/**
 * §2.5 routing.failure: no agent matched; `rejected` gives the reason per agent. `outcome`
 * says what happens to the request: it `waiting`s for a matching agent (routed as soon as one
 * is free or registers) or has `failed` (a task.error NO_MATCHING_AGENT follows).
 */
export const RoutingFailurePayload = z.looseObject({
  reason: z.string(),
  requires: z.array(z.string()).optional(),
  prefers: z.array(z.string()).optional(),
  outcome: z.enum(["waiting", "failed"]).optional(),
  rejected: z.array(RoutingRejection).optional(),
  rejected_summary: RoutingRejectionSummary.optional(),
});

// Policy and approvals (after Cordum's Safety Kernel, seed 004). Not in Clutch §2: Clutch's own
// extension types, recorded in docs/protocol.md.

/**
 * What a policy decision is about: a task dispatched to an agent, an agent's tool call, or an
 * agent's next model call once a budget is reached (docs/observability.md "Budgets").
 */
export const PolicySubject = z.looseObject({
  kind: z.enum(["dispatch", "tool_call", "model_call"]),
  agent: z.string().min(1),
  server_id: z.string().optional(),
  tool: z.string().optional(),
  recipient: z.string().optional(),
  payload_type: z.string().optional(),
  domain: z.string().optional(),
  risk_tags: z.array(z.string()).optional(),
  capabilities: z.array(z.string()).optional(),
  run_labels: z.array(z.string()).optional(),
});
/** policy.decision: the kernel's answer, the rule that matched (null: the default) and why. */
export const PolicyDecisionPayload = z.looseObject({
  subject: PolicySubject,
  decision: z.enum(["allow", "deny", "require_approval", "throttle", "constrain"]),
  rule: z.string().nullable(),
  reason: z.string(),
  approval_id: z.string().optional(),
  /** throttle: the wait before the call is tried again (ms). */
  delay_ms: z.number().nonnegative().optional(),
  limits: z.record(z.string(), z.unknown()).optional(),
});
/** approval.requested: what will happen, who may approve, until when. */
export const ApprovalRequestedPayload = z.looseObject({
  approval_id: z.string().min(1),
  subject: PolicySubject,
  approvers: z.union([z.literal("any"), z.array(z.string().min(1)).min(1)]),
  /** Who asked for the work (the run's root task's requester), for `forbid_self_approval`. */
  requester: z.string().optional(),
  /**
   * Everyone whose request led to the held work (docs/identity.md "Approvals need the right
   * person"): the run's requester, each person who added a request to the run, who forked or
   * imported it, and the people who made the API keys of an agent that asked. None of them may
   * decide under `forbid_self_approval`. Approvals recorded before it existed name `requester` only.
   */
  requesters: z.array(z.string()).optional(),
  /** The rule forbids the requester from deciding (lib/approvers.ts). */
  forbid_self_approval: z.boolean().optional(),
  summary: z.string().min(1),
  arguments: z.record(z.string(), z.unknown()).optional(),
  /** Markdown of what will be sent or done (e.g. the report). */
  preview: z.string().optional(),
  /** An overseer agent's verdict when a person must confirm a review. */
  recommendation: z.looseObject({ decision: z.string(), comments: z.unknown().optional() }).optional(),
  expires_at: z.iso.datetime({ offset: true }),
  rule: z.string().nullable().optional(),
  reason: z.string().optional(),
});
/** approval.granted: who approved, optionally with edited arguments. */
export const ApprovalGrantedPayload = z.looseObject({
  approval_id: z.string().min(1),
  by: z.string().min(1),
  display_name: z.string().optional(),
  comment: z.string().optional(),
  arguments: z.record(z.string(), z.unknown()).optional(),
});
/** approval.rejected: who rejected and why. */
export const ApprovalRejectedPayload = z.looseObject({
  approval_id: z.string().min(1),
  by: z.string().min(1),
  display_name: z.string().optional(),
  comment: z.string().optional(),
});
/** approval.expired: nobody decided in time; rejected, or escalated to other approvers. */
export const ApprovalExpiredPayload = z.looseObject({
  approval_id: z.string().min(1),
  outcome: z.enum(["rejected", "escalated"]),
  escalated_to: z.array(z.string()).optional(),
  expires_at: z.iso.datetime({ offset: true }).optional(),
});

/**
 * model.usage: one model call made for a task (Clutch's extension of §2, docs/observability.md),
 * reported by the task's assignee: workspace agents after each call, external agents the same way.
 * Token counts are whole tokens as the provider counted them (`cached_input_tokens` is the part of
 * `input_tokens` read from the provider's prompt cache); `latency_ms` is wall time from the call to
 * its answer. Cost is not stored: it is the workspace's price for `model` times the counts, folded
 * when read (lib/fold/usage.ts), so a price fixed later prices old runs too.
 */
export const ModelUsagePayload = z.looseObject({
  model: z.string().min(1).max(200),
  provider: z.string().max(100).optional(),
  input_tokens: z.number().int().nonnegative(),
  output_tokens: z.number().int().nonnegative(),
  cached_input_tokens: z.number().int().nonnegative().optional(),
  reasoning_tokens: z.number().int().nonnegative().optional(),
  latency_ms: z.number().nonnegative(),
  finish_reason: z.string().max(100).optional(),
  /** The agent's step (model turn) in the task, from 1. */
  step: z.number().int().positive().optional(),
});

/** What an `audit.change` records (docs/identity.md). */
export const AUDIT_ACTIONS = [
  "workspace.set_up",
  "member.invited",
  "invite.revoked",
  "member.joined",
  "member.role_changed",
  "member.sign_in_unlocked",
  "member.deactivated",
  "member.reactivated",
  "key.created",
  "key.revoked",
  "session.ended",
  "agent.disabled",
  "agent.enabled",
  "channel.visibility_changed",
  "channel.answers_changed",
  "channel.member_added",
  "channel.member_removed",
  "team.imported",
  "run.restored",
] as const;
/**
 * audit.change (Clutch §6, least privilege with an audit trail): a change to who may do what,
 * by `from` (the admin or person who made it). `subject` is what changed: `user:<id>`,
 * `agent:<id>`, `key_<id>`, `inv_<id>`, a thread id, or for `team.imported` (a PromptPack made a
 * team, docs/promptpacks.md) `pack:<deployment>/<pack id>`, or for `run.restored` (an admin
 * restored a run from a file) the run id. Stored in `_audit`, or in the channel
 * for a channel's membership and visibility. A `session.ended`'s subject is the session's id
 * (`sessions.id`, never its token), its `detail.owner` the person's `user:<id>`.
 */
export const AuditChangePayload = z.looseObject({
  action: z.enum(AUDIT_ACTIONS),
  subject: z.string().min(1),
  summary: text.min(1),
  detail: z.record(z.string(), z.unknown()).optional(),
});

/** Payload schema of every message type of §2, keyed by type. */
export const PAYLOAD_BY_TYPE = {
  "task.request": TaskRequestPayload,
  "task.accept": TaskAcceptPayload,
  "task.progress": TaskProgressPayload,
  "task.result": TaskResultPayload,
  "task.error": TaskErrorPayload,
  "task.cancel": TaskCancelPayload,
  "task.timeout": TaskTimeoutPayload,
  "chat.message": ChatMessagePayload,
  "chat.system": ChatSystemPayload,
  "chat.reaction": ChatReactionPayload,
  "chat.edit": ChatEditPayload,
  "chat.delete": ChatDeletePayload,
  "chat.pin": ChatPinPayload,
  "tool.call": ToolCallPayload,
  "tool.result": ToolResultPayload,
  "tool.error": ToolErrorPayload,
  "agent.register": AgentRegisterPayload,
  "agent.heartbeat": AgentHeartbeatPayload,
  "agent.update": AgentUpdatePayload,
  "routing.decision": RoutingDecisionPayload,
  "routing.failure": RoutingFailurePayload,
  "policy.decision": PolicyDecisionPayload,
  "approval.requested": ApprovalRequestedPayload,
  "approval.granted": ApprovalGrantedPayload,
  "approval.rejected": ApprovalRejectedPayload,
  "approval.expired": ApprovalExpiredPayload,
  "audit.change": AuditChangePayload,
  "model.usage": ModelUsagePayload,
} as const;

export type MessageType = keyof typeof PAYLOAD_BY_TYPE;
export const MESSAGE_TYPES = Object.keys(PAYLOAD_BY_TYPE) as MessageType[];

/** The payload type of a message type, e.g. `PayloadOf<"chat.message">`. */
export type PayloadOf<T extends MessageType> = z.infer<(typeof PAYLOAD_BY_TYPE)[T]>;

/** A payload type (§3.2): `<domain>.<name>.v<version>` in lowercase, e.g. `research.summary.v1`. */
export const PAYLOAD_TYPE_PATTERN = /^([a-z0-9_-]+)\.([a-z0-9_-]+(?:\.[a-z0-9_-]+)*)\.v([1-9][0-9]*)$/;

// §3.3 built-in payload types.
export const ResearchSummaryV1 = z.looseObject({ findings: z.array(z.unknown()), citations: z.array(z.unknown()) });
export const ResearchSourcesV1 = z.looseObject({ sources: z.array(z.unknown()), relevance_scores: z.unknown() });
export const CodeOutputV1 = z.looseObject({ files: z.array(z.unknown()), language: z.string(), tests_passed: z.boolean() });
export const CodeReviewV1 = z.looseObject({
  findings: z.array(z.unknown()),
  severity: z.string(),
  patch_ref: z.string().optional(),
});
export const ReviewFeedbackV1 = z.looseObject({
  decision: z.enum(["approved", "changes_requested", "rejected"]),
  comments: z.union([z.string(), z.array(z.string())]),
  blocking_issues: z.array(z.unknown()),
});

/** Built-in payload types (§3.3), keyed by `payload_type`. */
export const BUILTIN_PAYLOAD_TYPES = {
  "research.summary.v1": ResearchSummaryV1,
  "research.sources.v1": ResearchSourcesV1,
  "code.output.v1": CodeOutputV1,
  "code.review.v1": CodeReviewV1,
  "review.feedback.v1": ReviewFeedbackV1,
} as const;
export type BuiltinPayloadType = keyof typeof BUILTIN_PAYLOAD_TYPES;
