/**
 * A run's status as a coloured badge, labelled "Run state: …" like the channel's run header.
 * The colour is the status' (lib/fold/run-status.ts); the words are the caller's, from
 * `runStatusLabel` for the person reading: Running, Waiting on you / on Dana / on an admin,
 * Succeeded, Not done, Failed, Cancelled by Lee, Timed out (docs/channels.md "Run states").
 */
import type { RunStatus } from "@/lib/fold/run-status";
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

/** "● Waiting on you" etc.; pulses while running or waiting. */
export function RunStateBadge({ state, label }: { state: RunStatus; label: string }) {
  const live = state === "running" || state === "waiting";
  return (
    <StatusBadge tone={TONE[state] ?? "neutral"} label={`Run state: ${label}`}>
      <span className={`h-1.5 w-1.5 rounded-full bg-current ${live ? "animate-pulse" : ""}`} aria-hidden="true" />
      {label}
    </StatusBadge>
  );
}
