/**
 * From a channel's events to the rows the list draws (issue 2 "group consecutive chat messages
 * from the same sender like Slack; day dividers"; task cards' state from lib/fold/task-state.ts;
 * issue 3: a run header where each run starts, questions with their answers, replies with the
 * message they answer, review tasks with the work they review).
 * Pure: the same events (and runs) always give the same rows, live or after a reload.
 */
import type { StoredEvent } from "@/lib/protocol";
import type { RunSummary } from "@/lib/api/types";
import { foldTask, isTaskEvent, type TaskView } from "@/lib/fold/task-state";
import { indexQuestions, type QuestionView } from "@/lib/fold/questions";
import { LINE_TYPES, type EventContext } from "@/components/events/event-view";
import { dayKey, formatDay } from "@/components/ui/time";

/** One row of the list: a day divider, a run header, or an event with its rendering context. */
export type Row =
  | { kind: "day"; key: string; label: string }
  | { kind: "run"; key: string; run: RunSummary; question: QuestionView | null }
  | { kind: "event"; key: string; event: StoredEvent; ctx: EventContext };

/** Rows from the same sender closer than this are grouped. */
const GROUP_MS = 5 * 60_000;

function sameSender(a: StoredEvent, b: StoredEvent): boolean {
  return a.from?.agent_id === b.from?.agent_id && (a.from?.display_name ?? "") === (b.from?.display_name ?? "");
}

/** A chat message that is a question, an answer or addressed to someone starts its own group. */
function standsAlone(ev: StoredEvent): boolean {
  if (ev.type !== "chat.message") return false;
  const p = ev.payload as { expects_reply?: unknown; reply_to?: unknown };
  return p?.expects_reply === true || typeof p?.reply_to === "string" || (Array.isArray(ev.to) && ev.to.length > 0);
}

/**
 * Rows for `events` (ascending by seq). `runs` puts a header before each run's first event
 * (`first_seq`) when that event is loaded. `now` decides "Today"/"Yesterday".
 */
export function buildRows(events: readonly StoredEvent[], runs: readonly RunSummary[] = [], now = new Date()): Row[] {
  // Task state after each task event, and the latest state per task.
  const taskAfter = new Map<number, TaskView>();
  const taskNow = new Map<string, TaskView>();
  // tool.call → its result or error, by call_id.
  const outcomes = new Map<string, StoredEvent>();
  // review task → its decision (review.feedback.v1).
  const decisions = new Map<string, string>();
  for (const ev of events) {
    if (typeof ev?.type !== "string") continue;
    if (isTaskEvent(ev.type) || ev.type === "chat.message") {
      try {
        const next = foldTask(taskNow.get(ev.task_id), ev);
        if (next) {
          taskNow.set(ev.task_id, next);
          if (isTaskEvent(ev.type)) taskAfter.set(ev.seq, next);
        }
        const decision = (ev.payload as { decision?: unknown })?.decision;
        if (ev.type === "task.result" && ev.payload_type === "review.feedback.v1" && typeof decision === "string") {
          decisions.set(ev.task_id, decision);
        }
      } catch {
        // a malformed task event renders through its own fallback
      }
    } else if (ev.type === "tool.result" || ev.type === "tool.error") {
      const id = (ev.payload as { call_id?: unknown })?.call_id;
      if (typeof id === "string" && !outcomes.has(id)) outcomes.set(id, ev);
    }
  }
  const qa = indexQuestions(events);
  const headers = new Map<number, RunSummary>();
  for (const run of runs) headers.set(run.first_seq, run);
  const waitingByRun = new Map<string, QuestionView>();
  for (const q of qa.openToPeople) waitingByRun.set(q.run_id, q);

  const rows: Row[] = [];
  let prev: StoredEvent | null = null;
  let prevDay = "";
  for (const ev of events) {
    const ts = typeof ev?.ts === "string" ? ev.ts : "";
    const day = dayKey(ts);
    if (day !== prevDay) {
      rows.push({ kind: "day", key: `day-${day}-${ev.seq}`, label: formatDay(ts, now) });
      prevDay = day;
      prev = null;
    }
    const run = headers.get(ev.seq);
    if (run) {
      rows.push({ kind: "run", key: `run-${run.run_id}`, run, question: waitingByRun.get(run.run_id) ?? null });
      prev = null;
    }
    const line = LINE_TYPES.has(ev.type);
    const continued =
      !line &&
      prev !== null &&
      !LINE_TYPES.has(prev.type) &&
      !standsAlone(ev) &&
      !standsAlone(prev) &&
      sameSender(prev, ev) &&
      Math.abs(Date.parse(ts) - Date.parse(prev.ts)) < GROUP_MS;
    const ctx: EventContext = { continued };
    if (isTaskEvent(ev.type)) {
      ctx.task = taskAfter.get(ev.seq);
      ctx.taskNow = taskNow.get(ev.task_id);
      const p = ev.payload as { status?: unknown; review_task_id?: unknown } | undefined;
      if (ev.type === "task.progress" && p?.status === "in_review" && typeof p.review_task_id === "string") {
        ctx.related = taskNow.get(p.review_task_id);
        ctx.decision = decisions.get(p.review_task_id);
      } else if (ev.type === "task.request" && typeof ev.meta?.review_of === "string") {
        ctx.related = taskNow.get(ev.meta.review_of);
      }
    } else if (ev.type === "tool.call") {
      const id = (ev.payload as { call_id?: unknown })?.call_id;
      if (typeof id === "string") ctx.toolOutcome = outcomes.get(id);
    } else if (ev.type === "chat.message") {
      ctx.question = qa.questions.get(ev.id);
      const to = (ev.payload as { reply_to?: unknown })?.reply_to;
      if (typeof to === "string") ctx.replyTo = qa.messages.get(to);
    }
    rows.push({ kind: "event", key: String(ev.seq), event: ev, ctx });
    prev = ev;
  }
  return rows;
}
