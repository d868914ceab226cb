/**
 * From a channel's events to the rows the list draws (issue 2 "group consecutive chat messages
 * from the same sender like Slack; day dividers"; task cards' state from lib/fold/task-state.ts).
 * Pure: the same events always give the same rows, live or after a reload.
 */
import type { StoredEvent } from "@/lib/protocol";
import { foldTask, isTaskEvent, type TaskView } from "@/lib/fold/task-state";
import { LINE_TYPES, type EventContext } from "@/components/events/event-view";
import { dayKey, formatDay } from "@/components/ui/time";

/** One row of the list: a day divider or an event with its rendering context. */
export type Row =
  | { kind: "day"; key: string; label: string }
  | { kind: "event"; key: string; event: StoredEvent; ctx: EventContext };

/** Rows from the same sender closer than this are grouped. */
const GROUP_MS = 5 * 60_000;

function sameSender(a: StoredEvent, b: StoredEvent): boolean {
  return a.from?.agent_id === b.from?.agent_id && (a.from?.display_name ?? "") === (b.from?.display_name ?? "");
}

/** Rows for `events` (ascending by seq). `now` decides "Today"/"Yesterday". */
export function buildRows(events: readonly StoredEvent[], now = new Date()): Row[] {
  // Task state after each task event, and the latest state per task.
  const taskAfter = new Map<number, TaskView>();
  const taskNow = new Map<string, TaskView>();
  // tool.call → its result or error, by call_id.
  const outcomes = new Map<string, StoredEvent>();
  for (const ev of events) {
    if (typeof ev?.type !== "string") continue;
    if (isTaskEvent(ev.type)) {
      try {
        const next = foldTask(taskNow.get(ev.task_id), ev);
        if (next) {
          taskNow.set(ev.task_id, next);
          taskAfter.set(ev.seq, next);
        }
      } catch {
        // a malformed task event renders through its own fallback
      }
    } else if (ev.type === "tool.result" || ev.type === "tool.error") {
      const id = (ev.payload as { call_id?: unknown })?.call_id;
      if (typeof id === "string" && !outcomes.has(id)) outcomes.set(id, ev);
    }
  }

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
    const line = LINE_TYPES.has(ev.type);
    const continued =
      !line &&
      prev !== null &&
      !LINE_TYPES.has(prev.type) &&
      sameSender(prev, ev) &&
      Math.abs(Date.parse(ts) - Date.parse(prev.ts)) < GROUP_MS;
    const ctx: EventContext = { continued };
    if (isTaskEvent(ev.type)) {
      ctx.task = taskAfter.get(ev.seq);
      ctx.taskNow = taskNow.get(ev.task_id);
    } else if (ev.type === "tool.call") {
      const id = (ev.payload as { call_id?: unknown })?.call_id;
      if (typeof id === "string") ctx.toolOutcome = outcomes.get(id);
    }
    rows.push({ kind: "event", key: String(ev.seq), event: ev, ctx });
    prev = ev;
  }
  return rows;
}
