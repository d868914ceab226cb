/**
 * How each task state looks on the run page (pending, approval required, running, waiting for
 * input, succeeded, failed, cancelled, timed out): a label, a colour (theme token), an icon, and
 * the left border and tint of a DAG node. Labels match the channel's task cards
 * (components/events/task-card.tsx).
 */
import type { ReactNode } from "react";
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
    label: "Pending",
    text: "text-fg-muted",
    node: "border-line-strong bg-surface",
    color: "var(--c-fg-subtle)",
    icon: (s) => <CircleDashedIcon size={s} />,
  },
  approval_required: {
    label: "Needs approval",
    text: "text-warning",
    node: "border-warning/70 bg-warning/[0.06]",
    color: "var(--c-warning)",
    icon: (s) => <HandIcon size={s} />,
  },
  running: {
    label: "Running",
    text: "text-info",
    node: "border-info/70 bg-info/[0.05]",
    color: "var(--c-info)",
    icon: (s) => <SpinnerIcon size={s} className="animate-spin [animation-duration:1.6s]" />,
  },
  waiting_input: {
    label: "Waiting for input",
    text: "text-warning",
    node: "border-warning/70 bg-warning/[0.07]",
    color: "var(--c-warning)",
    icon: (s) => <MessageWaitIcon size={s} />,
  },
  succeeded: {
    label: "Succeeded",
    text: "text-success",
    node: "border-success/60 bg-success/[0.05]",
    color: "var(--c-success)",
    icon: (s) => <CheckCircleIcon size={s} />,
  },
  failed: {
    label: "Failed",
    text: "text-danger",
    node: "border-danger/70 bg-danger/[0.06]",
    color: "var(--c-danger)",
    icon: (s) => <XOctagonIcon size={s} />,
  },
  cancelled: {
    label: "Cancelled",
    text: "text-fg-muted",
    node: "border-line-strong bg-sunken",
    color: "var(--c-fg-muted)",
    icon: (s) => <BanIcon size={s} />,
  },
  timed_out: {
    label: "Timed out",
    text: "text-warning",
    node: "border-warning/70 bg-warning/[0.05]",
    color: "var(--c-warning)",
    icon: (s) => <HourglassIcon size={s} />,
  },
};

/** The style of a state, with a neutral fallback for a state this UI does not know. */
export function stateStyle(state: string): StateStyle {
  return TASK_STATE_STYLE[state as TaskState] ?? { ...TASK_STATE_STYLE.pending, label: state };
}
