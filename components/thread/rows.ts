/**
 * From a channel's events to the rows the list draws. Two views (lib/conversation.ts): the
 * conversation (people's and agents' messages to people, approval requests, notices, and one
 * live run card per run, the machinery left to the run's thread) or every event inline.
 * Consecutive messages from the same sender grouped, day dividers, an unread divider, task cards with their state (lib/fold/task-state.ts), a run header where
 * each run starts (saying when the run waits for a person's answer or an approval), questions
 * with their answers, replies with the message they answer, review tasks with the work they
 * review, tool calls with their outcome, approval cards with their outcome, policy decisions
 * (consecutive allows folded into one quiet row), and messages as their reactions, edits,
 * deletion and pin left them (lib/fold/message-actions.ts; those actions have no rows).
 * Pure: the same events (and runs) always give the same rows, live or after a reload.
 *
 * The events are not checked against their payload schemas yet (EventView does that when it
 * renders one), so a field is still tested before it is used: a malformed event must not break
 * the list.
 */
import { importedFrom, isEvent, isImportedCopy, type StoredEvent, type StoredEventOf } from "@/lib/protocol";
import type { RunSummary } from "@/lib/api/types";
import { affectsTask, foldTask, isTaskEvent, type TaskView } from "@/lib/fold/task-state";
import { indexQuestions, type MessageRef } from "@/lib/fold/questions";
import { LINE_TYPES, type EventContext } from "@/components/events/event-view";
import { foldApprovals, type ApprovalView } from "@/lib/fold/approvals";
import { foldMessageActions, isMessageAction } from "@/lib/fold/message-actions";
import { inChannel, isForkCopy, isThreadReply, threadOnlyTasks } from "@/lib/conversation";
import { dayKey, formatDay } from "@/components/ui/time";

/** One row of the list: a day or unread divider, a run card, or an event with its rendering context. */
export type Row =
  | { kind: "day"; key: string; label: string }
  | { kind: "unread"; key: string }
  | { kind: "run"; key: string; run: RunSummary }
  | { kind: "event"; key: string; event: StoredEvent; ctx: EventContext }
  /** Consecutive policy.decision `allow` events, shown as one quiet line. */
  | { kind: "policy-group"; key: string; events: StoredEventOf<"policy.decision">[] }
  /** In a run's thread (`steps`): consecutive machinery (routing, policy allows, accepts) behind one "Details" line. */
  | { kind: "details"; key: string; events: StoredEvent[] }
  /** In a fork's thread (`steps`): the events copied from the run it was forked from, behind one line. */
  | { kind: "copied"; key: string; events: StoredEvent[] };

/** The machinery a run's thread folds behind "Details": how work was routed, allowed and accepted, and the model calls it took. */
function isMachinery(ev: StoredEvent): boolean {
  return ev.type === "routing.decision" || ev.type === "task.accept" || ev.type === "model.usage" || isAllow(ev);
}

/** A progress note of a task (not a result handed in for review, which reads as its own step). */
function isProgressNote(ev: StoredEvent): boolean {
  return ev.type === "task.progress" && reviewTaskOf(ev) === undefined;
}

/** A policy.decision that allowed: quiet, grouped, and no break in a sender's group. */
function isAllow(ev: StoredEvent): ev is StoredEventOf<"policy.decision"> {
  return isEvent(ev, "policy.decision") && ev.payload?.decision === "allow" && !isImportedCopy(ev);
}

/** Rows from the same sender closer than this are grouped. */
const GROUP_MS = 5 * 60_000;

function sameSender(a: StoredEvent, b: StoredEvent): boolean {
  return (
    a.from?.agent_id === b.from?.agent_id &&
    (a.from?.display_name ?? "") === (b.from?.display_name ?? "") &&
    // An imported copy's rows group only with rows quoting the same sender (each names whom it quotes).
    importedFrom(a)?.from.agent_id === importedFrom(b)?.from.agent_id
  );
}

/**
 * A chat message that is a question, an answer or addressed to someone starts its own group; so
 * does an approval card.
 */
function standsAlone(ev: StoredEvent): boolean {
  if (ev.type === "approval.requested") return true;
  if (!isEvent(ev, "chat.message")) return false;
  const p = ev.payload;
  return p?.expects_reply === true || typeof p?.reply_to === "string" || (Array.isArray(ev.to) && ev.to.length > 0);
}

/** The review task of a result submitted for review (task.progress `in_review`), if `ev` is one. */
export function reviewTaskOf(ev: StoredEvent): string | undefined {
  if (!isEvent(ev, "task.progress") || ev.payload?.status !== "in_review") return undefined;
  return typeof ev.payload.review_task_id === "string" ? ev.payload.review_task_id : undefined;
}

/** The decision of an overseer's review (a task.result of payload type review.feedback.v1), if `ev` is one. */
export function reviewDecisionOf(ev: StoredEvent): string | undefined {
  if (!isEvent(ev, "task.result") || ev.payload_type !== "review.feedback.v1") return undefined;
  return typeof ev.payload?.decision === "string" ? ev.payload.decision : undefined;
}

/**
 * Whether `ev` continues the group of `prev` (same sender, within GROUP_MS, neither a one-line
 * event nor one that stands alone): the channel and the run view's task panel group alike.
 */
export function continuesGroup(prev: StoredEvent | null, ev: StoredEvent): boolean {
  return (
    prev !== null &&
    !LINE_TYPES.has(ev.type) &&
    !LINE_TYPES.has(prev.type) &&
    !standsAlone(ev) &&
    !standsAlone(prev) &&
    sameSender(prev, ev) &&
    Math.abs(Date.parse(ev.ts) - Date.parse(prev.ts)) < GROUP_MS
  );
}

/** How to build the rows. */
export interface RowOptions {
  /** `conversation` (the default) leaves the machinery of runs to their threads; `all` shows every event. */
  view?: "conversation" | "all";
  /** Decides "Today"/"Yesterday". */
  now?: Date;
  /** The last seq the person had read: an unread divider goes before the first newer message. */
  readUpTo?: number | null;
  /** The person reading (`user:<id>`): their own messages are never new, nor what came before their latest one. */
  me?: string | null;
  /**
   * A run's thread read as a conversation (docs/channels.md "Threads"): each tool call with its
   * outcome as one step (the outcome has no row of its own), and routing, policy allows and
   * accepts folded behind one "Details" line; a fork's copies of earlier events behind one
   * "copied" line. Without it a fork's copies are not shown (docs/channels.md "Forks").
   */
  steps?: boolean;
}

/**
 * Rows for `events` (ascending by seq). `runs` puts a run card before each run's first event
 * (`first_seq`) when that event is loaded.
 */
export function buildRows(events: readonly StoredEvent[], runs: readonly RunSummary[] = [], options: RowOptions = {}): Row[] {
  const { view = "conversation", now = new Date(), steps = false, me = null } = options;
  // What the person wrote themselves was read: the divider goes after their latest message.
  let readUpTo = options.readUpTo ?? null;
  if (readUpTo !== null && me) for (const ev of events) if (ev?.from?.agent_id === me && ev.seq > readUpTo) readUpTo = ev.seq;
  // Task state after each task event, and the latest state per task.
  const taskAfter = new Map<number, TaskView>();
  const taskNow = new Map<string, TaskView>();
  // tool.call → its result or error, by call_id.
  const outcomes = new Map<string, StoredEventOf<"tool.result" | "tool.error">>();
  // review task → its decision (review.feedback.v1).
  const decisions = new Map<string, string>();
  for (const ev of events) {
    if (typeof ev?.type !== "string") continue;
    if (ev.payload && typeof ev.payload === "object" && affectsTask(ev)) {
      try {
        const next = foldTask(taskNow.get(ev.task_id), ev);
        if (next) {
          taskNow.set(ev.task_id, next);
          if (isTaskEvent(ev.type)) taskAfter.set(ev.seq, next);
        }
        const decision = reviewDecisionOf(ev);
        if (decision !== undefined) decisions.set(ev.task_id, decision);
      } catch {
        // a malformed task event renders through its own fallback
      }
    } else if (isEvent(ev, "tool.result", "tool.error")) {
      const id = ev.payload?.call_id;
      if (typeof id === "string" && !outcomes.has(id)) outcomes.set(id, ev);
    }
  }
  // Calls whose outcome their own row shows (steps): the outcome gets no row.
  const called = new Set<string>();
  if (steps) for (const ev of events) if (isEvent(ev, "tool.call") && typeof ev.payload?.call_id === "string") called.add(ev.payload.call_id);
  const qa = indexQuestions(events);
  // Each run card goes before the run's first event; an imported copy's at its time among the
  // channel's events (its events were appended later, with their original times).
  const headers = new Map<number, RunSummary[]>();
  // A fork lives beside the run it was forked from, in its own thread and run view: its card,
  // approvals and report stay out of the channel's conversation (docs/channels.md "Forks").
  const forks = new Set(view === "conversation" ? runs.filter((r) => r.forked_from).map((r) => r.run_id) : []);
  for (const run of runs) {
    if (forks.has(run.run_id)) continue;
    let at = run.first_seq;
    if (run.imported) {
      const later = events.find((e) => e.run_id !== run.run_id && typeof e.ts === "string" && e.ts > run.started_at);
      if (later && later.seq < at) at = later.seq;
    }
    const here = headers.get(at);
    if (here) here.push(run);
    else headers.set(at, [run]);
  }
  // People's replies in the thread of each message, oldest first.
  const replies = new Map<string, MessageRef[]>();
  for (const ev of events) {
    if (!isThreadReply(ev) || !isEvent(ev, "chat.message")) continue;
    const parent = ev.payload.reply_to!;
    const ref = qa.messages.get(ev.id);
    if (!ref) continue;
    const list = replies.get(parent);
    if (list) list.push(ref);
    else replies.set(parent, [ref]);
  }
  const approvals = foldApprovals(events);
  // A tool call held for an approval is recorded right after the approval's request, in the same
  // task, for the same tool: link the two, so the call reads "Waiting for approval" rather than
  // "Running…" (a built-in tool, e.g. reply, gets no tool.result once approved).
  const callApproval = new Map<number, ApprovalView>();
  const approvalByCallId = new Map<string, ApprovalView>();
  {
    const open = new Map<string, ApprovalView>();
    const keyOf = (task: string, s: { tool?: unknown; server_id?: unknown } | undefined) => `${task}|${String(s?.server_id ?? "")}|${String(s?.tool ?? "")}`;
    for (const ev of events) {
      if (typeof ev?.type !== "string") continue;
      if (isEvent(ev, "approval.requested")) {
        const a = approvals.get(String(ev.payload?.approval_id));
        if (a && a.request === ev && a.payload.subject?.kind === "tool_call") open.set(keyOf(ev.task_id, a.payload.subject), a);
      } else if (isEvent(ev, "tool.call")) {
        const k = keyOf(ev.task_id, ev.payload);
        const a = open.get(k);
        if (a) {
          callApproval.set(ev.seq, a);
          const id = ev.payload?.call_id;
          if (typeof id === "string") approvalByCallId.set(id, a);
          open.delete(k);
        }
      }
    }
  }

  // Follow-ups and what is delegated under them: their conversation stays in the run's thread.
  const threadOnly = threadOnlyTasks(events);
  // Each message's reactions, edits, delete and pin: they decorate it and have no row of their own.
  const messageStates = foldMessageActions(events.filter((e) => typeof e?.payload === "object" && e.payload !== null));
  const rows: Row[] = [];
  let prev: StoredEvent | null = null;
  let prevDay = "";
  let unreadShown = readUpTo === null;
  for (const ev of events) {
    const cards = headers.get(ev.seq);
    const copy = isForkCopy(ev);
    if (copy && steps) {
      const last = rows[rows.length - 1];
      if (last?.kind === "copied") last.events.push(ev);
      else rows.push({ kind: "copied", key: `copied-${ev.seq}`, events: [ev] });
      continue;
    }
    const said = inChannel(ev, threadOnly) && !forks.has(ev.run_id);
    const shown = ((view === "all" && !copy) || said) && !isMessageAction(ev);
    if (!shown && !cards) continue;
    const ts = typeof ev?.ts === "string" ? ev.ts : "";
    const day = dayKey(ts);
    if (day !== prevDay) {
      rows.push({ kind: "day", key: `day-${day}-${ev.seq}`, label: formatDay(ts, now) });
      prevDay = day;
      prev = null;
    }
    if (!unreadShown && ev.seq > readUpTo! && said) {
      rows.push({ kind: "unread", key: "unread" });
      unreadShown = true;
      prev = null;
    }
    if (cards) {
      for (const run of cards) rows.push({ kind: "run", key: `run-${run.run_id}`, run });
      prev = null;
    }
    if (!shown) continue;
    if (steps && isEvent(ev, "tool.result", "tool.error") && typeof ev.payload?.call_id === "string" && called.has(ev.payload.call_id)) continue;
    // An imported copy's machinery keeps a row each, naming whom it quotes: never summed up as Clutch's own steps.
    if (steps && isMachinery(ev) && !isImportedCopy(ev)) {
      const last = rows[rows.length - 1];
      if (last?.kind === "details") last.events.push(ev);
      else rows.push({ kind: "details", key: `details-${ev.seq}`, events: [ev] });
      continue;
    }
    if (isAllow(ev)) {
      // Quiet: folded with the allow right before it, and no break in the sender's group.
      const last = rows[rows.length - 1];
      if (last?.kind === "policy-group") last.events.push(ev);
      else if (last?.kind === "event" && isAllow(last.event)) rows[rows.length - 1] = { kind: "policy-group", key: `policy-${last.event.seq}`, events: [last.event, ev] };
      else rows.push({ kind: "event", key: String(ev.seq), event: ev, ctx: { continued: false } });
      continue;
    }
    // In a run's thread, a task's progress notes one after another read as one line: the latest, with how many there were.
    if (steps && isProgressNote(ev)) {
      const last = rows[rows.length - 1];
      if (last?.kind === "event" && isProgressNote(last.event) && last.event.task_id === ev.task_id) {
        rows[rows.length - 1] = { ...last, key: String(ev.seq), event: ev, ctx: { ...last.ctx, task: taskAfter.get(ev.seq), taskNow: taskNow.get(ev.task_id), updates: (last.ctx.updates ?? 1) + 1 } };
        prev = ev;
        continue;
      }
    }
    const ctx: EventContext = { continued: continuesGroup(prev, ev) };
    if (isTaskEvent(ev.type)) {
      ctx.task = taskAfter.get(ev.seq);
      ctx.taskNow = taskNow.get(ev.task_id);
      const review = reviewTaskOf(ev);
      if (review !== undefined) {
        ctx.related = taskNow.get(review);
        ctx.decision = decisions.get(review);
      } else if (ev.type === "task.request" && typeof ev.meta?.review_of === "string") {
        ctx.related = taskNow.get(ev.meta.review_of);
      }
    } else if (isEvent(ev, "tool.call")) {
      const id = ev.payload?.call_id;
      if (typeof id === "string") ctx.toolOutcome = outcomes.get(id);
      ctx.approval = callApproval.get(ev.seq);
      if (steps) ctx.folded = true;
    } else if (isEvent(ev, "tool.error")) {
      const id = ev.payload?.call_id;
      if (typeof id === "string") ctx.approval = approvalByCallId.get(id);
    } else if (isEvent(ev, "approval.requested", "approval.granted", "approval.rejected", "approval.expired", "policy.decision")) {
      const id = ev.payload?.approval_id;
      if (typeof id === "string") ctx.approval = approvals.get(id);
    } else if (isEvent(ev, "chat.message")) {
      ctx.question = qa.questions.get(ev.id);
      const to = ev.payload?.reply_to;
      if (typeof to === "string") ctx.replyTo = qa.messages.get(to);
      ctx.replies = replies.get(ev.id);
      const state = messageStates.get(ev.id);
      if (state?.run_id === ev.run_id) ctx.actions = state;
    }
    rows.push({ kind: "event", key: String(ev.seq), event: ev, ctx });
    prev = ev;
  }
  return rows;
}
