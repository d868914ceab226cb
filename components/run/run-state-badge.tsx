/**
 * A run's status as a coloured badge, labelled "Run state: …" like the channel's run header:
 * Running, Waiting (on you / on someone else), Succeeded, Not done, Failed, Cancelled, Timed out
 * (lib/fold/run-status.ts, docs/channels.md "Run states"). A run state (the fold of the root
 * tasks, as the run view folds it live) is a status too.
 */
import { RUN_STATUS_LABEL, type RunStatus } from "@/lib/fold/run-status";
import { StatusBadge, type Tone } from "@/components/ui/chip";

const TONE: Record<RunStatus, Tone> = {
  running: "info",
  waiting: "warning",
  succeeded: "success",
  not_done: "neutral",
  failed: "danger",
  cancelled: "neutral",
  timed_out: "warning",
};

/** "● Running" etc.; pulses while running or waiting. `label` overrides the status' own ("Waiting on you"). */
export function RunStateBadge({ state, label }: { state: RunStatus; label?: string }) {
  const text = label ?? RUN_STATUS_LABEL[state] ?? state;
  const live = state === "running" || state === "waiting";
  return (
    <StatusBadge tone={TONE[state] ?? "neutral"} label={`Run state: ${text}`}>
      <span className={`h-1.5 w-1.5 rounded-full bg-current ${live ? "animate-pulse" : ""}`} aria-hidden="true" />
      {text}
    </StatusBadge>
  );
}
