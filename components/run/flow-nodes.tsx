"use client";
/**
 * The DAG's node and edge renderers: each node shows the agent, a title or summary, the state
 * (colour and icon), attempts and duration; edges are labelled by the kind of handoff
 * (delegation, oversight review) and carry the routing decision that chose the agent.
 *
 * - `TaskFlowNode`: a card with the state's colour and icon, the agent, the title, attempts,
 *   its state at event N in people's words ("Waiting on you", "Cancelled by Lee";
 *   graph-model.ts `taskNodeLabel`), duration (still counting while it waits) and its model
 *   tokens and cost (lib/fold/usage.ts); a click opens the side panel; a subtree toggle when
 *   the task has subtasks.
 * - `RunFlowNode`: the run at the top: its status at event N as the channel and /runs say it
 *   (graph-model.ts `runNodeStatus`), the tasks that succeeded of all, duration.
 * - `MoreFlowNode`: "+N more" for a parent with many children; a click shows them all.
 * - `HandoffEdge`: a smooth-step edge with a label "delegation · analyst-1" (or "oversight
 *   review · qa-1") whose tooltip gives the routing reason and candidates' scores.
 */
import { memo } from "react";
import { BaseEdge, EdgeLabelRenderer, Handle, Position, getSmoothStepPath, type EdgeProps, type NodeProps } from "@xyflow/react";
import { runDurationMs, taskDurationMs } from "@/lib/fold/run-graph";
import { TERMINAL_STATES } from "@/lib/fold/task-state";
import { useRunNameOf } from "./use-run-names";
import { ChevronRightIcon, RouteIcon, ShieldCheckIcon } from "@/components/ui/icons";
import { formatDuration } from "@/components/ui/time";
import { RunStateBadge } from "./run-state-badge";
import { stateStyle } from "./task-style";
import type { HandoffEdgeData, MoreNodeData, RunFlowEdge, RunNodeData, TaskNodeData } from "./graph-model";
import { SIZE } from "./graph-model";
import type { Node } from "@xyflow/react";

const hidden = { opacity: 0, pointerEvents: "none" } as const;

/** "850 ms", "3.7 s", "10m 40s", "2h 05m": fits a card's footer. */
function shortDuration(ms: number): string {
  if (ms < 60_000) return formatDuration(ms);
  const s = Math.round(ms / 1000);
  const h = Math.floor(s / 3600);
  const m = Math.floor((s % 3600) / 60);
  return h ? `${h}h ${String(m).padStart(2, "0")}m` : `${m}m ${String(s % 60).padStart(2, "0")}s`;
}

/** A task card (see the file comment). */
export const TaskFlowNode = memo(function TaskFlowNode({ id, data }: NodeProps<Node<TaskNodeData, "task">>) {
  const task = data.node.task!;
  const nameOf = useRunNameOf();
  const s = stateStyle(task.state);
  // A request to the router (`agent:orchestrator`) has no agent until it is routed (Clutch §4).
  const agent = !task.assignee
    ? "unassigned"
    : task.assignee === "agent:orchestrator"
      ? TERMINAL_STATES.has(task.state)
        ? "no agent"
        : "awaiting an agent"
      : nameOf(task.assignee);
  const duration = taskDurationMs(task, data.at);
  const review = data.node.edge === "review";
  const title = task.title ?? "Untitled task";
  return (
    <div
      data-task-id={id}
      data-state={task.state}
      style={{ width: SIZE.task.w, height: SIZE.task.h }}
      className={`run-node-in group relative flex flex-col rounded-[10px] border-2 px-2.5 py-1.5 text-left shadow-sm transition-colors ${s.node} ${
        data.selected ? "outline-2 outline-offset-2 outline-accent" : ""
      }`}
    >
      <Handle type="target" position={Position.Top} style={hidden} isConnectable={false} />
      <button
        type="button"
        onClick={() => data.onSelect(id)}
        aria-label={`${agent}: ${title} — ${data.label}${task.attempts > 1 ? `, attempt ${task.attempts}` : ""}`}
        aria-pressed={data.selected}
        className="nodrag absolute inset-0 z-0 rounded-[8px] focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-accent"
      />
      <div className="relative flex min-w-0 items-center gap-1.5">
        <span className={`pointer-events-none shrink-0 ${s.text}`} title={data.label}>
          {s.icon(15)}
        </span>
        <span className="pointer-events-none min-w-0 truncate text-[13px] font-semibold text-fg" title={task.assignee ?? undefined}>
          {agent}
        </span>
        {review && (
          <span className="pointer-events-none inline-flex shrink-0 items-center gap-0.5 rounded bg-agent/12 px-1 text-[10px] font-semibold uppercase tracking-wide text-agent">
            <ShieldCheckIcon size={10} strokeWidth={2.5} />
            Review
          </span>
        )}
        {task.attempts > 1 && (
          <span className="pointer-events-none shrink-0 rounded bg-warning/12 px-1 text-[10.5px] font-semibold tabular-nums text-warning" title={`${task.attempts} attempts`}>
            ×{task.attempts}
          </span>
        )}
        {data.childCount > 0 && (
          <button
            type="button"
            onClick={() => data.onToggle(id)}
            aria-expanded={!data.collapsed}
            aria-label={data.collapsed ? `Show ${data.hidden || data.childCount} subtasks of ${agent}` : `Hide the subtasks of ${agent}`}
            title={data.collapsed ? "Show the subtasks" : "Hide the subtasks"}
            className="nodrag relative z-10 -mr-1 ml-auto inline-flex shrink-0 items-center gap-0.5 whitespace-nowrap rounded px-1 text-[11px] font-medium text-fg-muted hover:bg-hover hover:text-fg"
          >
            <ChevronRightIcon size={11} className={`transition-transform ${data.collapsed ? "" : "rotate-90"}`} />
            {data.collapsed ? data.hidden.toLocaleString() : data.childCount.toLocaleString()} subtask{(data.collapsed ? data.hidden : data.childCount) === 1 ? "" : "s"}
          </button>
        )}
      </div>
      <p className="pointer-events-none relative mt-0.5 line-clamp-2 text-[12px] leading-[15px] text-fg-muted" title={title}>
        {title}
      </p>
      <div className="pointer-events-none relative mt-auto flex min-w-0 items-center gap-1.5 text-[11px] leading-4">
        <span className={`min-w-0 truncate font-semibold ${s.text}`} title={data.label}>
          {data.label}
        </span>
        {duration !== null && (
          <span className="shrink-0 whitespace-nowrap tabular-nums text-fg-subtle" title={task.ended_at ? "Duration" : "Time so far"}>
            · {shortDuration(duration)}
          </span>
        )}
        {data.usage && (
          <span className="ml-auto min-w-0 truncate whitespace-nowrap tabular-nums text-fg-subtle" data-task-usage title={`Model tokens and cost of this task: ${data.usage}`}>
            {data.usage}
          </span>
        )}
      </div>
      <Handle type="source" position={Position.Bottom} style={hidden} isConnectable={false} />
    </div>
  );
});

/** The run at the top of the DAG (see the file comment). */
export const RunFlowNode = memo(function RunFlowNode({ data }: NodeProps<Node<RunNodeData, "run">>) {
  const st = data.state;
  const ms = runDurationMs(st);
  return (
    <div
      data-run-node=""
      data-seq={data.seq}
      data-count={data.count}
      style={{ width: SIZE.run.w, height: SIZE.run.h }}
      className="flex flex-col justify-center rounded-[10px] border border-line-strong bg-surface px-3 py-1.5 shadow-sm"
    >
      <div className="flex min-w-0 items-center gap-2">
        <span className="text-[10.5px] font-semibold uppercase tracking-wide text-fg-subtle">Run</span>
        <RunStateBadge state={data.status.status} label={data.label} />
        {ms !== null && <span className="ml-auto text-[11px] tabular-nums text-fg-muted">{formatDuration(ms)}</span>}
      </div>
      <p className="mt-0.5 truncate text-[13px] font-semibold text-fg" title={data.title}>
        {data.title}
      </p>
      <p className="text-[11px] text-fg-muted" data-run-progress={data.progress.fraction}>
        {data.progress.text}
      </p>
      <Handle type="source" position={Position.Bottom} style={hidden} isConnectable={false} />
    </div>
  );
});

/** "+N more" under a parent with many children (see the file comment). */
export const MoreFlowNode = memo(function MoreFlowNode({ data }: NodeProps<Node<MoreNodeData, "more">>) {
  return (
    <div style={{ width: SIZE.more.w, height: SIZE.more.h }} className="relative">
      <Handle type="target" position={Position.Top} style={hidden} isConnectable={false} />
      <button
        type="button"
        onClick={() => data.onOpen(data.parent)}
        className="nodrag flex h-full w-full items-center justify-center gap-1 rounded-[10px] border-2 border-dashed border-line-strong bg-surface text-[13px] font-semibold text-fg-muted hover:border-accent hover:text-accent"
        aria-label={`Show ${data.hidden} more subtasks`}
      >
        +{data.hidden.toLocaleString()} more
      </button>
    </div>
  );
});

const EDGE_STYLE: Record<HandoffEdgeData["kind"], { stroke: string; dash?: string; label: string }> = {
  request: { stroke: "var(--c-accent)", label: "request" },
  delegation: { stroke: "var(--c-fg-subtle)", label: "delegation" },
  review: { stroke: "var(--c-agent)", dash: "6 4", label: "oversight review" },
  more: { stroke: "var(--c-line-strong)", dash: "2 4", label: "" },
};

/** The tooltip of an edge: why its agent was chosen. */
function routingTooltip(data: HandoffEdgeData, nameOf: (id: string) => string): string {
  const r = data.routing;
  const kind = EDGE_STYLE[data.kind].label;
  if (!r) return `${kind}: no routing decision recorded`;
  if (r.kind === "failure") return `${kind}: routing failed — ${r.reason}`;
  const scores = Object.entries(r.scores)
    .sort((a, b) => b[1] - a[1])
    .map(([a, s]) => `${nameOf(a)} ${s.toFixed(2)}`)
    .join(", ");
  return `${kind} → ${r.selected ? nameOf(r.selected) : "?"}\n${r.reason}${scores ? `\nScores: ${scores}` : ""}`;
}

/** An edge labelled with its handoff kind and the routing decision (see the file comment). */
export const HandoffEdge = memo(function HandoffEdge({
  id,
  sourceX,
  sourceY,
  targetX,
  targetY,
  sourcePosition,
  targetPosition,
  data,
}: EdgeProps<RunFlowEdge>) {
  const kind = data?.kind ?? "delegation";
  const st = EDGE_STYLE[kind];
  const [path, labelX, labelY] = getSmoothStepPath({ sourceX, sourceY, targetX, targetY, sourcePosition, targetPosition, borderRadius: 10, offset: 16 });
  const routing = data?.routing;
  const nameOf = useRunNameOf();
  const selected = routing?.kind === "decision" && routing.selected && !data?.compact ? nameOf(routing.selected) : null;
  return (
    <>
      <BaseEdge id={id} path={path} style={{ stroke: st.stroke, strokeDasharray: st.dash, strokeWidth: kind === "review" ? 1.75 : 1.5 }} />
      {kind !== "more" && (
        <EdgeLabelRenderer>
          <div
            className="nodrag nopan absolute"
            style={{ transform: `translate(-50%, -50%) translate(${labelX}px, ${(labelY + targetY) / 2}px)`, pointerEvents: "all" }}
          >
            <span
              title={data ? routingTooltip(data, nameOf) : undefined}
              data-edge-kind={kind}
              className={`inline-flex max-w-[190px] items-center gap-1 truncate rounded-full border bg-surface px-1.5 py-px text-[10.5px] font-medium leading-4 shadow-sm ${
                kind === "review" ? "border-agent/40 text-agent" : kind === "request" ? "border-accent/40 text-accent" : "border-line-strong text-fg-muted"
              } ${routing?.kind === "failure" ? "border-danger/50 text-danger" : ""}`}
            >
              {routing && <RouteIcon size={10} className="shrink-0 opacity-70" />}
              <span className="truncate">
                {st.label}
                {selected && <span className="font-semibold"> · {selected}</span>}
              </span>
            </span>
          </div>
        </EdgeLabelRenderer>
      )}
    </>
  );
});

export const NODE_TYPES = { task: TaskFlowNode, run: RunFlowNode, more: MoreFlowNode };
export const EDGE_TYPES = { handoff: HandoffEdge };
