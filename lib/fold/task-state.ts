/**
 * Task state, folded from task.* events (Clutch Protocol §2.1; states after Cordum's job
 * lifecycle, seed 004). Pure: the server's `tasks` projection and the browser use this one
 * function, so a task looks the same live, after a reload and in a replay.
 *
 *   task.request  → pending        (a new attempt when the task had ended: attempts + 1; a
 *                                   request to another agent, a reroute, waits to be accepted again)
 *   task.accept   → running
 *   task.progress → running        (unless already ended)
 *   task.result   → succeeded
 *   task.error    → failed
 *   task.cancel   → cancelled
 *   task.timeout  → timed_out
 *
 * An ended task stays ended: a late result, error, cancel or timeout (an agent that finished
 * just after it was cancelled) changes nothing; only a new task.request (a retry) reopens it.
 *
 * Questions (chat.message in the task with `payload.expects_reply`, from its assignee) put a
 * running task in `waiting_input` until every open question has an answer (a chat.message
 * whose `payload.reply_to` names it). An approval.requested in the task puts it in
 * `approval_required` until it is decided.
 */
import type { StoredEvent } from "../protocol/envelope";
import { isEvent, type StoredEventOf } from "../protocol/events";
import { actorOf, isImportedCopy } from "../protocol/imported";

export const TASK_STATES = [
  "pending",
  "approval_required",
  "running",
  "waiting_input",
  "succeeded",
  "failed",
  "cancelled",
  "timed_out",
] as const;
export type TaskState = (typeof TASK_STATES)[number];

export const TERMINAL_STATES: ReadonlySet<TaskState> = new Set(["succeeded", "failed", "cancelled", "timed_out"]);

/** A task as folded from its events. Times are ISO 8601 strings. */
export interface TaskView {
  task_id: string;
  run_id: string;
  thread_id: string;
  parent_task_id: string | null;
  state: TaskState;
  /** Agent the task was sent to (first `to`), or the agent that accepted it. */
  assignee: string | null;
  /** Who asked for the task (`from` of the task.request). */
  requester: string | null;
  title: string | null;
  attempts: number;
  created_at: string;
  updated_at: string;
  /** When the current attempt was accepted (null while pending): timeouts count from here. */
  started_at: string | null;
  ended_at: string | null;
  /**
   * Why the task ended without a result: the task.error payload when failed; `{ code: CANCELLED,
   * message: reason, requested_by, requested_by_name? }` when cancelled; `{ code: TIMED_OUT,
   * message, timeout_ms? }` when timed out.
   */
  error: Record<string, unknown> | null;
  /** Questions the assignee asked that have no answer yet. */
  open_questions: OpenQuestion[];
  /** Approvals the task waits for, each with the state to return to once decided. */
  open_approvals: { id: string; resume: TaskState }[];
  last_seq: number;
  /**
   * A task of an imported copy of a run (lib/protocol/imported.ts): drawn as it was, but it is
   * nobody's work now: it opens no question or approval and counts in no agent's load or record.
   */
  imported: boolean;
}

/** A question awaiting an answer: the chat.message id, its sender and recipients. */
export interface OpenQuestion {
  id: string;
  from: string;
  to: string[];
}

/**
 * Who cancelled a task, as people read it: the display name its task.cancel carried, else the
 * bare id (`user:`/`agent:` dropped); null when its `error` names nobody (TaskView.error).
 */
export function cancelledBy(error: Record<string, unknown> | null): string | null {
  if (typeof error?.requested_by_name === "string") return error.requested_by_name;
  return typeof error?.requested_by === "string" ? error.requested_by.replace(/^(agent|user):/, "") : null;
}

/** True for the event types that change a task's state. */
export function isTaskEvent(type: string): boolean {
  return type.startsWith("task.");
}

/** True for events that change a task: task.* events, approvals, and questions and answers in it. */
export function affectsTask(ev: StoredEvent): boolean {
  if (isTaskEvent(ev.type) || ev.type.startsWith("approval.")) return true;
  return isEvent(ev, "chat.message") && (ev.payload.expects_reply === true || typeof ev.payload.reply_to === "string");
}

/** The approval.* events: requested, then granted, rejected or expired. */
type ApprovalEvent = StoredEventOf<"approval.requested" | "approval.granted" | "approval.rejected" | "approval.expired">;

/**
 * approval.requested puts the task in approval_required until every approval it waits for is
 * granted, rejected or expired (an escalation keeps it waiting); then it returns to the state
 * it had before.
 */
function foldApproval(prev: TaskView, ev: ApprovalEvent): TaskView {
  const p = ev.payload;
  const next: TaskView = { ...prev, updated_at: ev.ts, last_seq: ev.seq };
  if (!p.approval_id || TERMINAL_STATES.has(prev.state) || prev.imported) return next;
  if (ev.type === "approval.requested") {
    if (prev.open_approvals.some((a) => a.id === p.approval_id)) return next;
    const resume = prev.state === "approval_required" ? (prev.open_approvals[0]?.resume ?? "running") : prev.state;
    next.open_approvals = [...prev.open_approvals, { id: p.approval_id, resume }];
    next.state = "approval_required";
    return next;
  }
  if (ev.type === "approval.expired" && ev.payload.outcome === "escalated") return next;
  const closing = prev.open_approvals.find((a) => a.id === p.approval_id);
  if (!closing) return next;
  next.open_approvals = prev.open_approvals.filter((a) => a.id !== p.approval_id);
  if (!next.open_approvals.length && prev.state === "approval_required") next.state = closing.resume;
  return next;
}

function foldQuestion(prev: TaskView, ev: StoredEventOf<"chat.message">): TaskView {
  const p = ev.payload;
  const next: TaskView = { ...prev, updated_at: ev.ts, last_seq: ev.seq };
  if (typeof p.reply_to === "string") next.open_questions = prev.open_questions.filter((q) => q.id !== p.reply_to);
  if (p.expects_reply === true && ev.from.agent_id === prev.assignee && !prev.imported) {
    next.open_questions = [...next.open_questions, { id: ev.id, from: ev.from.agent_id, to: ev.to.map((t) => t.agent_id) }];
  }
  if (TERMINAL_STATES.has(prev.state) || prev.state === "approval_required") return next;
  if (next.open_questions.length) next.state = "waiting_input";
  else if (prev.state === "waiting_input") next.state = "running";
  return next;
}

/** The title a task event names: its `title`, else `instructions`, else `context_summary` (any task.* type). */
function titleOf(ev: StoredEvent): string | null {
  const { title, instructions, context_summary } = ev.payload;
  for (const candidate of [title, instructions, context_summary]) {
    if (typeof candidate === "string" && candidate.trim()) return candidate.trim().slice(0, 200);
  }
  return null;
}

/**
 * The task after `ev`. `prev` is the task before (undefined for a task not seen yet).
 * Returns `prev` unchanged for events that are not task.* events or belong to another task.
 */
export function foldTask(prev: TaskView | undefined, ev: StoredEvent): TaskView | undefined {
  if (!affectsTask(ev)) return prev;
  if (prev && prev.task_id !== ev.task_id) return prev;
  if (!isTaskEvent(ev.type)) {
    if (!prev) return prev;
    if (isEvent(ev, "approval.requested", "approval.granted", "approval.rejected", "approval.expired")) return foldApproval(prev, ev);
    return isEvent(ev, "chat.message") ? foldQuestion(prev, ev) : prev;
  }
  const base: TaskView = prev ?? {
    task_id: ev.task_id,
    run_id: ev.run_id,
    thread_id: ev.thread_id,
    parent_task_id: ev.parent_task_id ?? null,
    state: "pending",
    assignee: ev.type === "task.request" ? (ev.to[0]?.agent_id ?? null) : actorOf(ev),
    requester: ev.type === "task.request" ? actorOf(ev) : null,
    title: titleOf(ev),
    attempts: ev.attempt ?? 1,
    created_at: ev.ts,
    updated_at: ev.ts,
    started_at: null,
    ended_at: null,
    error: null,
    open_questions: [],
    open_approvals: [],
    last_seq: ev.seq,
    imported: isImportedCopy(ev),
  };
  const next: TaskView = { ...base, updated_at: ev.ts, last_seq: ev.seq };
  const ended = TERMINAL_STATES.has(base.state);
  switch (ev.type) {
    case "task.request":
      if (prev) {
        // A repeated request is a retry (new attempt) once the task has ended.
        next.attempts = Math.max(ev.attempt ?? prev.attempts + (ended ? 1 : 0), prev.attempts);
        // After an end (a retry) or to another agent (routed, rerouted) the task waits to be accepted again.
        const moved = (ev.to[0]?.agent_id ?? prev.assignee) !== prev.assignee;
        next.state = ended || moved ? "pending" : prev.state;
        next.ended_at = ended ? null : prev.ended_at;
        next.started_at = ended || moved ? null : prev.started_at;
        next.error = ended ? null : prev.error;
        next.assignee = ev.to[0]?.agent_id ?? prev.assignee;
        next.title = titleOf(ev) ?? prev.title;
      }
      break;
    case "task.accept":
      if (!ended) {
        next.state = next.open_questions.length ? "waiting_input" : "running";
        next.started_at ??= ev.ts;
      }
      next.assignee = actorOf(ev);
      break;
    case "task.progress":
      if (!ended && base.state === "pending") {
        next.state = "running";
        next.started_at ??= ev.ts;
      }
      break;
    case "task.result":
      if (!ended) next.state = "succeeded";
      break;
    case "task.error":
      if (!ended) {
        next.state = "failed";
        next.error = ev.payload;
      }
      break;
    case "task.cancel":
      if (!ended) {
        next.state = "cancelled";
        const { reason, requested_by } = ev.payload;
        next.error = {
          code: "CANCELLED",
          message: reason ?? "",
          requested_by: requested_by ?? actorOf(ev),
          ...(ev.from.display_name ? { requested_by_name: ev.from.display_name } : {}),
        };
      }
      break;
    case "task.timeout":
      if (!ended) {
        next.state = "timed_out";
        next.error = { code: "TIMED_OUT", message: ev.payload.message ?? "", ...(ev.payload.timeout_ms !== undefined ? { timeout_ms: ev.payload.timeout_ms } : {}) };
      }
      break;
  }
  if (next.open_approvals.length && !TERMINAL_STATES.has(next.state) && ev.type !== "task.request") {
    // Lifecycle events while an approval is pending change where the task returns to; one that
    // leaves the state as it was (a progress note) keeps where it returns to.
    next.open_approvals = next.open_approvals.map((a) => ({ ...a, resume: next.state === "approval_required" ? a.resume : next.state }));
    next.state = "approval_required";
  }
  if (TERMINAL_STATES.has(next.state) && !ended) {
    next.ended_at = ev.ts;
    next.open_questions = [];
    next.open_approvals = [];
  }
  return next;
}
