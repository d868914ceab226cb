/**
 * `EventView`: picks the renderer for an event's type, after checking its payload against the
 * type's schema (Clutch Protocol §2; lib/protocol/payloads.ts), so each renderer gets its event
 * typed (`StoredEventOf<"tool.call">`); an unknown type or a payload of an unexpected shape
 * renders as formatted JSON, and every renderer sits inside an error boundary that falls back
 * to JSON. Message actions (chat.reaction, chat.edit, chat.delete, chat.pin) render nothing of
 * their own: they decorate the message they name (`EventContext.actions`).
 */
import { memo } from "react";
import { isImportedCopy, PAYLOAD_BY_TYPE, type MessageType, type StoredEvent, type StoredEventOf } from "@/lib/protocol";
import type { TaskView } from "@/lib/fold/task-state";
import type { MessageRef, QuestionView } from "@/lib/fold/questions";
import type { ApprovalView } from "@/lib/fold/approvals";
import type { MessageState } from "@/lib/fold/message-actions";
import { sameMessageState } from "./message-actions-model";
import { AgentHeartbeat, AgentRegister, AgentUpdate } from "./agent-event";
import { ApprovalCard, ApprovalOutcomeLine } from "./approval-card";
import { AuditLine, ChatMessage, ChatSystem } from "./chat";
import { EventErrorBoundary } from "./error-boundary";
import { ImportedLine } from "./imported-event";
import { PolicyDecisionLine } from "./policy-event";
import { RoutingDecision, RoutingFailure } from "./routing-event";
import { TaskCard } from "./task-card";
import { ToolCall, ToolError, ToolResult } from "./tool-event";
import { UnknownEvent } from "./unknown-event";
import { UsageLine } from "./usage-event";

/** What a renderer may need beyond the event itself (computed by components/thread/rows.ts). */
export interface EventContext {
  /** Same sender as the row above, within a few minutes: no avatar and name. */
  continued: boolean;
  /** For task.*: the task right after this event, and its latest state. */
  task?: TaskView;
  taskNow?: TaskView;
  /** For tool.call: the matching tool.result / tool.error, once it arrived. */
  toolOutcome?: StoredEventOf<"tool.result" | "tool.error">;
  /** For tool.call in a run's thread: the call and its outcome shown as one step (the outcome has no row of its own). */
  folded?: boolean;
  /** For a chat.message that expects a reply: the question and its answer (lib/fold/questions.ts). */
  question?: QuestionView;
  /** For a chat.message with `reply_to`: the message it answers, when it is loaded. */
  replyTo?: MessageRef;
  /** For a chat.message: people's replies in its thread, oldest first (lib/conversation.ts). */
  replies?: MessageRef[];
  /**
   * For a chat.message: its state after the reactions, edits, delete and pin among the same
   * events (lib/fold/message-actions.ts). Without it the message shows as sent, with no actions.
   */
  actions?: MessageState;
  /**
   * For task.progress `in_review`: the review task; for a review's task.request (meta.review_of):
   * the task under review. Latest state.
   */
  related?: TaskView;
  /** For task.progress `in_review`: the decision of its review (review.feedback.v1), once made. */
  decision?: string;
  /** For task.progress in a run's thread: how many progress notes in a row this one stands for (it is the latest). */
  updates?: number;
  /**
   * For approval.*, a policy.decision that opened an approval, and a tool.call held for one: the
   * approval folded from the channel's events (lib/fold/approvals.ts).
   */
  approval?: ApprovalView;
}

/** Types rendered as one-liners: they never group with their neighbours. */
export const LINE_TYPES: ReadonlySet<string> = new Set([
  "chat.system",
  "agent.register",
  "agent.heartbeat",
  "agent.update",
  "policy.decision",
  "approval.granted",
  "approval.rejected",
  "approval.expired",
  "audit.change",
]);

/**
 * Clutch's own lines and approvals: an imported copy of one is quoted (ImportedLine), never drawn
 * as Clutch's own or as an approval someone could decide.
 */
const QUOTED_TYPES: ReadonlySet<string> = new Set([...LINE_TYPES, "approval.requested"]);

/** True for a type Clutch knows (a misbehaving source may send others). */
function isKnownType(type: string): type is MessageType {
  return Object.hasOwn(PAYLOAD_BY_TYPE, type);
}

/**
 * True when the event's payload fits its type's schema; narrows it to the union of typed events,
 * so a `switch` on its type hands each renderer its payload typed.
 */
function payloadFits(event: StoredEvent): event is StoredEventOf<MessageType> {
  return isKnownType(event.type) && PAYLOAD_BY_TYPE[event.type].safeParse(event.payload).success;
}

function Renderer({ event, ctx }: { event: StoredEvent; ctx: EventContext }) {
  if (!event || typeof event !== "object" || typeof event.from?.agent_id !== "string" || !Array.isArray(event.to)) {
    return <UnknownEvent event={event} note="This event is missing envelope fields." />;
  }
  if (!payloadFits(event)) {
    return (
      <UnknownEvent event={event} note={isKnownType(event.type) ? "Payload has an unexpected shape." : undefined} />
    );
  }
  const { continued } = ctx;
  if (QUOTED_TYPES.has(event.type) && isImportedCopy(event)) return <ImportedLine event={event} />;
  switch (event.type) {
    case "chat.message":
      return <ChatMessage event={event} continued={continued} question={ctx.question} replyTo={ctx.replyTo} replies={ctx.replies} actions={ctx.actions} />;
    case "chat.reaction":
    case "chat.edit":
    case "chat.delete":
    case "chat.pin":
      return null;
    case "chat.system":
      return <ChatSystem event={event} />;
    case "audit.change":
      return <AuditLine event={event} />;
    case "task.request":
    case "task.accept":
    case "task.progress":
    case "task.result":
    case "task.error":
    case "task.cancel":
    case "task.timeout":
      return <TaskCard event={event} continued={continued} task={ctx.task} now={ctx.taskNow} related={ctx.related} decision={ctx.decision} />;
    case "tool.call":
      return <ToolCall event={event} continued={continued} outcome={ctx.toolOutcome} approval={ctx.approval} folded={ctx.folded} />;
    case "tool.result":
      return <ToolResult event={event} continued={continued} />;
    case "tool.error":
      return <ToolError event={event} continued={continued} approval={ctx.approval} />;
    case "routing.decision":
      return <RoutingDecision event={event} continued={continued} />;
    case "routing.failure":
      return <RoutingFailure event={event} continued={continued} />;
    case "agent.register":
      return <AgentRegister event={event} />;
    case "agent.update":
      return <AgentUpdate event={event} />;
    case "agent.heartbeat":
      return <AgentHeartbeat event={event} />;
    case "policy.decision":
      return <PolicyDecisionLine event={event} approval={ctx.approval} />;
    case "approval.requested":
      return <ApprovalCard event={event} continued={continued} approval={ctx.approval} />;
    case "approval.granted":
    case "approval.rejected":
    case "approval.expired":
      return <ApprovalOutcomeLine event={event} approval={ctx.approval} />;
    case "model.usage":
      return <UsageLine event={event} />;
    default:
      return <UnknownEvent event={event} />;
  }
}

function sameCtx(a: EventContext, b: EventContext): boolean {
  return (
    a.continued === b.continued &&
    a.task?.state === b.task?.state &&
    a.task?.title === b.task?.title &&
    a.task?.assignee === b.task?.assignee &&
    a.task?.attempts === b.task?.attempts &&
    a.taskNow?.state === b.taskNow?.state &&
    a.toolOutcome?.seq === b.toolOutcome?.seq &&
    a.folded === b.folded &&
    a.question?.answer?.id === b.question?.answer?.id &&
    a.question?.closed === b.question?.closed &&
    a.replyTo?.id === b.replyTo?.id &&
    a.replies?.length === b.replies?.length &&
    sameMessageState(a.actions, b.actions) &&
    a.related?.state === b.related?.state &&
    a.related?.assignee === b.related?.assignee &&
    a.decision === b.decision &&
    a.approval?.state === b.approval?.state &&
    a.approval?.history.length === b.approval?.history.length &&
    a.approval?.request === b.approval?.request
  );
}

/** One event, rendered by its type's renderer inside an error boundary. */
export const EventView = memo(
  function EventView({ event, ctx }: { event: StoredEvent; ctx: EventContext }) {
    return (
      <EventErrorBoundary event={event}>
        <Renderer event={event} ctx={ctx} />
      </EventErrorBoundary>
    );
  },
  (prev, next) => prev.event === next.event && sameCtx(prev.ctx, next.ctx),
);
