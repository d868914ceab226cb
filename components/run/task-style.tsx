/**
 * How each task state looks on the run page (pending, approval required, running, waiting for
 * input, succeeded, failed, cancelled, timed out): a label, a colour (theme token), an icon, and
 * the left border and tint of a DAG node. Labels are people's words for the state when there is
 * nobody to name (lib/fold/run-status.ts `TASK_STATE_LABEL`, as the channel's task cards say
 * them); a node or panel says whom a waiting task waits on with `taskStatusLabel`.
 */
import type { ReactNode } from "react";
import { TASK_STATE_LABEL } from "@/lib/fold/run-status";
import type { TaskState } from "@/lib/fold/task-state";
import { BanIcon, CheckCircleIcon, CircleDashedIcon, HandIcon, HourglassIcon, MessageWaitIcon, SpinnerIcon, XOctagonIcon } from "./icons";

export interface StateStyle {
  label: string;
  /** Text colour class. */
  text: string;
  /** Node border and background tint. */
  node: string;
  /** A CSS colour for the minimap. */
  color: string;
  icon: (size: number) => ReactNode;
}

export const TASK_STATE_STYLE: Record<TaskState, StateStyle> = {
  pending: {
    label: TASK_STATE_LABEL.pending,
    text: "text-fg-muted",
    node: "border-line-strong bg-surface",
    color: "var(--c-fg-subtle)",
    icon: (s) => <CircleDashedIcon size={s} />,
  },
  approval_required: {
    label: TASK_STATE_LABEL.approval_required,
    text: "text-warning",
    node: "border-warning/70 bg-warning/[0.06]",
    color: "var(--c-warning)",
    icon: (s) => <HandIcon size={s} />,
  },
  running: {
    label: TASK_STATE_LABEL.running,
    text: "text-info",
    node: "border-info/70 bg-info/[0.05]",
    color: "var(--c-info)",
    icon: (s) => <SpinnerIcon size={s} className="animate-spin [animation-duration:1.6s]" />,
  },
  waiting_input: {
    label: TASK_STATE_LABEL.waiting_input,
    text: "text-warning",
    node: "border-warning/70 bg-warning/[0.07]",
    color: "var(--c-warning)",
    icon: (s) => <MessageWaitIcon size={s} />,
  },
  succeeded: {
    label: TASK_STATE_LABEL.succeeded,
    text: "text-success",
    node: "border-success/60 bg-success/[0.05]",
    color: "var(--c-success)",
    icon: (s) => <CheckCircleIcon size={s} />,
  },
  failed: {
    label: TASK_STATE_LABEL.failed,
    text: "text-danger",
    node: "border-danger/70 bg-danger/[0.06]",
    color: "var(--c-danger)",
    icon: (s) => <XOctagonIcon size={s} />,
  },
  cancelled: {
    label: TASK_STATE_LABEL.cancelled,
    text: "text-fg-muted",
    node: "border-line-strong bg-sunken",
    color: "var(--c-fg-muted)",
    icon: (s) => <BanIcon size={s} />,
  },
  timed_out: {
    label: TASK_STATE_LABEL.timed_out,
    text: "text-warning",
    node: "border-warning/70 bg-warning/[0.05]",
    color: "var(--c-warning)",
    icon: (s) => <HourglassIcon size={s} />,
  },
};

/** The style of a state, with a neutral fallback for a state this UI does not know (named as pending: no raw state name reaches people). */
export function stateStyle(state: string): StateStyle {
  return TASK_STATE_STYLE[state as TaskState] ?? TASK_STATE_STYLE.pending;
}
