/**
 * The run view's side panel: the events of one task at event N (its payloads, tool calls and
 * routing decision), each with the context the channel's renderers
 * (components/events/event-view.tsx) need, computed from events 1..N only, so a replayed task
 * card, tool call or question shows what was known at N.
 */
import { isEvent, type StoredEvent, type StoredEventOf } from "@/lib/protocol";
import { foldTask, isTaskEvent, type TaskView } from "@/lib/fold/task-state";
import { indexQuestions } from "@/lib/fold/questions";
import { getNode, getTask, listItems, type RunGraphState } from "@/lib/fold/run-graph";
import type { EventContext } from "@/components/events/event-view";
import { continuesGroup, reviewDecisionOf, reviewTaskOf } from "@/components/thread/rows";

/** One event of the panel with its rendering context. */
export interface PanelRow {
  index: number;
  event: StoredEvent;
  ctx: EventContext;
}

/** The decision of a review task (review.feedback.v1) among its events up to N. */
function reviewDecision(state: RunGraphState, events: readonly StoredEvent[], reviewId: string): string | undefined {
  const node = getNode(state, reviewId);
  if (!node) return undefined;
  for (const i of listItems(node.events)) {
    const ev = events[i];
    const decision = ev && reviewDecisionOf(ev);
    if (decision !== undefined) return decision;
  }
  return undefined;
}

/** The events of task `taskId` at `state` (events 1..state.count), with their contexts. */
export function panelRows(state: RunGraphState, events: readonly StoredEvent[], taskId: string): PanelRow[] {
  const node = getNode(state, taskId);
  if (!node) return [];
  const idx = listItems(node.events);
  const evs = idx.map((i) => events[i]!).filter(Boolean);
  const taskNow = node.task ?? undefined;
  const outcomes = new Map<string, StoredEventOf<"tool.result" | "tool.error">>();
  for (const ev of evs) {
    if (!isEvent(ev, "tool.result", "tool.error")) continue;
    const id = ev.payload.call_id;
    if (typeof id === "string" && !outcomes.has(id)) outcomes.set(id, ev);
  }
  const qa = indexQuestions(evs);
  const rows: PanelRow[] = [];
  let task: TaskView | undefined;
  let prev: StoredEvent | null = null;
  evs.forEach((ev, k) => {
    const ctx: EventContext = { continued: continuesGroup(prev, ev) };
    if (isTaskEvent(ev.type) || ev.type === "chat.message") {
      try {
        task = foldTask(task, ev) ?? task;
      } catch {
        // a malformed event renders through its own fallback
      }
    }
    if (isTaskEvent(ev.type)) {
      ctx.task = task;
      ctx.taskNow = taskNow;
      const review = reviewTaskOf(ev);
      if (review !== undefined) {
        ctx.related = getTask(state, review);
        ctx.decision = reviewDecision(state, events, review);
      } else if (ev.type === "task.request" && typeof ev.meta?.review_of === "string") {
        ctx.related = getTask(state, ev.meta.review_of);
      }
    } else if (isEvent(ev, "tool.call")) {
      const id = ev.payload.call_id;
      if (typeof id === "string") ctx.toolOutcome = outcomes.get(id);
    } else if (isEvent(ev, "chat.message")) {
      ctx.question = qa.questions.get(ev.id);
      const to = ev.payload.reply_to;
      if (typeof to === "string") ctx.replyTo = qa.messages.get(to);
    }
    rows.push({ index: idx[k]!, event: ev, ctx });
    prev = ev;
  });
  return rows;
}
