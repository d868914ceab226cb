"use client";
/**
 * `TaskPanel`: the side panel a click on a node opens, for its task at event N: the task's state
 * in the node's words ("Waiting on you", "Cancelled by Lee"; graph-model.ts `taskNodeLabel`),
 * agent, attempts, duration, tokens, cost and time in the model, tools and people, and ids; why it ended without a result (who cancelled it, the timeout,
 * the error); Cancel while it runs and Retry once it failed (live, not in a replay); the routing
 * decision that chose its agent; every event of the task up to N drawn by the channel's renderers (components/events/event-view.tsx, payloads and
 * tool calls included), each with "Re-run from here". A question's Reply goes to the channel, where
 * the person answers.
 */
import { useRouter } from "next/navigation";
import { useMemo, useRef } from "react";
import type { StoredEvent } from "@/lib/protocol";
import { getNode, taskDurationMs, type RunGraphState } from "@/lib/fold/run-graph";
import { DECLINED_CODE, taskStatusLabel } from "@/lib/fold/run-status";
import type { TaskView } from "@/lib/fold/task-state";
import { useMe } from "@/components/identity/me";
import { EventView } from "@/components/events/event-view";
import { ThreadActionsContext, type ThreadActions } from "@/components/events/thread-actions";
import { useRunPersonLabel } from "./use-run-names";
import { CloseIcon } from "@/components/ui/icons";
import { formatDuration, formatFull } from "@/components/ui/time";
import { ForkIcon } from "./icons";
import { TaskUsageFacts } from "./run-usage";
import { workNodes } from "./work-nodes";
import type { TaskUsage } from "@/lib/fold/usage";
import { taskNodeLabel } from "./graph-model";
import { panelRows } from "./panel-rows";
import { stateStyle } from "./task-style";
import { CancelWork, RetryTask } from "./work-controls";

function Fact({ label, children }: { label: string; children: React.ReactNode }) {
  return (
    <div className="min-w-0">
      <dt className="text-[10.5px] font-semibold uppercase tracking-wide text-fg-subtle">{label}</dt>
      <dd className="truncate text-[12.5px] text-fg">{children}</dd>
    </div>
  );
}

/**
 * Why the task ended without a result, headed as its node says it: "Cancelled by Lee", "Not
 * done" (declined), "Timed out", or "Failed" with the error's code; then the reason given.
 */
function EndReason({ task, nameOf }: { task: TaskView; nameOf: (id: string) => string }) {
  const e = task.error ?? {};
  const message = typeof e.message === "string" ? e.message : "";
  const head = taskStatusLabel(task, [], null, nameOf);
  const code = task.state === "failed" && typeof e.code === "string" && e.code !== DECLINED_CODE ? e.code : null;
  const tone = task.state === "failed" && code ? "text-danger" : task.state === "timed_out" ? "text-warning" : "text-fg-muted";
  return (
    <p className={`text-[12.5px] ${tone}`}>
      <span className="font-semibold">{head}</span>
      {code && <span className="font-mono text-[11px]"> ({code})</span>}
      {message ? `: ${message}` : ""}
    </p>
  );
}

/** A task can be retried while the task it reports to (if any) has not ended. */
function canRetry(state: RunGraphState, parentId: string | null | undefined): boolean {
  if (!parentId) return true;
  const parent = getNode(state, parentId)?.task;
  return !parent?.ended_at;
}

export function TaskPanel({
  taskId,
  state,
  events,
  onClose,
  onFork,
  onSelectTask,
  forking,
  live,
  usage,
  currency = "USD",
}: {
  taskId: string;
  state: RunGraphState;
  events: readonly StoredEvent[];
  onClose: () => void;
  onFork: (seq: number) => void;
  onSelectTask: (id: string) => void;
  forking: boolean;
  /** The panel shows the task now (not a point of the replay): it can be cancelled or retried. */
  live: boolean;
  /** The task's tokens, cost and time at N (lib/fold/usage.ts), in `currency`. */
  usage?: TaskUsage;
  currency?: string;
}) {
  const router = useRouter();
  const me = useMe();
  const nameOf = useRunPersonLabel();
  const body = useRef<HTMLDivElement>(null);
  const rows = useMemo(() => panelRows(state, events, taskId), [state, events, taskId]);
  const workedOn = useMemo(() => workNodes(events, taskId), [events, taskId]);
  const node = getNode(state, taskId);
  const task = node?.task ?? null;
  const routingEvent = node?.routing ? events[node.routing.index] : undefined;
  // The routing decision has its own section above the list.
  const listed = routingEvent ? rows.filter((r) => r.event !== routingEvent) : rows;
  const threadId = state.thread_id;
  const actions = useMemo<ThreadActions>(
    () => ({
      // Answers are given in the channel, where the composer is.
      replyTo: () => {
        if (threadId) router.push(`/c/${encodeURIComponent(threadId)}`);
      },
      // Threads open beside the channel.
      openThread: (target) => {
        if (!threadId) return;
        const q = "run_id" in target ? `run=${encodeURIComponent(target.run_id)}` : `message=${encodeURIComponent(target.message_id)}`;
        router.push(`/c/${encodeURIComponent(threadId)}?${q}`);
      },
      jumpTo: (id) => {
        const el = body.current?.querySelector<HTMLElement>(`[data-msg-id="${CSS.escape(id)}"]`);
        if (!el) return false;
        el.scrollIntoView({ block: "center", behavior: "smooth" });
        el.classList.remove("flash");
        void el.offsetWidth;
        el.classList.add("flash");
        return true;
      },
    }),
    [router, threadId],
  );
  const s = stateStyle(task?.state ?? "pending");
  const label = task ? taskNodeLabel(state, task, me, nameOf) : "Not started yet";
  const title = task?.title ?? "Task";
  const duration = task ? taskDurationMs(task, state.last_ts) : null;

  return (
    <aside
      aria-label={`Task: ${title}`}
      className="flex h-full min-h-0 w-full flex-col border-line bg-canvas md:w-[420px] md:border-l lg:w-[460px]"
    >
      <header className="flex shrink-0 items-start gap-2 border-b border-line px-4 py-2.5">
        <span className={`mt-0.5 shrink-0 ${s.text}`}>{s.icon(18)}</span>
        <div className="min-w-0 flex-1">
          <h2 className="line-clamp-2 text-[14.5px] font-semibold leading-5 text-fg" title={title}>
            {title}
          </h2>
          <p className="text-[12px] text-fg-muted">
            <span className={`font-semibold ${s.text}`}>{label}</span>
            {task?.assignee && (
              <>
                {" · "}
                <span className="font-medium text-fg" title={task.assignee}>
                  {nameOf(task.assignee)}
                </span>
              </>
            )}
            {node?.edge === "review" && " · oversight review"}
            {node?.edge === "delegation" && " · delegated"}
          </p>
        </div>
        <button type="button" onClick={onClose} aria-label="Close the task panel" className="-mr-1 rounded-md p-1 text-fg-muted hover:bg-hover hover:text-fg">
          <CloseIcon />
        </button>
      </header>
      <div ref={body} className="scroll-slim min-h-0 flex-1 overflow-y-auto pb-6">
        {!task ? (
          <p className="px-4 py-6 text-sm text-fg-muted">
            At this point of the replay the task has not been requested yet. Move the timeline forward to see it.
          </p>
        ) : (
          <ThreadActionsContext.Provider value={actions}>
            <div className="border-b border-line px-4 py-3">
              <dl className="grid grid-cols-2 gap-x-4 gap-y-2 sm:grid-cols-3">
                <Fact label="Attempts">{task.attempts}</Fact>
                <Fact label={task.ended_at ? "Duration" : "Time so far"}>{duration === null ? "—" : formatDuration(duration)}</Fact>
                <Fact label="Requested by">{task.requester ? nameOf(task.requester) : "—"}</Fact>
                <Fact label="Started">
                  <time dateTime={task.created_at} title={formatFull(task.created_at)}>
                    {new Date(task.created_at).toLocaleTimeString()}
                  </time>
                </Fact>
                <Fact label="Ended">
                  {task.ended_at ? (
                    <time dateTime={task.ended_at} title={formatFull(task.ended_at)}>
                      {new Date(task.ended_at).toLocaleTimeString()}
                    </time>
                  ) : (
                    "—"
                  )}
                </Fact>
                <TaskUsageFacts usage={usage} currency={currency} Fact={Fact} />
                {workedOn.length > 0 && (
                  <Fact label={workedOn.length > 1 ? "Nodes" : "Node"}>
                    <span title={workedOn.join(", then ")}>{workedOn.join(", then ")}</span>
                  </Fact>
                )}
                <Fact label="Task id">
                  <span className="font-mono text-[11px]" title={task.task_id}>
                    {task.task_id}
                  </span>
                </Fact>
              </dl>
              <div className="mt-2 space-y-1.5 empty:hidden">
                {node?.parent_id && (
                  <p className="min-w-0 text-[12px] text-fg-muted">
                    {node.edge === "review" ? "Reviews" : "Subtask of"}{" "}
                    <button type="button" onClick={() => onSelectTask(node.parent_id!)} className="font-medium text-accent hover:underline">
                      {getNode(state, node.parent_id)?.task?.title ?? node.parent_id}
                    </button>
                  </p>
                )}
                {task.error && <EndReason task={task} nameOf={nameOf} />}
                {live && (!task.ended_at || (task.state !== "succeeded" && canRetry(state, node?.parent_id))) && (
                  <div className="flex flex-wrap items-center gap-2">
                    {task.ended_at ? <RetryTask taskId={task.task_id} /> : <CancelWork kind="task" id={task.task_id} title={title} className="-ml-2" />}
                  </div>
                )}
              </div>
            </div>
            <section aria-label="Routing" className="border-b border-line py-2">
              <h3 className="px-4 text-[11px] font-semibold uppercase tracking-wide text-fg-subtle">Routing</h3>
              {routingEvent ? (
                <EventView event={routingEvent} ctx={{ continued: false }} />
              ) : (
                <p className="px-4 pt-1 text-[12.5px] text-fg-muted">No routing decision was recorded for this task; it was sent to {task.assignee ? nameOf(task.assignee) : "its agent"} by id.</p>
              )}
            </section>
            <section aria-label="Events of the task" className="pt-2">
              <h3 className="px-4 text-[11px] font-semibold uppercase tracking-wide text-fg-subtle">
                Events <span className="font-normal normal-case tracking-normal">({listed.length} up to this point{routingEvent ? ", besides the routing" : ""})</span>
              </h3>
              {listed.map((r) => (
                <div key={r.event.seq} className="group/ev relative">
                  <EventView event={r.event} ctx={r.ctx} />
                  <div className="flex justify-end px-4">
                    <button
                      type="button"
                      onClick={() => onFork(r.event.seq)}
                      disabled={forking}
                      aria-label={`Re-run from event #${r.event.seq}`}
                      className="inline-flex items-center gap-1 rounded px-1 text-[11px] text-fg-subtle opacity-0 hover:text-accent focus:opacity-100 disabled:opacity-40 group-hover/ev:opacity-100 [@media(hover:none)]:opacity-100"
                    >
                      <ForkIcon size={11} /> Re-run from #{r.event.seq}
                    </button>
                  </div>
                </div>
              ))}
            </section>
          </ThreadActionsContext.Provider>
        )}
      </div>
    </aside>
  );
}
